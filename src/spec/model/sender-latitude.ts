/**
 * What the spec leaves open to a sender, and how far the judgement of a sender leans to let it: each with the words
 * that leave it open. The spec's own numbers (the 300 s window, 256 KB, 120 characters) are in src/spec/constants.ts;
 * these say how a wait, a Retry-After or a timestamp is read when the spec gives no tolerance. Plain data and two
 * small functions; the sender model (./sender.ts) reads them, and docs/conformance.md ("Tolerances") lists them.
 */
import { openClauses, type OpenClause } from './latitude.js';

/** What a conforming sender may choose, never judged. */
export const SENDER_LATITUDE: readonly OpenClause[] = openClauses([
  ['§7, §8', "the backoff's base, factor, cap and jitter: only that the waits grow is judged"],
  ['§7', 'waiting longer than Retry-After (its own backoff, a larger of the two)'],
  ['§8', 'how long it keeps retrying, up to 24 hours: cai judges only that it has not given up by the end of its wait'],
  ['RFC 9110 §5.1', 'header name case'],
  ['§5.2', 'pretty or compact JSON, key order, escapes: the bytes signed are the bytes sent'],
  [
    'RFC 9112',
    'one connection or many, keep-alive or not, pipelined, HTTP/1.0 or 1.1, chunked or sized bodies, Expect: 100-continue',
  ],
  ['§6.6', 'documents sent one at a time or at once, in any order'],
  ['§2.1, §2.4', "a document's optional fields, unknown fields (§9.2), any value of each format's grammar"],
]);

/**
 * How much earlier than its Retry-After a retry may come and still count as waiting for it (§7 names the header but
 * no precision; RFC 9110 §10.2.3 counts whole seconds): a quarter of the wait asked for, at most half a second. A
 * sender's timer starts from its event loop's idea of now, which a busy machine leaves behind the clock; a sender
 * that ignores Retry-After retries at its own backoff, far earlier. One rule, one tolerance: the same for a sender
 * run and for the events an Interface A provider sends back.
 */
export function retryAfterToleranceMs(askedMs: number): number {
  return Math.min(500, askedMs / 4);
}

/**
 * An HTTP-date in Retry-After is read against the sender's clock (RFC 9110 §10.2.3). Where cai wrote the date in
 * the sender's clock as it read it (a provider's callbacks: its `Date` header), the moment is known to a second at
 * best: the header has whole seconds, and a busy server's cached `Date` lags behind its clock (Node's does, by as
 * long as its event loop is late). A retry less than this before such a date (less the tolerance) is neither
 * waiting nor not: undecided; one sooner ignored the date. A date in cai's own clock (a sender run) has no such slack.
 */
export const SENDER_CLOCK_RESOLUTION_MS = 1_000;

/**
 * "Exponential backoff" (§7, §8) gives no base, factor or jitter: the waits after consecutive 5xx or cut connections
 * grow when the last two of the first five add up to at least this many times the two shortest of the first three.
 * Exponential backoff, even with 50 % jitter, gives 4× or more over five waits; constant waits give 1×.
 */
export const BACKOFF_GROWTH_FACTOR = 2;

/**
 * Waits that do not grow are no backoff only when they also hold steady: the longest of the five at most this many
 * times the shortest. Constant waits, even with ±50 % jitter, stay within it; "full jitter" (each wait drawn from 0 to
 * a ceiling that doubles) may draw five that neither grow nor hold steady (about one delivery in thirty), which tells
 * nothing either way: undecided, and the scenario is played again, not a failure.
 */
export const BACKOFF_STEADY_SPREAD = 3;

/**
 * A jittered backoff may draw five waits that neither grow nor spread past BACKOFF_STEADY_SPREAD: "decorrelated
 * jitter" (each wait drawn between the base and three times the one before, AWS's) does so in about one delivery in
 * seven, a steady draw no judge of five waits tells from constant ones. A breach of the growth counts only when this
 * many plays in a row show it (about one such sender in 400 then fails; constant waits, even with ±50 % jitter, are
 * steady in over nine plays in ten, and fail nine runs in ten or more). At most SENDER_RUN_CAPS.timingReplays + 1.
 */
export const GROWTH_BREACH_PLAYS = 3;

/**
 * How long a sender may wait for an answer before it gives up on it (its own time-out) and sends the document again:
 * the spec names no time-out, and a sender that gave up waiting did right. Only an answer this late, and an attempt
 * cai's own lag leaves as maybe sent before it, make "sent again after a final answer" undecided; an answer sooner
 * came before any sender gives up.
 */
export const SENDER_PATIENCE_MS = 1_000;

/** The waits the growth is judged on: the first this many after consecutive 5xx or cut connections. */
export const BACKOFF_WAITS = 5;

/**
 * Whatever the base, the fourth and fifth waits of exponential backoff add up to at least this: a sender that
 * retries at once, in a tight loop, waits a millisecond or two, below what cai can time to a ratio.
 */
export const BACKOFF_FLOOR_MS = 50;

/**
 * §5.5 asks for a timestamp of the moment an attempt is sent; timestamps are whole seconds and the two parties'
 * clocks differ. Two attempts of one delivery that arrived at least this far apart must carry different
 * timestamps, the later one later: the first attempt's headers sent again do not.
 */
export const FRESH_SIGNATURE_SPAN_MS = 1_500;

/** §8's service-level target for message delivery, read as the time from the trigger to the first attempt. */
export const FIRST_ATTEMPT_TARGET_SECONDS = 60;
