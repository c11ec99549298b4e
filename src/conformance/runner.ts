/**
 * The runner: plan → gather → judge → waivers → report, for both roles. A receiver run gathers each check's
 * evidence by probing (the concurrent checks with a bounded pool, each with its own fresh event_ids so they cannot
 * interfere, then the exclusive ones alone); a sender run has gathered its attempts before any check is judged.
 * Either way each check's judgement is pure, and a check whose evidence was cut by an interruption is `not-judged`.
 */
import { formatCap, NETWORK_CAPS } from '../bounds.js';
import { errorMessage, optionName } from '../errors.js';
import { resultBase, namesOf, type PlannedCheck } from './catalogue.js';
import { notJudged, type Check, type Outcome, type ReceiverCheck, type SenderCheck } from './check.js';
import { ms, recordExchange, type Exchange, type SenderEvidence, type StageRecord } from './evidence.js';
import { pool } from '../pool.js';
import { ProbeScope } from './probe/scope.js';
import type { Session } from './probe/session.js';
import type { CheckResult, Reproduction, StopReport, SuiteSummary } from './types.js';
import { isExpired, waiverReport, type Waiver } from './waivers.js';
import type { InterfaceId } from '../spec/constants.js';
import { plural } from '../text.js';

export interface RunHooks {
  onStart?(check: Check): void;
  onFinish?(result: CheckResult): void;
}

/** Saves a failing check's evidence and says how to reproduce it (the CLI's: src/commands/conformance/repro.ts). */
export type Reproducer = (result: CheckResult, outcome: Outcome) => Promise<Reproduction | undefined>;

/**
 * What a run tells the writer of its reproductions: where to save, where its requests went and how they were signed
 * (a label of the secret's source, never its value), what it received. A reproduction runs the check again, so it
 * is written in the words of whatever runs cai (the CLI's command lines): the run names none.
 */
export interface ReproSetup {
  /** Absolute. */
  dir: string;
  /** The stateful phase's seed, when it ran: a check of it runs again with it. */
  seed?: number;
  /** A receiver run: where requests went and how they were signed; `mock` when the receiver was the built-in one. */
  probes?: {
    interface: InterfaceId;
    /** The URL the user gave, and where requests were posted. */
    target: string;
    postUrl: string;
    /** B: the provider code; A: the platform id. */
    identity: string;
    /** Where the signing secret came from (`--secret-env NAME`, a variable's name), undefined when generated. */
    secretLabel?: string;
    clockOffsetSeconds: number;
    mock: boolean;
  };
  /** Attempts cai received (a sender run, or an Interface A provider's callbacks): their interface and secret's source. */
  received?: {
    interface: InterfaceId;
    /** The callback secret's (a provider's callbacks), or the sender's secret's. */
    secretLabel?: string;
    callbacks: boolean;
    records(): readonly StageRecord[];
  };
}

/** Makes the reproducer of one run. Without one, a run saves no reproduction. */
export type ReproducerFactory = (setup: ReproSetup) => Reproducer;

export interface JudgeContext {
  waivers: readonly Waiver[];
  now: number;
  reproduce?: Reproducer;
}

/** Said of a failure whose answer was longer than cai reads (the actual value and the evidence show its start). */
export const TRUNCATED_NOTE = `the answer's body was longer than ${formatCap(NETWORK_CAPS.responseBodyBytes)}: cai kept its start, discarded the rest and closed the connection (docs/limits.md)`;

/** A check that never ran: its reason is what the report shows. */
export function skippedResult(check: Check, reason: string): CheckResult {
  return {
    ...resultBase(check),
    verdict: 'skipped',
    expected: '-',
    actual: reason,
    durationMs: 0,
    notes: [],
    requests: 0,
    rateLimitedRetries: 0,
  };
}

/** A check that throws (gathering or judging) is a bug in cai, not a verdict on the implementation: the result says so. */
export async function safely(judge: () => Outcome | Promise<Outcome>): Promise<Outcome> {
  try {
    return await judge();
  } catch (error) {
    return {
      verdict: 'failed',
      expected: 'the check to run',
      actual: `the check itself failed (a bug in cai): ${errorMessage(error)}`,
    };
  }
}

/** The waiver that covers a check (its id or one of its aliases), if one is in force. */
function waiverFor(check: Check, waivers: readonly Waiver[], now: number): Waiver | undefined {
  const names = namesOf(check);
  return waivers.find((entry) => names.includes(entry.id.toLowerCase()) && !isExpired(entry, now));
}

/** An outcome as the report's result: a failure is a warning on a `should`; a waived one is `waived`; its evidence, recorded. */
export async function resultOf(
  check: Check,
  outcome: Outcome,
  measured: Pick<CheckResult, 'durationMs' | 'requests' | 'rateLimitedRetries'>,
  context: JudgeContext,
  extraNotes: readonly string[] = [],
): Promise<CheckResult> {
  let verdict: CheckResult['verdict'] =
    outcome.verdict === 'failed'
      ? check.level === 'must' && outcome.level !== 'should'
        ? 'failed'
        : 'warning'
      : outcome.verdict;
  const waiver =
    verdict === 'failed' || verdict === 'warning' ? waiverFor(check, context.waivers, context.now) : undefined;
  if (waiver) verdict = 'waived';
  const exchanges = outcome.verdict === 'failed' ? (outcome.exchanges ?? []) : [];
  const notes = [...(outcome.notes ?? []), ...extraNotes];
  if (exchanges.some((exchange) => exchange.bodyTruncated)) notes.push(TRUNCATED_NOTE);
  const result: CheckResult = {
    ...resultBase(check),
    verdict,
    expected: outcome.expected,
    actual: outcome.actual,
    ...measured,
    notes,
    ...(waiver ? { waiver: { reason: waiver.reason, ...(waiver.expires ? { expires: waiver.expires } : {}) } } : {}),
    ...(exchanges.length > 0 ? { exchange: recordExchange(exchanges.at(-1) as Exchange) } : {}),
    ...(exchanges.length > 1 ? { exchanges: exchanges.map(recordExchange) } : {}),
    ...(outcome.verdict === 'failed' && outcome.replay !== undefined ? { replay: outcome.replay } : {}),
  };
  if (
    outcome.verdict === 'failed' &&
    context.reproduce &&
    (exchanges.length > 0 || (outcome.attempts?.length ?? 0) > 0)
  ) {
    try {
      const repro = await context.reproduce(result, outcome);
      if (repro) result.repro = repro;
    } catch (error) {
      // The verdict stands without its reproduction; say why it is missing.
      result.notes.push(`no reproduction: the evidence could not be saved (${errorMessage(error)})`);
    }
  }
  return result;
}

// --- One loop for both roles: plan → gather → judge, each planned check to its result --------------------------

interface PlanRun extends RunHooks, JudgeContext {
  concurrency: number;
  /**
   * Start no new check once this many must checks have failed (`--fail-fast` is 1, `--max-failures N`); the checks
   * in flight finish, the rest are reported as skipped with the reason.
   */
  maxFailures?: number;
  /** Aborted: no new check starts (Ctrl-C). */
  signal: AbortSignal;
  /** Why a check is skipped beyond the plan's reason (a need this run cannot meet), if it is. */
  unmet?(check: Check): string | undefined;
  /** Gathers a check's evidence (or finds it gathered), judges it, and makes the outcome its result (resultOf). */
  judgeOne(check: Check): Promise<CheckResult>;
}

/**
 * Each planned check to its result: the concurrent ones with a bounded pool, then the exclusive ones alone; the
 * results in the plan's order, with the waivers' notices and counts.
 */
async function runPlan(planned: readonly PlannedCheck[], run: PlanRun) {
  const results = new Map<string, CheckResult>();
  let failures = 0;
  let stopped: StopReport | undefined;
  const halted = () => run.signal.aborted || stopped !== undefined;
  const runOne = async (item: PlannedCheck) => {
    const skip =
      item.skipReason ??
      run.unmet?.(item.check) ??
      (run.signal.aborted ? 'not run: interrupted before it started' : undefined);
    if (skip === undefined) run.onStart?.(item.check);
    const result = skip !== undefined ? skippedResult(item.check, skip) : await run.judgeOne(item.check);
    results.set(item.check.id, result);
    if (result.verdict === 'failed') failures += 1;
    if (stopped === undefined && run.maxFailures !== undefined && failures >= run.maxFailures) {
      stopped = { after: result.id, failures, limit: run.maxFailures };
    }
    run.onFinish?.(result);
  };
  const concurrent = planned.filter((item) => item.skipReason !== undefined || !item.check.exclusive);
  const exclusive = planned
    .filter((item) => item.skipReason === undefined && item.check.exclusive)
    .sort((a, b) => Number(a.check.exclusive === 'last') - Number(b.check.exclusive === 'last'));
  await pool(concurrent, Math.max(1, run.concurrency), runOne, halted);
  for (const item of exclusive) {
    if (halted()) break;
    await runOne(item);
  }
  // Checks never started (Ctrl-C, or the failure limit) are reported as skipped, with the reason, in every format.
  const notRun = stopped
    ? `not run: the run stopped after ${plural(stopped.limit, 'failed must check')} (${optionName('fail-fast')} / ${optionName('max-failures')})`
    : 'not run: interrupted before it started';
  const ordered = planned.map(
    (item) => results.get(item.check.id) ?? skippedResult(item.check, item.skipReason ?? notRun),
  );
  return {
    results: ordered,
    waiverNotices: waiverReport(
      run.waivers,
      ordered,
      planned.flatMap((item) => namesOf(item.check)),
      run.now,
    ),
    summary: summarise(ordered),
    ...(stopped ? { stopped } : {}),
  };
}

/** The results of a run, its waivers' notices and counts, and (`stopped`) whether its failure limit ended it. */
export type RunOutcome = Awaited<ReturnType<typeof runPlan>>;

// --- A receiver run: gather by probing, then judge ------------------------------------------------------------

type ProbeRunOptions = Omit<PlanRun, 'signal' | 'unmet' | 'judgeOne'> & {
  /** Gathers the evidence of a sender check run on the callbacks of an Interface A run (run-receiver.ts). */
  gatherCallbacks?: (check: SenderCheck, scope: ProbeScope) => Promise<SenderEvidence | undefined>;
};

export function runProbes(session: Session, planned: readonly PlannedCheck[], options: ProbeRunOptions) {
  const judgeOne = (check: Check) => probeCheck(session, check, options);
  return runPlan(planned, {
    ...options,
    signal: session.signal,
    unmet: (check) => unmetNeed(check, session),
    judgeOne,
  });
}

/** What a check needs beyond the target, when the run does not have it: the reason it is skipped. */
function unmetNeed(check: Check, session: Session): string | undefined {
  if (check.needs === 'source-address' && !session.config.sourceAddress)
    return `needs ${optionName('source-address')} ADDRESS: a local address the platform has not registered`;
  if (check.needs === 'callback' && !session.callback)
    return `needs the callback-secret options (and ${optionName('callback-listen')} / ${optionName('callback-url')}) to receive the events`;
  return undefined;
}

async function probeCheck(session: Session, check: Check, options: ProbeRunOptions): Promise<CheckResult> {
  const scope = new ProbeScope(session, check);
  const started = performance.now();
  let outcome = await safely(() => gatherAndJudge(check, scope, options));
  // Its evidence was cut off by Ctrl-C: whatever it shows, no verdict on the target.
  if (session.signal.aborted)
    outcome = { verdict: 'not-judged', expected: '-', actual: 'interrupted while it gathered its evidence' };
  const notes =
    scope.rateLimitedRetries > 0
      ? [
          `${scope.rateLimitedRetries} answer(s) of 429 honoured (waited Retry-After and sent again); not counted as failures`,
        ]
      : [];
  const measured = { durationMs: Math.round(performance.now() - started), requests: scope.requests };
  return resultOf(check, outcome, { ...measured, rateLimitedRetries: scope.rateLimitedRetries }, options, notes);
}

async function gatherAndJudge(check: Check, scope: ProbeScope, options: ProbeRunOptions): Promise<Outcome> {
  if (check.role === 'receiver') {
    const receiver = check as ReceiverCheck;
    return receiver.judge(await receiver.gather(scope));
  }
  const evidence = await options.gatherCallbacks?.(check, scope);
  if (!evidence) return { verdict: 'not-judged', expected: '-', actual: 'no callback listener' };
  return check.judge(evidence);
}

// --- A sender run: the attempts are gathered; judge them -------------------------------------------------------

export interface SenderJudgeOptions extends JudgeContext {
  /** The stages each check needs, complete (not interrupted): else the check is not judged. */
  complete(check: SenderCheck): boolean;
  /** A scenario of the check where nothing arrived: what the trigger did, and how long cai's loop was held then. */
  silent(check: SenderCheck): { scenario: string; reason: string; heldMs?: number } | undefined;
  /** The attempts a check judged (the size of its evidence) and the time its stages took. */
  measure(check: SenderCheck): Pick<CheckResult, 'durationMs' | 'requests'>;
  /** Notes a check carries whatever its verdict (e.g. requests that came to no stage). */
  notesFor?(check: SenderCheck): string[];
}

/** Judges each planned check, one at a time, after the run: an interrupted run's complete checks are judged too. */
export function judgeSender(planned: readonly PlannedCheck[], evidence: SenderEvidence, options: SenderJudgeOptions) {
  return runPlan(planned, {
    ...options,
    concurrency: 1,
    signal: new AbortController().signal,
    judgeOne: async (check) => {
      const sender = check as SenderCheck;
      const silent = options.silent(sender);
      const outcome: Outcome = !options.complete(sender)
        ? { verdict: 'not-judged', expected: '-', actual: 'interrupted before its scenarios were done' }
        : silent
          ? silenceOutcome(silent, evidence.waitMs)
          : await safely(() => sender.judge(evidence));
      const measured = outcome.verdict === 'not-judged' ? { durationMs: 0, requests: 0 } : options.measure(sender);
      const notes = options.notesFor?.(sender) ?? [];
      return resultOf(sender, outcome, { ...measured, rateLimitedRetries: 0 }, options, notes);
    },
  });
}

/** The results alone (tests of a judgement). */
export const judgeSenderChecks = (...args: Parameters<typeof judgeSender>) =>
  judgeSender(...args).then((run) => run.results);

/**
 * Nothing arrived in a scenario: the sender sent nothing, unless cai's own loop was held up longer than it waited (a
 * machine too busy to run it; every wait moves on by the time held, up to one wait more: settle.ts). Then cai listened
 * less than its wait, and what came may never have been read: no verdict.
 */
function silenceOutcome(silent: { scenario: string; reason: string; heldMs?: number }, waitMs: number): Outcome {
  const text = `scenario ${silent.scenario}: no attempt arrived in the ${ms(waitMs)} cai waited (${silent.reason})`;
  if ((silent.heldMs ?? 0) > waitMs)
    return notJudged(
      `${text}, but cai's own loop was held up ${ms(silent.heldMs ?? 0)} meanwhile: it may not have read what came`,
    );
  return { verdict: 'failed', expected: `a delivery in scenario ${silent.scenario}`, actual: text };
}

export function summarise(results: readonly CheckResult[]): SuiteSummary {
  const count = (verdict: CheckResult['verdict']) => results.filter((result) => result.verdict === verdict).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    warnings: count('warning'),
    waived: count('waived'),
    notJudged: count('not-judged'),
    notJudgedMust: results.filter((result) => result.verdict === 'not-judged' && result.level === 'must').length,
    total: results.length,
  };
}
