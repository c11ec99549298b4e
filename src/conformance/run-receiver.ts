/**
 * One receiver run, usable from the CLI and as a library: optionally start the reference receiver in-process
 * (`mock`), open the callback listener (Interface A), measure the target's clock, gather and judge the plan, write
 * reproductions, and return the report. Everything it starts (receiver-setup.ts), it stops.
 */
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { planRun, runVersion, type Plan } from './catalogue.js';
import type { Check, SenderCheck } from './check.js';
import { scenarioJob } from './checks/receiver/callback-jobs.js';
import { exploreSetup, isStateCheck, judgedRelations, EXPLORATIONS, type ExploreSetup } from './explore/setup.js';
import { diagnoseCauses, groupCauses } from './diagnose/causes.js';
import type { FailureCause, RefusalDiagnosis } from './diagnose/types.js';
import type { JobStage } from './probe/callbacks.js';
import type { ProbeScope } from './probe/scope.js';
import type { Session } from './probe/session.js';
import { measureClock, sendPreflight } from './preflight.js';
import { diagnoseRefusal } from './diagnose/preflight.js';
import { Cleanups, credentialsFor, openSession, targetOf } from './receiver-setup.js';
import { runProbes, summarise, type RunOutcome } from './runner.js';
import type { PreflightReport, SuiteReport } from './types.js';

export type { ConformanceOptions } from './options.js';
import type { ConformanceOptions } from './options.js';

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

export async function runConformance(options: ConformanceOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const plan = planFor(options);
  const credentials = credentialsFor(options);
  const concurrency = options.concurrency ?? 8;
  // None judged with --no-generate: planFor skips them.
  const judged = judgedRelations(plan);
  const exploration =
    judged.size > 0 ? exploreSetup(options.interface, options.explore || {}, concurrency, judged) : undefined;
  const cleanups = new Cleanups();
  try {
    const target = await targetOf(options, plan, credentials, cleanups);
    const session = await openSession(options, credentials, target, concurrency, cleanups);
    if (exploration) EXPLORATIONS.set(session, exploration);
    await measureClock(session);
    const preflight = await sendPreflight(session);
    const diagnosis = await diagnoseRefusal(session, preflight, credentials, plan);
    const finished = { target, startedAt, session, preflight: preflight?.report, exploration };
    // Stopped by its diagnosis: no check run (none listed), the diagnosis in their place.
    if (diagnosis) return reportOf(options, { ...finished, outcome: NOTHING_RUN, reproDir: '', causes: [], diagnosis });
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
    return reportOf(options, { ...finished, outcome, reproDir, causes });
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

/** The evidence of a sender check run on the callbacks: the jobs it reads, each sent once per run. */
async function gatherCallbacks(check: SenderCheck, scope: ProbeScope, gathered: JobStage[]) {
  const harness = scope.session.callback;
  if (!harness) return undefined;
  const stages = (await Promise.all((check.callbackStages ?? []).map((id) => scenarioJob(scope, id)))).filter(
    (stage): stage is JobStage => stage !== undefined,
  );
  for (const stage of stages) if (!gathered.includes(stage)) gathered.push(stage);
  return harness.evidence(stages);
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
      : session.clock.note !== undefined
        ? { note: session.clock.note }
        : {}),
  };
}
