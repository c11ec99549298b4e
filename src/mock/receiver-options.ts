import { codedError } from '../errors.js';
import type { ReceiverLimits, TlsFiles } from '../http/server.js';
import type { Bounds } from './bounds.js';
import type { FsyncMode } from './log.js';
import type { MockRequestEntry, RequestObserver } from './pipeline/profile.js';
import type { RecordStore } from './log.js';
import { preloadValidator } from './validator.js';

/**
 * What both reference receivers (./platform.ts, ./provider.ts) take alike: where and how they listen, how fast they
 * answer, what they keep and log, their faults, and the hooks of tests and the CLI. Each adds its own credentials.
 */
export interface MockReceiverOptions {
  host?: string;
  port?: number;
  /** §5.8: serve HTTPS (TLS 1.2 or above) with this certificate and key. */
  tls?: TlsFiles;
  /** The NDJSON log: what is accepted is written there before its 202, read back on start (dedupe); locked in use. */
  logFile?: string;
  /** When the log reaches the disk (see FsyncMode; default `everysec`). */
  fsync?: FsyncMode;
  /** Deliberate defects, by name (PLATFORM_FAULTS or PROVIDER_FAULTS, faults.ts). */
  faults?: readonly string[];
  /** Documents remembered for dedupe (per space, §1), the oldest forgotten past it (see DedupeIndex); default all. */
  dedupeCapacity?: number;
  /** Added before every answer (fault injection). */
  latencyMs?: number;
  /** Keep records in memory for `records` (default true; the CLI turns it off). */
  keepRecords?: boolean;
  /** Connections, body bytes in memory and time-outs; each defaults to DEFAULT_RECEIVER_LIMITS. */
  limits?: Partial<ReceiverLimits>;
  onRequest?: (entry: MockRequestEntry) => void;
  /** Every request after its answer, with headers and body (the inspector). */
  observe?: RequestObserver;
  /** Clock in ms (tests). */
  now?: () => number;
  random?: () => number;
}

/** The parts of a receiver's profile (pipeline/profile.ts) that both take alike from their options, bounds and store. */
export function sharedProfile(options: MockReceiverOptions, bounds: Bounds, store: RecordStore) {
  return {
    latencyMs: options.latencyMs,
    now: options.now ?? Date.now,
    onRequest: options.onRequest,
    observe: options.observe,
    validator: preloadValidator(),
    limits: bounds.limits,
    budget: bounds.budget,
    watch: bounds.watch,
    store,
  };
}

/** A mock's own provider code, and (below) a direction's secrets, none empty: else the usage error that says which. */
export function requireProviderCode(mock: 'platform' | 'provider', providerCode: string): void {
  if (providerCode === '') throw codedError('usage', 'missing_provider', 'no provider code', { mock });
}

export function requireSecrets(secrets: readonly string[], message: string, credential: string): void {
  if (secrets.length === 0 || secrets.some((secret) => secret.length === 0))
    throw codedError('usage', 'missing_secret', message, { credential });
}
