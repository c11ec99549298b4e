/**
 * The shapes most sender checks share: a rule judged on every attempt of every scenario, and a judgement of one
 * scenario's attempts that first makes sure there are some.
 */
import { failed, passed, skipped, type SenderOutcome } from './define.js';
import { allAttempts, label, ms, recordOf, type Attempt, type ScenarioRecord, type SenderEvidence } from './evidence.js';
import type { ScenarioId } from './scenarios.js';

/** A problem with one attempt, `undefined` when it is right, `null` when this rule cannot judge it (another does). */
export type AttemptJudgement = string | undefined | null;

const SHOWN_PROBLEMS = 3;

/**
 * Judges every attempt (late ones too: a stale signature on a late retry is still one). Fails with the attempts
 * that break the rule; skipped when the rule could judge none of them.
 */
export function everyAttempt(evidence: SenderEvidence, expected: string, judge: (attempt: Attempt, record: ScenarioRecord) => AttemptJudgement, unjudged: string): SenderOutcome {
  const attempts = allAttempts(evidence);
  if (attempts.length === 0) return failed(expected, `no attempt arrived in any scenario (${evidence.records.map((record) => `${record.scenario.id}: ${triggerText(record)}`).join('; ')})`);
  const problems: { attempt: Attempt; problem: string }[] = [];
  let judged = 0;
  for (const record of evidence.records) {
    for (const attempt of record.attempts) {
      const problem = judge(attempt, record);
      if (problem === null) continue;
      judged += 1;
      if (problem !== undefined) problems.push({ attempt, problem });
    }
  }
  if (judged === 0) return skipped(unjudged);
  const scenarios = new Set(attempts.map((attempt) => attempt.scenario)).size;
  if (problems.length === 0) return passed(expected, `${judged} attempt${judged === 1 ? '' : 's'} in ${scenarios} scenario${scenarios === 1 ? '' : 's'}, all right`);
  const shown = problems.slice(0, SHOWN_PROBLEMS).map(({ attempt, problem }) => `${label(attempt)}: ${problem}`);
  const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : '';
  return failed(expected, `${problems.length} of ${judged} attempts wrong: ${shown.join('; ')}${more}`, problems.map((entry) => entry.attempt));
}

/**
 * The attempts of one scenario, for a judgement of what the sender did there; or the outcome to return when there
 * is nothing to judge: skipped when the scenario did not run, failed when it ran and no attempt came.
 */
export function attemptsOf(evidence: SenderEvidence, id: ScenarioId, expected: string): { record: ScenarioRecord; attempts: Attempt[] } | { outcome: SenderOutcome } {
  const record = recordOf(evidence, id);
  if (!record) return { outcome: skipped(`scenario ${id} did not run`) };
  if (record.attempts.length === 0) return { outcome: failed(expected, `scenario ${id}: no attempt arrived within --wait ${ms(evidence.waitMs)} (${triggerText(record)})`) };
  return { record, attempts: record.attempts };
}

/** What the trigger did, for a scenario that got no attempt. */
export function triggerText(record: ScenarioRecord): string {
  const trigger = record.trigger;
  if (!trigger) return 'sent by hand: nothing came';
  if (trigger.error) return `the trigger could not start: ${trigger.error}`;
  const last = trigger.output.trim().split('\n').at(-1)?.trim();
  const said = last ? `: ${last.length > 200 ? `${last.slice(0, 200)}…` : last}` : '';
  if (trigger.stoppedByCai) return `the trigger was still running when cai stopped it${said}`;
  if (trigger.signal) return `the trigger was stopped by ${trigger.signal}${said}`;
  return `the trigger exited ${trigger.exitCode ?? '?'}${said}`;
}

/** The attempts after the first, as retries of it; late ones included (a retry is one whenever it comes). */
export function retriesOf(attempts: readonly Attempt[]): Attempt[] {
  return attempts.slice(1);
}
