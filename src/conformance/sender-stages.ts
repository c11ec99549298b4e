/**
 * The stages of a sender run (listen/stage.ts), opened: one listener and its recorder, each stage on a path of its
 * own, played by starting the trigger (or telling a person) and waiting until it is over, and summarised for the
 * report. What the scenarios (run-sender.ts) and the stateful phase (explore/sender.ts) share besides: the evidence
 * a set of stages makes, and which of its terms a stage's timing decides.
 */
import { redactSecrets } from '../secrets/resolve.js';
import { SENDER_RUN_CAPS } from '../bounds.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { deliveriesOf } from '../spec/model/sender.js';
import { attemptEventId, type SenderEvidence, type StageRecord } from './evidence.js';
import { startListener } from '../http/listener.js';
import { Recorder, type StageOpening } from './listen/recorder.js';
import { describeScript, describeScripted, type Scenario, type SenderScenarioId } from './listen/scenarios.js';
import { playStage, type StagePlay, type Stages } from './listen/stage.js';
import { startTrigger } from './listen/trigger.js';
import type { SenderConformanceOptions } from './options.js';
import { TRIGGER_EXIT_GRACE_MS } from './tolerances.js';
import type { ScenarioSummary } from './types.js';

export type PlayOptions = SenderConformanceOptions & { waitMs: number; observeMs: number; signal: AbortSignal };

/** What the sender checks judge: the run's terms, the stages played, how many documents one run of the sender sends. */
export function senderEvidence(
  run: Pick<SenderEvidence, 'interface' | 'identity' | 'secrets' | 'waitMs' | 'observeMs'>,
  records: StageRecord[],
  documentsPerRun?: number,
): SenderEvidence {
  return {
    interface: run.interface,
    identity: run.identity,
    secrets: run.secrets,
    waitMs: run.waitMs,
    observeMs: run.observeMs,
    records,
    ...(documentsPerRun !== undefined ? { documentsPerRun } : {}),
  };
}

/** Where a stage's sender is sent, and where its attempts must arrive: each stage has a path of its own. */
function openingOf(entry: Scenario, id: string, iface: InterfaceId, base: string, shared: boolean): StageOpening {
  const prefix = shared ? '' : `/${id}`;
  const spec = interfaceSpec(iface);
  // B's events URL is any URL: the scenario's path ends in /events, as a platform's might. A's is §4.1's appended to
  // the provider endpoint, which has a path of its own (/cai), as a provider's often does: a sender that resolves
  // `contact-jobs` against it as a relative URL loses that segment, and its jobs still come to the stage's prefix.
  const targetPath = spec.path === '' ? `${prefix}/events` : shared ? prefix : `${prefix}/cai`;
  return {
    scenario: entry,
    id,
    prefix,
    targetUrl: `${base}${targetPath}`,
    expectedPath: spec.path === '' ? targetPath : `${targetPath}${spec.path}`,
  };
}

export async function openStages(options: PlayOptions): Promise<Stages> {
  const byHand = options.trigger === undefined;
  const recorder = new Recorder({ interface: options.interface, shared: byHand });
  const listen = options.listen ?? { host: '127.0.0.1', port: 0 };
  const listener = await startListener({
    host: listen.host,
    port: listen.port,
    tls: options.tls,
    option: 'listen',
    handle: (arrival) => recorder.handle(arrival),
  });
  const publicBase = (options.publicUrl ?? listener.url).replace(/\/+$/, '');
  const redact = (text: string) => redactSecrets(text, options.secrets);
  const played: StageRecord[] = [];
  return {
    publicBase,
    played,
    play: async (entry, stage) => {
      const record = await playStageOf(entry, stage, { ...options, recorder, redact, publicBase });
      played.push(record);
      return record;
    },
    strays: recorder.strays,
    strayCount: () => recorder.strayCount,
    refused: () => listener.refused(),
    close: () => listener.close(),
  };
}

interface StageContext extends PlayOptions {
  recorder: Recorder;
  redact: (text: string) => string;
  publicBase: string;
}

/**
 * One stage: open it, start the trigger (or tell the person), and wait until it is over (listen/settle.ts): every
 * delivery settled, nothing more for --observe, the trigger exited; at the latest SENDER_RUN_CAPS.stageWaits ×
 * --wait after it started. A trigger that fails before any attempt ends the stage at once.
 */
async function playStageOf(entry: Scenario, stage: StagePlay, context: StageContext): Promise<StageRecord> {
  const { recorder, signal } = context;
  const startedMono = performance.now();
  const record = recorder.open(
    openingOf(entry, stage.id ?? entry.id, context.interface, context.publicBase, context.trigger === undefined),
    startedMono,
  );
  if (stage.place) {
    context.onScenarioStart?.({
      id: entry.id as SenderScenarioId,
      ...stage.place,
      targetUrl: record.targetUrl,
      script: describeScript(entry, context.interface),
      purpose: entry.purpose,
      byHand: context.trigger === undefined,
      waitMs: context.waitMs,
    });
  }
  const trigger =
    context.trigger === undefined
      ? undefined
      : startTrigger({
          command: context.trigger,
          env: { ...(context.env ?? process.env), CAI_TARGET_URL: record.targetUrl, CAI_SCENARIO: entry.id },
          cwd: context.cwd ?? process.cwd(),
          redact: context.redact,
        });
  let exited = trigger === undefined;
  let failedEarly = false;
  void trigger?.exited.then((outcome) => {
    exited = true;
    failedEarly = outcome.exitCode !== 0 && record.attempts.length === 0;
    recorder.notify();
  });
  const deadlineMono = Math.min(
    stage.deadlineMono,
    startedMono + SENDER_RUN_CAPS.stageWaits * context.waitMs + context.observeMs,
  );
  await playStage(recorder, record, {
    waitMs: context.waitMs,
    observeMs: context.observeMs,
    signal,
    senderDone: () => exited,
    failedEarly: () => failedEarly,
    deadlineMono,
  });
  // Interrupted: no grace, the trigger is stopped at once.
  if (trigger) record.trigger = await trigger.finish(signal.aborted ? 0 : TRIGGER_EXIT_GRACE_MS, TRIGGER_EXIT_GRACE_MS);
  if (stage.place) context.onScenarioEnd?.(summariseScenario(record, context.interface));
  return record;
}

/** A scenario for the report; `documentsPerRun`, once the run is over, tells documents alike from renames. */
export function summariseScenario(record: StageRecord, iface: InterfaceId, documentsPerRun?: number): ScenarioSummary {
  const first = record.attempts[0];
  const end = record.endedMono ?? performance.now();
  const deliveries = deliveriesOf(record.attempts, documentsPerRun);
  const place = new Map(
    deliveries.flatMap((delivery, index) => delivery.attempts.map((attempt) => [attempt, index + 1] as const)),
  );
  return {
    // A scenario played again keeps its id (its stage's URL names the play); `plays` says how many times.
    id: record.replays ? record.scenario.id : record.id,
    ...(record.replays ? { plays: record.replays + 1 } : {}),
    targetUrl: record.targetUrl,
    script: describeScript(record.scenario, iface),
    deliveries: deliveries.length,
    attempts: record.attempts.map((attempt) => {
      const eventId = attemptEventId(attempt);
      return {
        at: Math.round(attempt.arrivedMono - record.startedMono),
        delivery: place.get(attempt) ?? 0,
        ...(eventId !== undefined ? { eventId } : {}),
        // The Retry-After as sent: an HTTP-date is a moment, not the script's "2 s ahead".
        answer:
          attempt.retryAfter && attempt.answer.kind === 'error'
            ? `${attempt.answer.status} (Retry-After: ${attempt.retryAfter.header})`
            : describeScripted(attempt.answer, iface),
        ...(attempt.late ? { late: true } : {}),
      };
    }),
    ...(first ? { firstAttemptMs: Math.round(first.arrivedMono - record.startedMono) } : {}),
    durationMs: Math.round(end - record.startedMono),
    ...(record.maxLagMs !== undefined ? { loopLagMs: record.maxLagMs } : {}),
    ...(record.trigger
      ? {
          trigger: {
            ...(record.trigger.exitCode !== undefined ? { exitCode: record.trigger.exitCode } : {}),
            ...(record.trigger.signal ? { signal: record.trigger.signal } : {}),
            ...(record.trigger.stoppedByCai ? { stoppedByCai: true } : {}),
          },
        }
      : {}),
  };
}
