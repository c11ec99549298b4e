/**
 * What a receiver run starts before its first check, and stops after its last: who it signs as (given, or generated
 * for the in-process reference receiver), the target (given, or that receiver started), and the session the checks
 * send through, with its connections and, on Interface A, the listener of the provider's callbacks.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { createDispatcher, type ClientOptions } from '../http/client.js';
import { codedError } from '../errors.js';
import { startMockPlatform } from '../mock/platform.js';
import { startMockProvider } from '../mock/provider.js';
import { interfaceSpec } from '../spec/interfaces.js';
import type { Plan } from './catalogue.js';
import { startCallbackListener } from './probe/callbacks.js';
import { Session } from './probe/session.js';
import type { ConformanceOptions } from './options.js';
import {
  DEFAULT_CALLBACK_WAIT_MS,
  DEFAULT_OBSERVE_MS,
  MOCK_DEDUPE_MEMORY_WAIT_MS,
  MOCK_OBSERVE_MS,
} from './tolerances.js';

const MOCK_PROVIDER_CODE = 'cai-conformance';
const MOCK_SOURCE = 'cai-conformance-platform';
/**
 * With the mock, a rate cap is configured only when the rate check runs (it would slow every other check). Low
 * enough that the check's first waves pass it even on a loaded machine, where 100/s was refilled as fast as sent.
 */
const MOCK_RATE_LIMIT_PER_SECOND = 10;
/** With the mock, its callback sender's first backoff is short, so the callback retry checks wait little. */
const MOCK_CALLBACK_RETRY = { initialDelayMs: 50 };

/** Who the run signs as and with what: given, or generated for the in-process mock. */
export function credentialsFor(options: ConformanceOptions) {
  const secrets = options.secrets?.length
    ? [...options.secrets]
    : options.mock
      ? [randomBytes(32).toString('hex')]
      : [];
  if (secrets.length === 0)
    throw codedError('usage', 'missing_secret', 'no signing secret for the conformance run', { secret: 'secret' });
  const spec = interfaceSpec(options.interface);
  // The provider's events come back only on Interface A (§3 step 5), signed with the other direction's secret.
  const callbackSecrets = options.callbackSecrets?.length
    ? [...options.callbackSecrets]
    : options.mock && spec.receiver === 'provider'
      ? [randomBytes(32).toString('hex')]
      : [];
  return {
    secrets,
    callbackSecrets,
    identity: options.identity ?? (spec.sender === 'provider' ? MOCK_PROVIDER_CODE : MOCK_SOURCE),
    providerCode: options.providerCode ?? (options.mock ? MOCK_PROVIDER_CODE : undefined),
    leadId:
      options.leadId ??
      (options.mock && spec.receiver === 'platform' ? `lead-conf-known-${randomBytes(4).toString('hex')}` : undefined),
  };
}

type Credentials = ReturnType<typeof credentialsFor>;

/** What the run started, stopped in reverse order whatever happens. */
export class Cleanups {
  private readonly steps: (() => Promise<unknown>)[] = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (const step of this.steps.reverse()) await step().catch(() => undefined);
  }
}

/** The URL under test: the one given, or the in-process reference receiver's (`mock`). */
export async function targetOf(
  options: ConformanceOptions,
  plan: Plan,
  credentials: Credentials,
  cleanups: Cleanups,
): Promise<string> {
  if (!options.mock) {
    if (!options.target) throw codedError('usage', 'missing_target', 'no target');
    return options.target;
  }
  const logDir = await mkdtemp(join(tmpdir(), 'cai-conformance-mock-'));
  cleanups.add(() => rm(logDir, { recursive: true, force: true }));
  const rateLimit = plan.planned.some((item) => item.skipReason === undefined && item.check.tags.includes('rate-limit'))
    ? MOCK_RATE_LIMIT_PER_SECOND
    : undefined;
  const mock = await startMock(options, {
    ...credentials,
    providerCode: credentials.providerCode ?? MOCK_PROVIDER_CODE,
    rateLimit,
    logFile: join(logDir, 'mock.ndjson'),
  });
  cleanups.add(() => mock.close());
  return mock.url;
}

/** The session the checks send through, stopped by `options.signal`, with the callback listener on Interface A. */
export async function openSession(
  options: ConformanceOptions,
  credentials: Credentials,
  target: string,
  concurrency: number,
  cleanups: Cleanups,
): Promise<Session> {
  const dispatchers: Dispatcher[] = [];
  cleanups.add(() => Promise.all(dispatchers.map((dispatcher) => dispatcher.close().catch(() => undefined))));
  const newDispatcher = (extra: ClientOptions = {}) => {
    // Enough connections for the concurrent checks and the 8-wide duplicate bursts to be truly simultaneous.
    const dispatcher = createDispatcher({ ...options.client, connections: Math.max(16, concurrency * 2), ...extra });
    dispatchers.push(dispatcher);
    return dispatcher;
  };
  const session = new Session({
    interface: options.interface,
    url: target,
    identity: credentials.identity,
    secrets: credentials.secrets,
    branchCode: options.branchCode,
    providerCode: credentials.providerCode,
    leadId: credentials.leadId,
    timeoutMs: options.timeoutMs ?? 10_000,
    dispatcher: newDispatcher(),
    dispatcherFor: (address) => newDispatcher({ localAddress: address }),
    sourceAddress: options.sourceAddress,
    maxRetryAfterMs: options.maxRetryAfterMs,
    ...(options.client ? { client: options.client } : {}),
  });
  // The reference receiver forgets nothing: its repeat-memory check waits less, so a run against it stays short.
  if (options.mock) session.dedupeMemoryWaitMs = MOCK_DEDUPE_MEMORY_WAIT_MS;
  session.callbackWaitMs = options.callbackWaitMs ?? DEFAULT_CALLBACK_WAIT_MS;
  const stop = () => session.stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  cleanups.add(async () => options.signal?.removeEventListener('abort', stop));
  if (interfaceSpec(options.interface).receiver === 'provider' && credentials.callbackSecrets.length > 0) {
    const listen = options.callbackListen ?? { host: '127.0.0.1', port: 0 };
    const harness = await startCallbackListener({
      host: listen.host,
      port: listen.port,
      publicUrl: options.mock ? undefined : options.callbackUrl,
      senderInProcess: options.mock === true,
      secrets: credentials.callbackSecrets,
      providerCode: credentials.providerCode ?? '',
      senderClockAheadMs: () => (session.clock.offsetSeconds ?? 0) * 1000,
      waitMs: session.callbackWaitMs,
      observeMs: options.observeMs ?? (options.mock ? MOCK_OBSERVE_MS : DEFAULT_OBSERVE_MS),
    });
    cleanups.add(() => harness.close());
    session.callback = harness;
  }
  return session;
}

interface MockSetup extends Credentials {
  providerCode: string;
  rateLimit?: number;
  logFile: string;
}

/**
 * The reference receiver of a run against the built-in one shares cai's process and loop with the client that
 * judges it. undici keeps an idle connection 2 s less than the server's keep-alive; a loop held up longer than that
 * (a busy machine, a collection) lets the server's keep-alive timer close a connection as the client's next request
 * goes out on it, and the check sees a reset no receiver caused. Only cai's own client talks to this one: it keeps
 * idle connections a minute (the mocks of `cai mock` keep Node's 5 s).
 */
const IN_PROCESS_LIMITS = { keepAliveTimeoutMs: 60_000 };

async function startMock(options: ConformanceOptions, setup: MockSetup) {
  if (interfaceSpec(options.interface).receiver === 'platform') {
    return startMockPlatform({
      limits: IN_PROCESS_LIMITS,
      providerCode: setup.identity,
      secrets: setup.secrets,
      faults: options.faults,
      logFile: setup.logFile,
      keepRecords: false,
      ...(setup.leadId ? { knownLeads: [setup.leadId] } : {}),
      ...(setup.rateLimit ? { rateLimit: setup.rateLimit } : {}),
    });
  }
  return startMockProvider({
    limits: IN_PROCESS_LIMITS,
    providerCode: setup.providerCode,
    sourceId: setup.identity,
    secrets: setup.secrets,
    callbackSecrets: setup.callbackSecrets,
    faults: options.faults,
    logFile: setup.logFile,
    keepRecords: false,
    speed: 1000,
    retry: MOCK_CALLBACK_RETRY,
  });
}
