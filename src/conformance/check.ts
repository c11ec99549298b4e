/**
 * The one shape of a check, for both roles: its catalogue row (id, level, sections, tags), what it needs gathered,
 * and a pure `judge(evidence)`. A receiver check gathers its own evidence by sending requests (`gather`, usually
 * through the `send`/`expect` sugar of `defineProbe`); a sender check judges the attempts cai received, grouped into
 * deliveries (./evidence.ts), whichever run gathered them: a `--role sender` run, or the events an Interface A
 * provider sends back to the callback listener. A judgement never passes without evidence: evidence that is
 * missing (nothing sent, nothing arrived, the run interrupted) is `not-judged`, with the reason.
 */
import type { Attempt, Exchange, SenderEvidence } from './evidence.js';
import type { CallbackScenarioId, ScenarioId } from './listen/scenarios.js';
import type { ProbeScope } from './probe/scope.js';
import type { CheckRow } from './types.js';

export interface CheckMeta extends CheckRow {
  /** The clauses of the spec the check enforces (src/spec/clauses.ts): what `cai conformance coverage` reads. */
  clauses: readonly string[];
  /** Run only when asked with `--include <id or tag>`. */
  optional?: boolean;
  /**
   * Runs alone, after the concurrent ones (it would disturb other checks, e.g. a burst to the rate cap); `last`: after
   * every other check too, the stateful phase included (what it judges needs the run's whole length).
   */
  exclusive?: boolean | 'last';
  /** What the check needs beyond the target; without it, the check is skipped with a reason. */
  needs?: 'callback' | 'source-address';
  /** Sender checks: the scenarios of a sender run whose deliveries the check judges. */
  scenarios?: readonly ScenarioId[];
}

/** What a judgement returns. */
export interface Outcome {
  verdict: 'passed' | 'failed' | 'not-judged';
  /** What the rule expects, e.g. `401`, `202 {"ok":true,"duplicate":true}`; `-` when not judged. */
  expected: string;
  /** What happened, e.g. `202 {"ok":true}`; the reason when not judged. */
  actual: string;
  /** The exchanges that show a receiver's failure, in order (their requests become the reproduction). */
  exchanges?: readonly Exchange[];
  /** The attempts that show a sender's failure (saved with the report's reproductions). */
  attempts?: readonly Attempt[];
  /** The exchanges shown are part of what failed (one answer of a concurrent burst): reproduced by running the check again. */
  runAgain?: boolean;
  /** A generated conversation's seed and path (`SEED:PATH`): running the check again with it replays the conversation. */
  replay?: string;
  /** A failure of a `should` term of the check's rule: a warning, whatever the check's level. */
  level?: 'should';
  notes?: readonly string[];
}

export function passed(expected: string, actual: string, notes?: readonly string[]): Outcome {
  return { verdict: 'passed', expected, actual, ...(notes?.length ? { notes } : {}) };
}

export function failed(
  expected: string,
  actual: string,
  shown: { exchanges?: readonly (Exchange | undefined)[]; attempts?: readonly Attempt[] } = {},
  notes?: readonly string[],
): Outcome {
  const exchanges = (shown.exchanges ?? []).filter((exchange): exchange is Exchange => exchange !== undefined);
  return {
    verdict: 'failed',
    expected,
    actual,
    ...(exchanges.length > 0 ? { exchanges } : {}),
    ...(shown.attempts?.length ? { attempts: shown.attempts } : {}),
    ...(notes?.length ? { notes } : {}),
  };
}

/** No verdict: the evidence the rule needs is not there, and `reason` says why (never a pass). */
export function notJudged(reason: string, notes?: readonly string[]): Outcome {
  return { verdict: 'not-judged', expected: '-', actual: reason, ...(notes?.length ? { notes } : {}) };
}

/**
 * A check of a receiver: it gathers its evidence by sending requests, then judges it. The judgement takes the
 * evidence as `Partial`: every piece may be missing (a run interrupted while it gathered), and a judge must say
 * so rather than pass.
 */
export interface ReceiverCheck<Evidence extends object = object> extends CheckMeta {
  role: 'receiver';
  gather(scope: ProbeScope): Promise<Evidence>;
  judge(evidence: Partial<Evidence>): Outcome;
}

/** A check of a sender: a judgement of what arrived, delivery by delivery. Nothing is sent. */
export interface SenderCheck extends CheckMeta {
  role: 'sender';
  scenarios: readonly ScenarioId[];
  /**
   * Set where the check judges the events an Interface A provider sends back to the callback listener of a
   * receiver run: the callback scenarios (jobs) whose events it reads.
   */
  callbackStages?: readonly CallbackScenarioId[];
  judge(evidence: SenderEvidence): Outcome;
}

export type Check = ReceiverCheck | SenderCheck;

export type ReceiverCheckSpec<Evidence extends object> = Omit<ReceiverCheck<Evidence>, 'role' | 'scenarios'>;

/** Defines a receiver check from its gathering and its judgement. */
export function defineCheck<Evidence extends object>(spec: ReceiverCheckSpec<Evidence>): ReceiverCheck<Evidence> {
  return { ...spec, role: 'receiver' } as ReceiverCheck<Evidence>;
}

export type SenderCheckSpec = Omit<SenderCheck, 'role' | 'optional' | 'exclusive' | 'needs'>;

export function defineSenderCheck(spec: SenderCheckSpec): SenderCheck {
  return { ...spec, role: 'sender' };
}
