/**
 * The conversations of the stateful phase, drawn as they are wanted. fc.sample draws them all at once: 600 of them held
 * cai's loop half a second on a quiet machine and two on a busy one, while the checks running beside the phase and
 * the reference receiver in the same process waited on it (a kept-alive connection could then be closed under a
 * request about to be sent on it). fast-check's `path` starts a draw at the n-th value of the same stream, so these
 * are exactly fc.sample's values, in order, a few at a time.
 */
import * as fc from 'fast-check';
import { pool } from '../../pool.js';

const BATCH = 8;

export function* drawLazily<T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): Generator<T> {
  for (let start = 0; start < count; start += BATCH)
    yield* fc.sample(arbitrary, { seed, path: String(start), numRuns: Math.min(BATCH, count - start) });
}

/** fast-check's parameters that replay the conversation at `path` of the seed's stream, and shrink it for `timeLimitMs`. */
export function replayOnce(seed: number, path: string, timeLimitMs: number) {
  return { seed, path, numRuns: 1, interruptAfterTimeLimit: timeLimitMs, markInterruptAsFailure: false };
}

/**
 * The explore pass of a phase, either role's: its fixed conversations (places below 0), then the `drawn` ones (their
 * places in the seed's stream), a few at once, until `spent`; with `alone`, the first is played alone before them.
 */
export async function explorePass<C>(pass: {
  fixed: readonly C[];
  drawn: Iterable<C>;
  concurrency: number;
  play(index: number, conversation: C): Promise<void>;
  spent(): boolean;
  alone?: () => void;
}): Promise<void> {
  const queue = (function* () {
    yield* pass.fixed.map((conversation, index) => ({ index: index - pass.fixed.length, conversation }));
    let index = 0;
    for (const conversation of pass.drawn) yield { index: index++, conversation };
  })();
  const play = (next: { index: number; conversation: C }) => pass.play(next.index, next.conversation);
  const first = pass.alone ? queue.next() : undefined;
  if (first && !first.done) await play(first.value);
  pass.alone?.();
  await pool({ [Symbol.iterator]: () => queue }, pass.concurrency, play, pass.spent);
}
