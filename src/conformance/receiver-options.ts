/**
 * What a receiver run (run-receiver.ts) is given: the target or the in-process mock, the identity and secrets, the
 * callback listener (Interface A), the selection, the bounds and the hooks. Its own module, so that the pieces of the
 * run (receiver-setup.ts) take it from below.
 */
import type { ClientOptions } from '../http/client.js';
import type { InterfaceId } from '../spec/constants.js';
import type { Selection } from './catalogue.js';
import type { ExploreRequest } from './explore/setup.js';
import type { ReproducerFactory, RunHooks } from './runner.js';
import type { Waiver } from './waivers.js';

export interface ConformanceOptions extends RunHooks {
  interface: InterfaceId;
  /** The events URL (B) or provider endpoint (A); ignored with `mock`. */
  target?: string;
  /** Start the reference receiver in-process and run against it. */
  mock?: boolean;
  /** With `mock`: deliberate defects of the reference receiver (the suite's self-test; `--break`). */
  faults?: readonly string[];
  /** B: the provider code; A: the platform id (X-CAI-Source). Defaults with `mock`. */
  identity?: string;
  /** Signing secrets (first signs). Generated with `mock` when absent. */
  secrets?: readonly string[];
  /** Label of the first secret's source, for reproduction commands (never the value). */
  secretLabel?: string;
  /** A: the events-direction secrets; enables the callback checks. Generated with `mock`. */
  callbackSecrets?: readonly string[];
  /** Label of the first callback secret's source, for reproduction commands. */
  callbackSecretLabel?: string;
  /** A: the provider code expected on callbacks. */
  providerCode?: string;
  branchCode?: string;
  leadId?: string;
  callbackListen?: { host: string; port: number };
  callbackUrl?: string;
  callbackWaitMs?: number;
  /** A: after the last event of a job, how long cai listens for one more (default 2 s; 0.5 s with `mock`). */
  observeMs?: number;
  selection: Selection;
  concurrency?: number;
  timeoutMs?: number;
  waivers?: readonly Waiver[];
  /** Where failing bodies are saved; default a fresh directory under the system temp dir. */
  reproDir?: string;
  client?: Pick<ClientOptions, 'ca' | 'insecure' | 'proxy'>;
  sourceAddress?: string;
  /** Stops the run (Ctrl-C): checks not started are reported as skipped. */
  signal?: AbortSignal;
  /** Largest Retry-After honoured (ms). */
  maxRetryAfterMs?: number;
  /** Start no new check once this many must checks have failed (`--fail-fast`: 1); the rest are skipped. */
  maxFailures?: number;
  /**
   * The stateful phase (src/conformance/explore), on by default: its seed, budget, or one conversation to replay;
   * `false` turns it off (its checks are then skipped).
   */
  explore?: ExploreRequest | false;
  /**
   * Writes a reproduction of each failing check (its evidence saved, a script that shows the failure again). The
   * CLI's, or `receiverReproducer(options)` for these options; without one, none is written.
   */
  reproducer?: ReproducerFactory;
}
