/**
 * The timing terms of a delivery, read as intervals (an arrival is known only between the moment cai's event loop
 * got to it and `slackMs` before, so each is kept, broken, or undecided): S2, the waits after 5xx or cut connections
 * grow; S3, a retry after a 429 waits as long as its Retry-After asks; S5, each attempt is signed afresh, judged
 * with the sender's own signing lag.
 */
import { Headers } from '../constants.js';
import {
  BACKOFF_FLOOR_MS,
  BACKOFF_GROWTH_FACTOR,
  BACKOFF_STEADY_SPREAD,
  BACKOFF_WAITS,
  FRESH_SIGNATURE_SPAN_MS,
  retryAfterToleranceMs,
  SENDER_CLOCK_RESOLUTION_MS,
  SENDER_PATIENCE_MS,
} from './sender-latitude.js';
import { heard, nextAfter, sentAfterAnswer, waitBefore, type Delivery, type SeenAttempt } from './sender-deliveries.js';
import { ms, type DeliveryContext, type Finding } from './sender-findings.js';
import { deliveryRules } from './sender-relations.js';

/** A timestamp of unix seconds as a sender writes it (§4): the ones a clock or a lag is read from. */
export const WELL_FORMED_TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * How long a sender was held up between signing an attempt and its arrival, as the run shows it: the most any first
 * attempt arrived after the end of the second its timestamp names (0 when none did). A first attempt carries no
 * signature sent again, so its lag is the sender's (a busy machine, a queue), not a stale signature.
 */
export function signingLagOf<A extends SeenAttempt>(deliveries: readonly Delivery<A>[]): number {
  let lag = 0;
  for (const { attempts } of deliveries) {
    const first = attempts[0];
    const stamp = first?.headers[Headers.timestamp] ?? '';
    if (first === undefined || !WELL_FORMED_TIMESTAMP.test(stamp)) continue;
    lag = Math.max(lag, first.arrivedAt - (Number(stamp) + 1) * 1000);
  }
  return lag;
}

/** S3: each retry after a 429 no earlier than the moment its Retry-After names (less the tolerance). */
export function rateWaits<A extends SeenAttempt>(
  delivery: Delivery<A>,
  level: 'must' | 'should',
  clauses: readonly string[],
): Finding<A>[] {
  const findings: Finding<A>[] = [];
  for (const [index, answered] of delivery.attempts.entries()) {
    const [sent, from, after] = [answered.retryAfter, answered.answeredMono, nextAfter(answered)];
    const notBefore = after.must === 'retry' ? after.notBeforeMono : undefined;
    if (sent === undefined || from === undefined || notBefore === undefined) continue;
    // The retry is the first attempt after the answer went out (one sent while it was awaited is one-at-a-time's).
    const later = delivery.attempts.slice(index + 1);
    const next = later.find((attempt) => attempt.arrivedMono >= from);
    const asked = notBefore - from;
    const base = {
      term: 'retry-after' as const,
      relation: 'rate' as const,
      // §7 names "the number in the Retry-After header": an HTTP-date honoured is what the suite prefers, a should.
      level: sent.form === 'date' ? ('should' as const) : level,
      clauses,
      attempt: answered,
    };
    if (!next) {
      // Sent again only while the 429 was awaited: when cai's loop was held up past a sender's patience before it
      // answered, the sender may have given up waiting (right) and would have waited the Retry-After out; unknown.
      const heldUp = from - (answered.arrivedMono - (answered.slackMs ?? 0));
      if (later.length > 0 && heldUp >= SENDER_PATIENCE_MS)
        findings.push({
          ...base,
          verdict: 'undecided',
          actual: `sent again before the 429 (Retry-After: ${sent.header}) went out: cai's loop was held up ${ms(heldUp)} before it answered, and the sender may have given up waiting`,
          shown: [answered, ...later],
        });
      continue;
    }
    const line = notBefore - retryAfterToleranceMs(asked);
    // A date in the sender's clock as cai read it names a moment known to the second: within it, early is not broken.
    const breach = sent.clockShiftMs !== undefined ? line - SENDER_CLOCK_RESOLUTION_MS : line;
    const latest = next.arrivedMono;
    const earliest = latest - (next.slackMs ?? 0);
    const wait = ms(latest - from);
    const text =
      sent.form === 'seconds'
        ? `retried ${wait} after a 429 with Retry-After: ${sent.header}`
        : `retried ${wait} after a 429 with Retry-After: ${sent.header}, ${ms(notBefore - latest)} before that date (it asked for ${ms(asked)})`;
    const shown = [answered, next];
    if (latest < breach) findings.push({ ...base, verdict: 'broken', actual: text, shown });
    else if (earliest >= line) findings.push({ ...base, verdict: 'kept', shown });
    else
      findings.push({
        ...base,
        verdict: 'undecided',
        actual:
          latest < line
            ? `${text}, but within a second of it, and the date was written in the sender's clock as cai read it, to the second`
            : `${text}, but cai's loop may have been ${ms(next.slackMs ?? 0)} late to it`,
        shown,
      });
  }
  return findings;
}

/**
 * S2: "exponential backoff" (§7, §8): the first BACKOFF_WAITS waits after consecutive 5xx or cut connections grow:
 * the last two add up to BACKOFF_GROWTH_FACTOR times the two shortest of the first three, and to BACKOFF_FLOOR_MS at
 * least (a retry at once is no backoff, and waits of a millisecond are too short to time to a ratio). Waits that do
 * not grow fail only when they held steady (BACKOFF_STEADY_SPREAD); scattered ones are a draw of jitter, undecided. Each wait is an interval
 * (cai's own lag); the growth holds when it holds for the shortest reading of the late waits and the longest of the
 * early ones, fails when it fails for the opposite, and is undecided between.
 */
export function growth<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  const { attempts } = delivery;
  const backsOff = (attempt: A) => heard(attempt) === 'unavailable' || heard(attempt) === 'cut';
  const start = attempts.findIndex(backsOff);
  if (start < 0) return [];
  const run = attempts.slice(start, start + BACKOFF_WAITS + 1);
  if (run.length < BACKOFF_WAITS + 1 || !run.slice(0, BACKOFF_WAITS).every(backsOff)) return [];
  // Waits are from an answer to the next attempt: one sent before the answer came is one-at-a-time's, not a wait.
  if (
    run
      .slice(1)
      .some((attempt, index) => attempt.arrivedMono < ((run[index] as A).answeredMono ?? Number.POSITIVE_INFINITY))
  )
    return [];
  const found = (verdict: Finding['verdict'], actual: string): Finding<A>[] => [
    {
      term: 'growth',
      relation: 'retry',
      level: 'must',
      clauses: deliveryRules(context.interface).retry5xx,
      attempt: run[0] as A,
      shown: run,
      verdict,
      actual,
    },
  ];
  // A late answer, and an attempt cai's lag leaves as maybe sent before it: the sender may have given up waiting
  // (its time-out) and sent again, so that gap is no wait of its backoff.
  const unsure = run.slice(1).findIndex((attempt, index) => !sentAfterAnswer(run[index] as A, attempt));
  if (unsure >= 0) {
    const [answered, next] = [run[unsure] as A, run[unsure + 1] as A];
    return found(
      'undecided',
      `attempt #${unsure + 2} may have been sent before the answer to #${unsure + 1}, which went out ${ms((answered.answeredMono ?? 0) - answered.arrivedMono)} after it: cai's own loop may have been ${ms(next.slackMs ?? 0)} late to it, which leaves it open`,
    );
  }
  const waits = run.slice(1).map((attempt, index) => waitBefore(run[index] as A, attempt, context.senderInProcess));
  const sumOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  const early = (pick: 'earliest' | 'latest') =>
    sumOf(
      waits
        .slice(0, 3)
        .map((wait) => wait[pick])
        .sort((a, b) => a - b)
        .slice(0, 2),
    );
  const late = (pick: 'earliest' | 'latest') => sumOf(waits.slice(-2).map((wait) => wait[pick]));
  const measured = `waits ${waits.map((wait) => ms(wait.latest)).join(', ')}: the last two ${(late('latest') / Math.max(early('latest'), 1)).toFixed(1)}× the two shortest of the first three`;
  if (late('latest') < BACKOFF_FLOOR_MS)
    return found('broken', `${measured}: retried at once, the last two under ${BACKOFF_FLOOR_MS} ms together`);
  if (late('earliest') >= BACKOFF_GROWTH_FACTOR * early('latest')) return found('kept', measured);
  if (late('latest') < BACKOFF_GROWTH_FACTOR * early('earliest')) {
    // Not grown, whatever cai's lag: no backoff if the waits as seen also held steady, else a draw of jitter. Steadiness
    // is read on the waits as seen (cai's lag draws one out by a few milliseconds on a quiet machine): read on the
    // intervals, a lag longer than a short wait would leave every constant backoff open.
    const longest = Math.max(...waits.map((wait) => wait.latest));
    const shortest = Math.max(Math.min(...waits.map((wait) => wait.latest)), 1);
    const spread = `the longest ${(longest / shortest).toFixed(1)}× the shortest`;
    return longest <= BACKOFF_STEADY_SPREAD * shortest
      ? found('broken', `${measured}, ${spread}`)
      : found(
          'undecided',
          `${measured}, yet ${spread}: neither growing nor steady, as a jittered backoff may draw them, which leaves it open`,
        );
  }
  const slack = Math.max(...waits.map((wait) => wait.latest - wait.earliest));
  return found(
    'undecided',
    `${measured}; cai's own loop may have been up to ${ms(slack)} late to an arrival, which leaves it open`,
  );
}

/**
 * S5 (§5.5): each attempt signed afresh. Judged on pairs of attempts of one delivery that arrived
 * FRESH_SIGNATURE_SPAN_MS or more apart: the later carries a later timestamp. The same timestamp is a breach only on a
 * pair certainly sent that far apart (the span less the later one's slack: else undecided, cai's lag). Arrivals are not
 * sendings: a sender held up between signing and sending (a busy machine) brings a fresh signature late. Where the span
 * is within the sender's signing lag of the bound, the same timestamp is undecided; past it, a breach a second play
 * confirms (checks/sender/judging.ts).
 */
export function freshness<A extends SeenAttempt>(delivery: Delivery<A>, signingLagMs: number): Finding<A>[] {
  const timed = delivery.attempts.filter((attempt) =>
    WELL_FORMED_TIMESTAMP.test(attempt.headers[Headers.timestamp] ?? ''),
  );
  const findings: Finding<A>[] = [];
  for (let i = 0; i < timed.length; i += 1) {
    for (let j = i + 1; j < timed.length; j += 1) {
      const [earlier, later] = [timed[i] as A, timed[j] as A];
      const arrivedApart = later.arrivedMono - earlier.arrivedMono;
      const span = arrivedApart - (later.slackMs ?? 0);
      // A request that waited in the sender's queue was signed when it was queued: its timestamp tells nothing.
      if (arrivedApart < FRESH_SIGNATURE_SPAN_MS || later.queued) continue;
      const moved = Number(later.headers[Headers.timestamp]) - Number(earlier.headers[Headers.timestamp]);
      const base = {
        term: 'fresh' as const,
        relation: 'fresh' as const,
        level: 'should' as const,
        clauses: ['§5.5-1'],
        attempt: later,
        shown: [earlier, later],
      };
      const text = `attempt #${j + 1} arrived ${ms(later.arrivedMono - earlier.arrivedMono)} after #${i + 1} with ${moved === 0 ? 'the same timestamp' : `a timestamp ${-moved} s earlier`}`;
      if (moved >= 1) findings.push({ ...base, verdict: 'kept' });
      else if (span < FRESH_SIGNATURE_SPAN_MS)
        // Arrived the span apart, but cai's loop may have come to the later one that late: maybe sent closer.
        findings.push({
          ...base,
          verdict: 'undecided',
          actual: `${text}, but cai's own loop may have been up to ${ms(later.slackMs ?? 0)} late to it, which leaves it open`,
        });
      else if (span < FRESH_SIGNATURE_SPAN_MS + signingLagMs)
        findings.push({
          ...base,
          verdict: 'undecided',
          actual: `${text}, but the sender's first attempts arrived up to ${ms(signingLagMs)} after their timestamps' second: it may have been held up that long between signing and sending`,
        });
      else
        findings.push({ ...base, verdict: 'broken', actual: `${text}: a signature sent again goes stale after 300 s` });
    }
  }
  return findings;
}
