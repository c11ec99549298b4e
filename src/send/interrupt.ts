import type { Io } from '../io.js';

/** The signals of a send that Ctrl-C ends in two steps. */
interface Interruption {
  /** The first Ctrl-C: start nothing new (no next attempt, no next document); what is on the wire finishes. */
  stopSignal: AbortSignal;
  /** The second Ctrl-C: abort what is in flight too. */
  signal: AbortSignal;
  /** Stops listening. */
  dispose(): void;
}

/** Listens for Ctrl-C: the first stops, the second aborts; each step first calls its hook (to say so). */
export function interruptInTwoSteps(
  io: Pick<Io, 'onInterrupt'>,
  hooks: { onStop?: () => void; onAbort?: () => void },
): Interruption {
  const stop = new AbortController();
  const abort = new AbortController();
  const dispose = io.onInterrupt(() => {
    if (!stop.signal.aborted) {
      hooks.onStop?.();
      stop.abort();
    } else if (!abort.signal.aborted) {
      hooks.onAbort?.();
      abort.abort();
    }
  });
  return { stopSignal: stop.signal, signal: abort.signal, dispose };
}
