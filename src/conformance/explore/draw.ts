/**
 * The conversations of the stateful phase, drawn as they are wanted. fc.sample draws them all at once: 600 of them held
 * cai's loop half a second on a quiet machine and two on a busy one, while the checks running beside the phase and
 * the reference receiver in the same process waited on it (a kept-alive connection could then be closed under a
 * request about to be sent on it). fast-check's `path` starts a draw at the n-th value of the same stream, so these
 * are exactly fc.sample's values, in order, a few at a time.
 */
import * as fc from 'fast-check';

const BATCH = 8;

export function* drawLazily<T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): Generator<T> {
  for (let start = 0; start < count; start += BATCH)
    yield* fc.sample(arbitrary, { seed, path: String(start), numRuns: Math.min(BATCH, count - start) });
}

/** fast-check's parameters that replay the conversation at `path` of the seed's stream, and shrink it for `timeLimitMs`. */
export function replayOnce(seed: number, path: string, timeLimitMs: number) {
  return { seed, path, numRuns: 1, interruptAfterTimeLimit: timeLimitMs, markInterruptAsFailure: false };
}
