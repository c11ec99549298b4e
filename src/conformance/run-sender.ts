/**
 * One sender run (`cai conformance run --role sender`), usable from the CLI and as a library: cai listens as the
 * receiver of the interface, plays the scenarios the selected checks need (each: start the trigger, or ask a person
 * to send; answer every document's attempts as scripted; wait until every delivery has settled), judges what
 * arrived, delivery by delivery, saves what the sender sent for the failures, and returns the same report as a
 * receiver run. The trigger may make the sender send one document or many, in any order, at once or not, on one
 * connection or several. Everything it starts, it stops.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deliveryError, optionName } from '../errors.js';
import { planRun, runVersion, scenariosToRun, type Plan } from './catalogue.js';
import type { SenderCheck } from './check.js';
import { timestampOf, type SenderEvidence, type StageRecord, type UnrepeatedBreach } from './evidence.js';
import { scenario, type Scenario } from './listen/scenarios.js';
import { pool } from '../pool.js';
import { judgeSender } from './runner.js';
import {
  documentsPerRunOf,
  triggerText,
  unconfirmedBreaches,
  unrepeatedBreaches,
  worthPlayingAgain,
} from './checks/sender/judging.js';
import { DEFAULT_MANUAL_WAIT_MS, DEFAULT_OBSERVE_MS, DEFAULT_WAIT_MS } from './tolerances.js';
import { SENDER_RUN_CAPS } from '../bounds.js';
import { WELL_FORMED_TIMESTAMP } from '../spec/model/sender-timing.js';
import { isStateCheck, judgedRelations } from './explore/setup.js';
import type { SenderExploration } from './evidence.js';
import type { Stages } from './listen/stage.js';
import { openStages, senderEvidence, summariseScenario, type PlayOptions } from './sender-stages.js';
import type { SuiteReport } from './types.js';

import type { SenderConformanceOptions } from './options.js';
import { plural } from '../text.js';

export type { ScenarioStart, SenderConformanceOptions, SenderRunHooks } from './options.js';

export async function runSenderConformance(options: SenderConformanceOptions): Promise<SuiteReport> {
  const startedAt = new Date();
  const plan = planRun('sender', options.interface, options.selection);
  const byHand = options.trigger === undefined;
  const waitMs = options.waitMs ?? (byHand ? DEFAULT_MANUAL_WAIT_MS : DEFAULT_WAIT_MS);
  const observeMs = options.observeMs ?? DEFAULT_OBSERVE_MS;
  const signal = options.signal ?? new AbortController().signal;
  // Every scenario under way waits on the signal (its stage, its trigger): with --concurrency over 8, more than
  // Node's warning threshold of 10.
  setMaxListeners(0, signal);
  const context = { ...options, waitMs, observeMs, signal };
  const stages = await openStages(context);
  let played: PlayedRun;
  try {
    options.onListening?.(stages.publicBase);
    played = await playRun(stages, plan, context);
  } finally {
    await stages.close();
  }
  const { records } = played;
  const generated = played.exploration?.records ?? [];
  if (!signal.aborted && records.length > 0 && records.every((record) => record.attempts.length === 0))
    throw silentSender(stages, records, byHand);
  const reproDir = resolve(
    options.cwd ?? process.cwd(),
    options.reproDir ??
      join(
        tmpdir(),
        `cai-conformance-sender-${startedAt.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`,
      ),
  );
  const { results, summary, waiverNotices } = await judgeRun(plan, stages, played, context, reproDir);
  const perRun = documentsPerRunOf(records);
  return {
    ok: summary.failed === 0 && !signal.aborted,
    version: runVersion(),
    target: stages.publicBase,
    interface: options.interface,
    mock: false,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    clock: senderClock(records),
    summary,
    checks: results,
    waivers: waiverNotices,
    ...(results.some((result) => result.repro) ? { reproDir } : {}),
    ...(signal.aborted ? { interrupted: true } : {}),
    role: 'sender',
    scenarios: [...records, ...generated].map((record) => summariseScenario(record, options.interface, perRun)),
    ...(options.explore && judgedRelations(plan).size > 0 ? { seed: options.explore.seed } : {}),
  };
}

/** What a run played: the scenarios' stages, in the catalogue's order, and the stateful phase's, when it ran. */
interface PlayedRun {
  records: StageRecord[];
  exploration: SenderExploration | undefined;
}

/**
 * The timed scenario alone first (with a person sending, every scenario one at a time); then the stateful phase's
 * timed conversation, alone too; then the other scenarios and the phase's conversations at once; last, each scenario
 * whose timing cai's own lag left undecided, again.
 */
async function playRun(stages: Stages, plan: Plan, context: PlayOptions): Promise<PlayedRun> {
  const byHand = context.trigger === undefined;
  // Whatever the sender does, the scenarios end SENDER_RUN_CAPS.runWaits × --wait after the start (src/bounds.ts).
  const deadlineMono = performance.now() + SENDER_RUN_CAPS.runWaits * context.waitMs;
  const toRun = scenariosToRun(plan).map(scenario);
  const play = (entries: readonly Scenario[]) => playNamed(stages, toRun, entries, context, deadlineMono);
  const records = await play(toRun.filter((entry) => entry.alone || byHand));
  let alonePlayed = () => {};
  const alone = new Promise<void>((resolve) => (alonePlayed = resolve));
  const exploring = exploreRun(stages, plan, context, alonePlayed).finally(alonePlayed);
  await alone;
  const [others, exploration] = await Promise.all([
    byHand ? [] : play(toRun.filter((entry) => !entry.alone)),
    exploring,
  ]);
  records.push(...others);
  records.sort((a, b) => toRun.indexOf(a.scenario) - toRun.indexOf(b.scenario));
  if (!byHand) await replayUndecided(stages, records, context, deadlineMono, reviewOf(context, [...records]));
  return { records, exploration };
}

/** The stateful phase (explore/sender.ts), when its checks are planned and a trigger makes the sender send. */
async function exploreRun(
  stages: Stages,
  plan: Plan,
  context: PlayOptions,
  alonePlayed: () => void,
): Promise<SenderExploration | undefined> {
  const { explore, signal } = context;
  const judged = judgedRelations(plan);
  if (!explore || judged.size === 0 || signal.aborted || context.trigger === undefined) return undefined;
  const { exploreSender } = await import('./explore/sender.js');
  return exploreSender({
    stages,
    setup: explore,
    interface: context.interface,
    identity: context.identity,
    secrets: context.secrets,
    waitMs: context.waitMs,
    observeMs: context.observeMs,
    concurrency: context.concurrency ?? 8,
    judged,
    signal,
    alonePlayed,
  });
}

/**
 * Judges the planned checks: a scenario check on the stages of its scenarios, a state check on the stateful phase's
 * conversations; one interrupted before its evidence was whole is not judged.
 */
function judgeRun(plan: Plan, stages: Stages, played: PlayedRun, context: PlayOptions, reproDir: string) {
  const { records, exploration } = played;
  const { signal } = context;
  const generated = exploration?.records ?? [];
  const evidence: SenderEvidence = {
    ...senderEvidence(context, records, documentsPerRunOf(stages.played)),
    ...(exploration ? { exploration } : {}),
  };
  const reproduce = context.reproducer?.({
    dir: reproDir,
    ...(exploration ? { seed: exploration.seed } : {}),
    received: {
      interface: context.interface,
      ...(context.secretLabel !== undefined ? { secretLabel: context.secretLabel } : {}),
      callbacks: false,
      records: () => [...records, ...generated],
    },
  });
  const recordsOf = (check: SenderCheck) =>
    isStateCheck(check.id)
      ? generated
      : records.filter((record) => (check.scenarios as readonly string[]).includes(record.scenario.id));
  return judgeSender(plan.planned, evidence, {
    waivers: context.waivers ?? [],
    now: Date.now(),
    ...(reproduce ? { reproduce } : {}),
    complete: (check) =>
      !signal.aborted ||
      (isStateCheck(check.id)
        ? exploration !== undefined
        : check.scenarios.every((id) => records.some((record) => record.scenario.id === id && !record.interrupted))),
    silent: (check) => {
      const record = recordsOf(check).find((entry) => !entry.interrupted && entry.attempts.length === 0);
      return record
        ? {
            scenario: record.id,
            reason: triggerText(record),
            ...(record.heldMs !== undefined ? { heldMs: record.heldMs } : {}),
          }
        : undefined;
    },
    measure: (check) => {
      const judged = recordsOf(check);
      return {
        // The time of the scenarios it judges: what running the check costs.
        durationMs: Math.round(
          Math.max(0, ...judged.map((record) => (record.endedMono ?? record.startedMono) - record.startedMono)),
        ),
        requests: judged.reduce((sum, record) => sum + record.attempts.length, 0),
      };
    },
    // Requests to no scenario's URL are no attempts; the address check says they came.
    notesFor: (check) =>
      check.tags.includes('http')
        ? [
            ...(stages.strayCount() > 0 ? [straysNote(stages)] : []),
            ...(stages.refused() > 0 ? [refusedNote(stages.refused())] : []),
          ]
        : [],
  });
}

/**
 * Some of the scenarios: with a trigger, at once (the slow ones started first); by hand, one at a time. Each ends by
 * its own bound and the run's (SENDER_RUN_CAPS).
 */
async function playNamed(
  stages: Stages,
  all: readonly Scenario[],
  toRun: readonly Scenario[],
  options: PlayOptions,
  deadlineMono: number,
): Promise<StageRecord[]> {
  const played = new Map<Scenario, StageRecord>();
  const next = async (entry: Scenario) => {
    if (performance.now() >= deadlineMono) return;
    played.set(
      entry,
      await stages.play(entry, { place: { index: all.indexOf(entry) + 1, total: all.length }, deadlineMono }),
    );
  };
  // Not every scenario at once: a sender of 20 documents at once in each of 12 scenarios comes near the listener's
  // 256 connections (LISTENER_CAPS), and a loaded machine then lost answers (seen in the zoo).
  const byHand = options.trigger === undefined;
  const ordered = byHand ? toRun : [...toRun.filter((entry) => entry.slow), ...toRun.filter((entry) => !entry.slow)];
  await pool(ordered, byHand ? 1 : Math.max(1, options.concurrency ?? 8), next, () => options.signal.aborted);
  return toRun.flatMap((entry) => played.get(entry) ?? []);
}

/** How a play is reviewed: whether to play the scenario again, and what of the first play a replay did not repeat. */
export interface PlayReview {
  /** `plays`: the scenario's plays so far, the first first; the last is the one in question. */
  worthAgain(plays: readonly StageRecord[]): boolean;
  unrepeated(first: StageRecord, replay: StageRecord): readonly UnrepeatedBreach[];
  /** The terms the last of `plays` broke that an earlier one did not: left open. */
  unconfirmed(plays: readonly StageRecord[]): readonly string[];
}

/** The model's review of one stage's play (checks/sender/judging.ts), among the first plays of the run. */
function reviewOf(options: PlayOptions, firstPlays: StageRecord[]): PlayReview {
  const run = senderEvidence(options, firstPlays);
  return {
    worthAgain: (plays) =>
      worthPlayingAgain(
        plays.map((play) => senderEvidence(options, [play])),
        run,
      ),
    unrepeated: (first, replay) =>
      unrepeatedBreaches(senderEvidence(options, [first]), senderEvidence(options, [replay])),
    unconfirmed: (plays) => unconfirmedBreaches(plays.map((play) => senderEvidence(options, [play]))),
  };
}

/**
 * A scenario whose timing cai's own lag left undecided (model: each arrival is known between two bounds) is played
 * again, alone, at most SENDER_RUN_CAPS.timingReplays times; so is one whose plays all broke a term a sender held up
 * by the busy machine (or a jittered backoff's draw) fakes, where the run's other plays do not show the breach
 * consistent, until as many plays as judging.ts asks broke it. The last play is the evidence, with the first play's
 * breaches it did not repeat as notes.
 */
export async function replayUndecided(
  stages: Pick<Stages, 'play'>,
  records: StageRecord[],
  options: Pick<PlayOptions, 'signal' | 'waitMs'>,
  deadlineMono: number,
  review: PlayReview,
): Promise<void> {
  for (const [index, record] of records.entries()) {
    const plays = [record];
    // A replay cut by the run's end is no better evidence than the play it replaces: one starts only with a whole
    // wait left, and one to which nothing came (a sender still held up by the busy machine) leaves the play before it.
    for (
      let again = 1;
      again <= SENDER_RUN_CAPS.timingReplays &&
      review.worthAgain(plays) &&
      !options.signal.aborted &&
      performance.now() + options.waitMs <= deadlineMono;
      again += 1
    ) {
      const replay = await stages.play(record.scenario, { id: `${record.scenario.id}-again-${again}`, deadlineMono });
      if (replay.attempts.length === 0) break;
      replay.replays = again;
      plays.push(replay);
    }
    const current = plays.at(-1) as StageRecord;
    if (current !== record) {
      const unrepeated = review.unrepeated(record, current);
      if (unrepeated.length > 0) current.unrepeated = unrepeated;
      const unconfirmed = review.unconfirmed(plays);
      if (unconfirmed.length > 0) current.unconfirmed = unconfirmed;
    }
    records[index] = current;
  }
}

/**
 * No attempt in any scenario: nothing to judge (exit 3), with what the trigger did and where requests went. Requests
 * cai's listener refused (docs/limits.md) did come: the sender sent something, which cai did not record, and says so.
 */
function silentSender(stages: Stages, records: readonly StageRecord[], byHand: boolean) {
  const [first] = records as [StageRecord];
  const count = records.length;
  const elsewhere = stages.strayCount() > 0 ? `; ${straysNote(stages)}` : '';
  const refused = stages.refused();
  if (refused > 0)
    return deliveryError(
      'no_attempts',
      `the sender sent nothing cai could record: no attempt arrived in ${plural(count, 'scenario')} (${triggerText(first)}); ${refusedNote(refused)}${elsewhere}`,
      "check the sender's requests against the bounds of cai's listener (docs/limits.md): each refusal's answer says which it went over",
    );
  return deliveryError(
    'no_attempts',
    `the sender sent nothing: no attempt arrived in ${plural(count, 'scenario')} (${triggerText(first)})${elsewhere}`,
    byHand
      ? `send to ${first.targetUrl} while cai waits, or pass ${optionName('trigger')} CMD`
      : 'run the trigger by hand with CAI_TARGET_URL set, and check that it makes the sender post there',
  );
}

function straysNote(stages: Pick<Stages, 'strays' | 'strayCount'>): string {
  const shown = [...new Set(stages.strays)].slice(0, 3).join(', ');
  const count = stages.strayCount();
  return `${plural(count, 'request')} came to no scenario's URL and ${count === 1 ? 'was' : 'were'} answered 404 (${shown})`;
}

function refusedNote(count: number): string {
  return `${count} request${count === 1 ? ' was' : 's were'} refused (400, 408, 431 or 503) and not recorded: a request the parser could not read (headers too large, framing unreadable), a body too slow, too many bodies at once, or more than cai records in one run (docs/limits.md)`;
}

/** The sender's clock as its timestamps show it: the median of (timestamp − arrival) over well-formed ones. */
function senderClock(records: readonly StageRecord[]): SuiteReport['clock'] {
  const offsets = records
    .flatMap((record) => record.attempts)
    .filter((attempt) => WELL_FORMED_TIMESTAMP.test(timestampOf(attempt) ?? ''))
    .map((attempt) => Number(timestampOf(attempt)) - Math.floor(attempt.arrivedAt / 1000))
    .sort((a, b) => a - b);
  const note = "the sender's clock as its X-CAI-Timestamp values show it, against cai's";
  return { offsetSeconds: offsets[Math.floor(offsets.length / 2)] ?? null, dateHeader: null, note };
}
