/**
 * A check a busy machine leaves open: not judged, saying that cai's own lag (its loop late to an arrival) or hold
 * (held up longer than it waited) left the verdict open. Never passed, and judged on a quiet machine. The words are
 * the sender model's (src/spec/model/sender-timing.ts, sender.ts) and the runner's (src/conformance/runner.ts).
 */
export const LEFT_OPEN_BY_LAG = /late to (?:it|an arrival)|held up|leaves it open/;

export const leftOpenByLag = (check: { verdict: string; actual?: string }): boolean =>
  check.verdict === 'not-judged' && LEFT_OPEN_BY_LAG.test(check.actual ?? '');

/**
 * A fault's check that a busy machine left open on the one delivery that showed the fault, and that passed on the
 * run's other deliveries (each kept the rule): its note says which delivery was not judged, and why. Seen in CI: a
 * sender that sends a document again after its first 202 only, its repeat 9 s behind cai's late loop, the run with
 * no whole wait left to play the scenario again, and BS-ACK-001 passed on the four retries ended by a 202.
 */
export const faultLeftOpenByLag = (check: { verdict: string; actual?: string; notes?: readonly string[] }): boolean =>
  leftOpenByLag(check) ||
  (check.verdict === 'passed' &&
    (check.notes ?? []).some((note) => /\bnot judged\b/.test(note) && LEFT_OPEN_BY_LAG.test(note)));
