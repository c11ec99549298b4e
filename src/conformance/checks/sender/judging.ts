/**
 * The shapes the sender checks share: a rule judged on every attempt, and a rule judged on what a sender did
 * after each answer of a kind, delivery by delivery. A sender may send any number of documents in a stage; each
 * delivery is judged on its own, on the answers it really got.
 */
import { failed, notJudged, passed, type Outcome } from '../../check.js';
import { allAttempts, completeRecords, deliveriesOf, isRetryable, label, type Attempt, type Delivery, type SenderEvidence, type StageRecord } from '../../evidence.js';
import type { ScriptedAnswer } from '../../listen/scenarios.js';

/** A problem with one attempt, `undefined` when it is right, `null` when this rule cannot judge it (another does). */
export type Judgement = string | undefined | null;

const SHOWN_PROBLEMS = 3;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * Judges every attempt (late ones too: a stale signature on a late retry is still one). Fails with the attempts
 * that break the rule; not judged when it could judge none.
 */
export function everyAttempt(
  evidence: SenderEvidence,
  expected: string,
  judge: (attempt: Attempt, record: StageRecord) => Judgement,
  unjudged: string,
  options: { passedText?: (judged: number) => string } = {},
): Outcome {
  if (allAttempts(evidence).length === 0) return notJudged(`no attempt arrived${stagesText(evidence)}`);
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
  if (judged === 0) return notJudged(unjudged);
  const stages = new Set(evidence.records.filter((record) => record.attempts.length > 0).map((record) => record.id)).size;
  if (problems.length === 0) return passed(expected, options.passedText?.(judged) ?? `${plural(judged, 'attempt')} in ${plural(stages, 'scenario')}, all right`);
  return failed(expected, `${problems.length} of ${judged} attempts wrong: ${shown(problems)}`, { attempts: problems.map((entry) => entry.attempt) });
}

function shown(problems: readonly { attempt: Attempt; problem: string }[]): string {
  const first = problems.slice(0, SHOWN_PROBLEMS).map(({ attempt, problem }) => `${label(attempt)}: ${problem}`);
  const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : '';
  return first.join('; ') + more;
}

/** ` (scenario accept: the trigger exited 0)`, for a judgement that found nothing to judge. */
function stagesText(evidence: SenderEvidence): string {
  const texts = evidence.records.map((record) => `${record.id}: ${triggerText(record)}`);
  return texts.length > 0 ? ` (${texts.slice(0, 3).join('; ')}${texts.length > 3 ? '; …' : ''})` : '';
}

/** A delivery of a stage, as the judges see it. */
export interface DeliveryView {
  record: StageRecord;
  delivery: Delivery;
}

/** Every delivery of every stage, in order. */
export function deliveriesIn(evidence: Pick<SenderEvidence, 'records'>): DeliveryView[] {
  return evidence.records.flatMap((record) => deliveriesOf(record).map((delivery) => ({ record, delivery })));
}

/**
 * What a sender did after each answer that `matches`: `judge` looks at the attempt so answered and the next one
 * of the same delivery (undefined when none came). Only stages that ran to their end are judged (an interrupted
 * one may have been cut before the next attempt). Not judged when no delivery got such an answer.
 */
export function afterEachAnswer(
  evidence: SenderEvidence,
  answerText: string,
  matches: (answer: ScriptedAnswer) => boolean,
  expected: string,
  judge: (answered: Attempt, next: Attempt | undefined, view: DeliveryView) => Judgement,
  options: { firstOnly?: boolean; shown?: (answered: Attempt, view: DeliveryView) => readonly Attempt[] } = {},
): Outcome {
  const complete = new Set(completeRecords(evidence));
  const problems: { attempt: Attempt; problem: string; shown: readonly Attempt[] }[] = [];
  let judged = 0;
  let deliveries = 0;
  for (const view of deliveriesIn(evidence)) {
    if (!complete.has(view.record)) continue;
    const { attempts } = view.delivery;
    let counted = false;
    for (const [index, attempt] of attempts.entries()) {
      if (attempt.answeredMono === undefined || !matches(attempt.answer)) continue;
      const next = attempts[index + 1];
      const problem = judge(attempt, next, view);
      if (problem !== null) {
        judged += 1;
        if (!counted) deliveries += 1;
        counted = true;
        if (problem !== undefined) problems.push({ attempt, problem, shown: options.shown?.(attempt, view) ?? (next ? [attempt, next] : [attempt]) });
      }
      if (options.firstOnly) break;
    }
  }
  if (judged === 0) return notJudged(`no delivery was answered ${answerText}${incompleteText(evidence)}`);
  if (problems.length === 0) return passed(expected, `${plural(deliveries, 'delivery', 'deliveries')} answered ${answerText}: all right`);
  const text = problems.slice(0, SHOWN_PROBLEMS).map(({ attempt, problem }) => `${label(attempt)}: ${problem}`).join('; ');
  const more = problems.length > SHOWN_PROBLEMS ? `; and ${problems.length - SHOWN_PROBLEMS} more` : '';
  // One delivery judged: its problem is the whole story.
  const actual = judged === 1 ? (problems[0] as { problem: string }).problem : `${problems.length} of ${judged} deliveries wrong: ${text}${more}`;
  return failed(expected, actual, { attempts: problems.flatMap((entry) => entry.shown) });
}

/**
 * Every retry (an attempt that follows a retryable answer of its delivery: 5xx, 429, a cut connection), against the
 * delivery's first attempt. An attempt after a final answer is no retry: a repeat (the acknowledgment and refusal
 * checks judge it) or another document under an old event_id (the identity check).
 */
export function everyRetry(evidence: SenderEvidence, expected: string, judge: (first: Attempt, retry: Attempt, view: DeliveryView) => Judgement, unjudged: string): Outcome {
  const problems: { attempt: Attempt; problem: string; first: Attempt }[] = [];
  let judged = 0;
  for (const view of deliveriesIn(evidence)) {
    const [first, ...later] = view.delivery.attempts;
    if (!first) continue;
    for (const [index, retry] of later.entries()) {
      const previous = view.delivery.attempts[index] as Attempt;
      if (!isRetryable(previous.answer)) continue;
      const problem = judge(first, retry, view);
      if (problem === null) continue;
      judged += 1;
      if (problem !== undefined) problems.push({ attempt: retry, problem, first });
    }
  }
  if (judged === 0) return notJudged(unjudged);
  if (problems.length === 0) return passed(expected, `${plural(judged, 'retry', 'retries')}, all right`);
  return failed(expected, `${problems.length} of ${judged} retries wrong: ${shown(problems)}`, { attempts: problems.flatMap(({ first, attempt }) => [first, attempt]) });
}

/** `; 1 scenario interrupted`, where stages were cut short. */
function incompleteText(evidence: SenderEvidence): string {
  const cut = evidence.records.length - completeRecords(evidence).length;
  return cut > 0 ? ` (${plural(cut, 'scenario')} interrupted)` : '';
}

/** What the trigger did, for a stage that got no attempt. */
export function triggerText(record: StageRecord): string {
  if (record.attempts.length > 0) return `${plural(record.attempts.length, 'attempt')}`;
  const trigger = record.trigger;
  if (!trigger) return 'nothing came';
  if (trigger.error) return `the trigger could not start: ${trigger.error}`;
  const last = trigger.output.trim().split('\n').at(-1)?.trim();
  const said = last ? `: ${last.length > 200 ? `${last.slice(0, 200)}…` : last}` : '';
  if (trigger.stoppedByCai) return `the trigger was still running when cai stopped it${said}`;
  if (trigger.signal) return `the trigger was stopped by ${trigger.signal}${said}`;
  return `the trigger exited ${trigger.exitCode ?? '?'}${said}`;
}
