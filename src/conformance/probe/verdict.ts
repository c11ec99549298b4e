/**
 * A receiver check's verdict on an answer: the model's expectation for the request (on the exchange, set as it was
 * sent: probe/scope.ts) against what came back, read at the check's level and on the terms the check is about. A
 * `must` check reads the `must` terms; a `should` check every term (its failures are warnings). The checks say what
 * they send and what they are about; what the answer must be is the model's alone.
 */
import {
  breachesOf,
  describeSet,
  inSet,
  undecidedTermsOf,
  type Breach,
  type TermId,
} from '../../spec/model/answers.js';
import type { Expectation } from '../../spec/model/receiver.js';
import { failed, notJudged, passed, type Outcome } from '../check.js';
import { answerOf, describeAnswer, type Exchange } from '../evidence.js';
import type { CheckLevel } from '../types.js';
import { malformedRetryAfter, unhonoured429 } from './session.js';

/** What a check judges of an answer: at its level, and which terms (the status alone, by default). */
export interface Focus {
  level: CheckLevel;
  terms?: readonly TermId[];
}

const OUTCOME: readonly TermId[] = ['outcome'];

export { answerOf, isAccepted } from '../evidence.js';

function expectationOf(exchange: Exchange): Expectation {
  if (!exchange.expected) throw new Error("an exchange without the model's expectation (sent outside a probe scope)");
  return exchange.expected;
}

/** The terms of the exchange's expectation the answer breaks, as the focus reads them. */
export function breachesOfExchange(exchange: Exchange, focus: Focus): Breach[] {
  const terms = focus.terms ?? OUTCOME;
  return breachesOf(expectationOf(exchange).terms, answerOf(exchange), {
    terms,
    ...(focus.level === 'must' ? { level: 'must' as const } : {}),
  });
}

/**
 * Why the answer cannot be judged on the focus's terms although it breaks none (its body was cut at the size cai
 * reads before a term of it was decided; the first acknowledgment a repeat is compared with was not read), with
 * what each such term expects.
 */
export function undecidedTermsWhy(exchange: Exchange, focus: Focus): string | undefined {
  const terms = focus.terms ?? OUTCOME;
  const undecided = undecidedTermsOf(expectationOf(exchange).terms, answerOf(exchange), {
    terms,
    ...(focus.level === 'must' ? { level: 'must' as const } : {}),
  });
  if (undecided.length === 0) return undefined;
  return [...new Set(undecided.map(({ term, why }) => `${why} (${term.expected})`))].join('; ');
}

/** What the focus expects of the exchange, in words: `401`, `2xx (accepted)`, `202 {"ok":true,"duplicate":true}`. */
export function expectedOf(exchange: Exchange, focus: Focus): string {
  const terms = focus.terms ?? OUTCOME;
  const shown = expectationOf(exchange).terms.filter(
    (term) => terms.includes(term.id) && (focus.level === 'should' || term.level === 'must'),
  );
  // A term of what an acceptance carries (a repeat's answer, an acknowledgment) says the status too.
  const carried = shown.filter((term) => term.id !== 'outcome' && term.id !== 'retry-after');
  return [...new Set((carried.length > 0 ? carried : shown).map((term) => term.expected))].join('; ') || 'any answer';
}

/** An answer, judged: passed, or failed with what it broke. No answer sent at all is not judged. */
export function judgeAnswer(exchange: Exchange | undefined, focus: Focus): Outcome {
  if (exchange === undefined) return notJudged('no request was sent');
  const undecided = undecidedWhy(exchange);
  if (undecided !== undefined) return notJudged(undecided);
  const breaches = breachesOfExchange(exchange, focus);
  const expected = expectedOf(exchange, focus);
  if (breaches.length === 0) {
    const unread = undecidedTermsWhy(exchange, focus);
    return unread === undefined
      ? passed(expected, describeAnswer(exchange), honouredNotes(exchange))
      : notJudged(unread, honouredNotes(exchange));
  }
  return failed(expected, breachText(exchange, breaches), { exchanges: [exchange] }, honouredNotes(exchange));
}

/** The 429s waited out before the answer whose Retry-After was no number (§7): cai backed off instead, and says so. */
function honouredNotes(exchange: Exchange): string[] {
  const malformed = (exchange.honoured429 ?? []).flatMap((limited) => malformedRetryAfter(limited.retryAfter) ?? []);
  return [...new Set(malformed)].map((what) => `before the answer, ${what}: cai backed off instead`);
}

/**
 * `202 {"ok":true}` or, where a term of the body was broken, what it broke; a body that is not what its label says
 * is shown too (a Content-Length counted in characters cuts it short).
 */
export function breachText(exchange: Exchange, breaches: readonly Breach[]): string {
  const first = breaches[0] as Breach;
  if (first.term === 'outcome') return describeAnswer(exchange);
  return first.term === 'json-label' ? `${first.actual}: ${describeAnswer(exchange)}` : first.actual;
}

/**
 * Why the model cannot decide on this answer at this level, when it cannot: it allows both an acceptance and a
 * refusal only because cai cannot place the request against a rule precisely (a timestamp on the window's edge).
 * Latitude the spec gives a receiver is not undecided: it is a verdict of "either is right".
 */
export function undecidedWhy(exchange: Exchange): string | undefined {
  // A 429 cai stopped waiting out stands for an answer it never got.
  const limited = unhonoured429(exchange);
  if (limited !== undefined) return limited;
  const expected = expectationOf(exchange);
  const edge = expected.facts.open.find((point) => point.id === 'window-edge');
  if (edge === undefined) return undefined;
  // At every level: the `should` set still prefers the side the probe means, but whether the receiver read the
  // timestamp on that side is what cai cannot tell, so a refusal is no more a warning than a failure.
  const set = expected.must;
  return inSet(set, 202) && inSet(set, 401) ? `${edge.why}: either answer is right (${describeSet(set)})` : undefined;
}
