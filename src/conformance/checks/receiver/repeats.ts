/**
 * What the repeat checks share (./duplicates.ts, ./dedupe-memory.ts): a first delivery and what followed it, sent in
 * order (the second only once the first is accepted, since a repeat of a refused document proves nothing), and judged
 * by the model, the first answer then the second.
 */
import { notJudged, type Outcome } from '../../check.js';
import type { Exchange } from '../../evidence.js';
import { isAccepted, judgeAnswer, type Focus } from '../../probe/verdict.js';
import type { ProbeScope } from '../../probe/scope.js';

/** A first delivery and what followed it: the evidence of most repeat checks. */
export interface Repeat {
  first: Exchange;
  second: Exchange;
}

/** What a repeat check reads of the second answer: its status and whether it was answered as a repeat (or as new). */
export const AS_REPEAT: Focus = { level: 'must', terms: ['outcome', 'repeat'] };
export const AS_NEW: Focus = { level: 'must', terms: ['outcome', 'new'] };
export const OUTCOME: Focus = { level: 'must' };

/** Sends `first`, then, once it is accepted, `second`. */
export async function sendThenRepeat(
  scope: ProbeScope,
  first: () => Parameters<ProbeScope['send']>[0],
  second: () => Parameters<ProbeScope['send']>[0],
): Promise<Partial<Repeat>> {
  const answer = await scope.send(first());
  if (!isAccepted(answer) || scope.session.signal.aborted) return { first: answer };
  return { first: answer, second: await scope.send(second()) };
}

/**
 * A repeat check's judgement: the first delivery as the model expects it (accepted, and with `firstAs`, judged on
 * that focus too), then the second on `secondAs`. Both answers are shown when the second is wrong.
 */
export function judgePair(evidence: Partial<Repeat>, secondAs: Focus, firstAs: Focus = OUTCOME): Outcome {
  if (!evidence.first) return notJudged('no request was sent');
  const first = judgeAnswer(evidence.first, firstAs);
  if (first.verdict !== 'passed') return first;
  if (!evidence.second) return notJudged('the second delivery was not sent');
  const second = judgeAnswer(evidence.second, secondAs);
  return second.verdict === 'failed' ? { ...second, exchanges: [evidence.first, evidence.second] } : second;
}
