/**
 * A check a busy machine leaves open: not judged, saying that cai's own lag (its loop late to an arrival) or hold
 * (held up longer than it waited) left the verdict open. Never passed, and judged on a quiet machine. The words are
 * the sender model's (src/spec/model/sender-timing.ts, sender.ts) and the runner's (src/conformance/runner.ts).
 */
export const LEFT_OPEN_BY_LAG = /late to (?:it|an arrival)|held up|leaves it open/;

export const leftOpenByLag = (check: { verdict: string; actual?: string }): boolean =>
  check.verdict === 'not-judged' && LEFT_OPEN_BY_LAG.test(check.actual ?? '');
