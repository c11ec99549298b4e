/**
 * One receiver run, usable from the CLI and as a library: optionally start the reference receiver in-process
 * (`mock`), open the callback listener (Interface A), measure the target's clock, gather and judge the plan, write
 * reproductions, and return the report. Everything it starts, it stops.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Dispatcher } from 'undici';
import { createDispatcher, type ClientOptions } from '../http/client.js';
import { codedError } from '../errors.js';
import { startMockPlatform } from '../mock/platform.js';
import { startMockProvider } from '../mock/provider.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { planRun, runVersion, type Plan, type Selection } from './catalogue.js';
import type { Check, SenderCheck } from './check.js';
import { jobStage } from './checks/receiver/callbacks.js';
import { exploreSetup, isStateCheck, setExploration, type ExploreRequest, type ExploreSetup } from './explore/setup.js';
import type { CallbackScenarioId } from './listen/scenarios.js';
import { diagnoseCauses, groupCauses } from './diagnose/causes.js';
import type { FailureCause, RefusalDiagnosis } from './diagnose/types.js';
import { startCallbackListener, type JobStage } from './probe/callbacks.js';
import type { ProbeScope } from './probe/scope.js';
import { Session } from './probe/session.js';
import { diagnoseRefusal, measureClock, sendPreflight } from './preflight.js';
import { runProbes, summarise, type ReproducerFactory, type RunHooks, type RunOutcome } from './runner.js';
import {
  DEFAULT_CALLBACK_WAIT_MS,
  DEFAULT_OBSERVE_MS,
  MOCK_DEDUPE_MEMORY_WAIT_MS,
  MOCK_OBSERVE_MS,
} from './tolerances.js';
import type { PreflightReport, SuiteReport } from './types.js';
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

const MOCK_PROVIDER_CODE = 'cai-conformance';
const MOCK_SOURCE = 'cai-conformance-platform';
/**
 * With the mock, a rate cap is configured only when the rate check runs (it would slow every other check). Low
 * enough that the check's first waves pass it even on a loaded machine, where 100/s was refilled as fast as sent.
 */
const MOCK_RATE_LIMIT_PER_SECOND = 10;
/** With the mock, its callback sender's first backoff is short, so the callback retry checks wait little. */
const MOCK_CALLBACK_RETRY = { initialDelayMs: 50 };

interface Started {
  url: string;
  close(): Promise<void>;
}

/** The skip reason of the stateful phase's checks when it is turned off. */
export const EXPLORE_OFF = 'the stateful phase is turned off for this run';

export function planFor(options: Pick<ConformanceOptions, 'interface' | 'selection' | 'explore'>): Plan {
  const plan = planRun('receiver', options.interface, options.selection);
  if (options.explore !== false) return plan;
  return {
    ...plan,
    planned: plan.planned.map((item) =>
      isStateCheck(item.check.id) && item.skipReason === undefined ? { ...item, skipReason: EXPLORE_OFF } : item,
    ),
  };
}

/** Who the run signs as and with what: given, or generated for the in-process mock. */
interface Credentials {
  secrets: string[];
  callbackSecrets: string[];
  identity: string;
  providerCode?: string;
  leadId?: string;
}

function credentialsFor(options: ConformanceOptions): Credentials {
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

/** What the run started, stopped in reverse order whatever happens. */
class Cleanups {
  private readonly steps: (() => Promise<unknown>)[] = [];

  add(step: () => Promise<unknown>): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (const step of this.steps.reverse()) await step().catch(() => undefined);
  }
}

export async function runConformance(options: ConformanceOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const plan = planFor(options);
  const credentials = credentialsFor(options);
  const concurrency = options.concurrency ?? 8;
  const exploring =
    options.explore !== false &&
    plan.planned.some((item) => item.skipReason === undefined && isStateCheck(item.check.id));
  const exploration = exploring ? exploreSetup(options.interface, options.explore || {}, concurrency) : undefined;
  const cleanups = new Cleanups();
  try {
    const target = await targetOf(options, plan, credentials, cleanups);
    const session = await openSession(options, credentials, target, concurrency, cleanups);
    if (exploration) setExploration(session, exploration);
    await measureClock(session);
    const preflight = await sendPreflight(session);
    const diagnosis = await diagnoseRefusal(session, preflight, credentials, plan);
    // Stopped by its diagnosis: no check run (none listed), the diagnosis in their place.
    if (diagnosis)
      return reportOf(options, {
        target,
        startedAt,
        session,
        outcome: NOTHING_RUN,
        reproDir: '',
        preflight: preflight?.report,
        causes: [],
        diagnosis,
        exploration,
      });
    // Short, so that `sh DIR/B-SCHEMA-014.sh` fits on an 80-column line: cai-conformance-20261123T180800-1a2b3c4d.
    const reproDir = resolve(
      options.reproDir ??
        join(tmpdir(), `cai-conformance-${startedAt.toISOString().replace(/[-:]/g, '').slice(0, 15)}-${session.runId}`),
    );
    const stages: JobStage[] = [];
    const outcome = await runProbes(
      session,
      plan.planned.map((item) => ({ ...item, check: stoppedByCtrlC(item.check) })),
      {
        concurrency,
        waivers: options.waivers ?? [],
        now: Date.now(),
        onStart: options.onStart,
        onFinish: options.onFinish,
        ...(options.maxFailures !== undefined ? { maxFailures: options.maxFailures } : {}),
        gatherCallbacks: (check, scope) =>
          untilStopped(gatherCallbacks(check, scope, stages), scope.session.signal, undefined),
        ...(options.reproducer
          ? {
              reproduce: options.reproducer({
                dir: reproDir,
                ...(exploration ? { seed: exploration.seed } : {}),
                probes: {
                  interface: options.interface,
                  target,
                  postUrl: session.postUrl,
                  identity: credentials.identity,
                  // The secret the mock generated is passed to a run again as CAI_SECRET.
                  ...(options.mock && !options.secrets?.length ? {} : { secretLabel: options.secretLabel }),
                  clockOffsetSeconds: session.clock.offsetSeconds ?? 0,
                  mock: options.mock === true,
                },
                received: {
                  interface: 'B',
                  ...(options.callbackSecretLabel !== undefined ? { secretLabel: options.callbackSecretLabel } : {}),
                  callbacks: true,
                  records: () => stages.map((stage) => stage.record),
                },
              }),
            }
          : {}),
      },
    );
    const causes = groupCauses(outcome.results);
    await diagnoseCauses(session, causes, outcome.results, {
      interface: options.interface,
      secrets: credentials.secrets,
      ...(credentials.callbackSecrets[0] !== undefined ? { otherSecret: credentials.callbackSecrets[0] } : {}),
    });
    return reportOf(options, {
      target,
      startedAt,
      session,
      outcome,
      reproDir,
      preflight: preflight?.report,
      causes,
      exploration,
    });
  } finally {
    await cleanups.run();
  }
}

/**
 * After Ctrl-C a check still gathering is not judged (runner.ts): it is not waited for either, whatever it waits on
 * (a pause between its requests, a job's events). Its requests are aborted with the session; the run reports at once
 * what it has, within the 5 s a command has to stop (src/main.ts).
 */
function stoppedByCtrlC(check: Check): Check {
  if (check.role !== 'receiver') return check;
  return { ...check, gather: (scope: ProbeScope) => untilStopped(check.gather(scope), scope.session.signal, {}) };
}

/** `work`'s result, or `stopped` as soon as `signal` aborts (the work goes on, unawaited, until it notices). */
function untilStopped<T, S>(work: Promise<T>, signal: AbortSignal, stopped: S): Promise<T | S> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve(stopped);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(stopped);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(stopped);
        else reject(error);
      },
    );
  });
}

/** The callback scenarios as the jobs that play them are named (their listener paths, their stages). */
const JOB_NAMES: Record<CallbackScenarioId, string> = {
  callbacks: 'callbacks',
  'callback-returning': 'returning',
  'callback-503': 'answered-503',
  'callback-5xx': 'answered-5xx',
  'callback-429': 'answered-429',
  'callback-429-date': 'answered-429-date',
  'callback-400': 'answered-400',
};

/** The evidence of a sender check run on the callbacks: the jobs it reads, each sent once per run. */
async function gatherCallbacks(check: SenderCheck, scope: ProbeScope, gathered: JobStage[]) {
  const harness = scope.session.callback;
  if (!harness) return undefined;
  const stages = (
    await Promise.all(
      (check.callbackStages ?? []).map((id) =>
        jobStage(scope, JOB_NAMES[id], {
          scenario: id,
          ...(id === 'callback-returning' ? { lead: 'returning' as const } : {}),
        }),
      ),
    )
  ).filter((stage): stage is JobStage => stage !== undefined);
  for (const stage of stages) if (!gathered.includes(stage)) gathered.push(stage);
  return harness.evidence(stages);
}

/** The URL under test: the one given, or the in-process reference receiver's (`mock`). */
async function targetOf(
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
async function openSession(
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
      secrets: credentials.callbackSecrets,
      providerCode: credentials.providerCode ?? '',
      waitMs: session.callbackWaitMs,
      observeMs: options.observeMs ?? (options.mock ? MOCK_OBSERVE_MS : DEFAULT_OBSERVE_MS),
    });
    cleanups.add(() => harness.close());
    session.callback = harness;
  }
  return session;
}

interface Finished {
  target: string;
  startedAt: Date;
  session: Session;
  outcome: RunOutcome;
  reproDir: string;
  preflight: PreflightReport | undefined;
  causes: FailureCause[];
  /** A refusal of the first valid request, diagnosed: a verdict on the receiver (not `ok`), with no check run. */
  diagnosis?: RefusalDiagnosis;
  /** The stateful phase's setup, when it is planned: its seed is on every report. */
  exploration: ExploreSetup | undefined;
}

const NOTHING_RUN: RunOutcome = { results: [], waiverNotices: [], summary: summarise([]) };

function reportOf(options: ConformanceOptions, run: Finished): SuiteReport {
  const { session, outcome } = run;
  const anyRepro = outcome.results.some((result) => result.repro);
  return {
    ok: outcome.summary.failed === 0 && !session.signal.aborted && !run.diagnosis,
    version: runVersion(),
    target: run.target,
    interface: options.interface,
    mock: options.mock === true,
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    probeStatus: session.probeStatus,
    clock: clockOf(session),
    summary: outcome.summary,
    checks: outcome.results,
    waivers: outcome.waiverNotices,
    ...(anyRepro ? { reproDir: run.reproDir } : {}),
    ...(session.signal.aborted ? { interrupted: true } : {}),
    ...(outcome.stopped ? { stopped: outcome.stopped } : {}),
    ...(run.preflight ? { preflight: run.preflight } : {}),
    ...(run.diagnosis ? { diagnosis: run.diagnosis } : {}),
    causes: run.causes,
    ...(run.exploration ? { seed: run.exploration.seed } : {}),
  };
}

function clockOf(session: Session): SuiteReport['clock'] {
  return {
    offsetSeconds: session.clock.offsetSeconds,
    dateHeader: session.clock.dateHeader,
    ...(session.clock.dateHeader === null
      ? { note: 'the target sent no Date header; window checks assume its clock matches ours' }
      : {}),
  };
}

interface MockSetup extends Credentials {
  providerCode: string;
  rateLimit?: number;
  logFile: string;
}

async function startMock(options: ConformanceOptions, setup: MockSetup): Promise<Started> {
  if (interfaceSpec(options.interface).receiver === 'platform') {
    return startMockPlatform({
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
