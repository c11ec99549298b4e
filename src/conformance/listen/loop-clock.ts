/**
 * How long cai's event loop has been held up (by cai, or by a machine too busy to run it). A request is timed when
 * the loop gets to it; a heartbeat every BEAT_MS marks the last moment the loop was free. A loop on time for its beat
 * came to an arrival at once (an idle loop wakes for it); one late for it was held up, and the arrival may have come
 * at any moment since the last beat. One clock for the process, beating while a listener uses it.
 */
const BEAT_MS = 5;

let users = 0;
let timer: NodeJS.Timeout | undefined;
let lastBeat = performance.now();
let heldTotal = 0;

function beat(): void {
  const now = performance.now();
  if (now - lastBeat > 2 * BEAT_MS) heldTotal += now - lastBeat;
  lastBeat = now;
}

/** Starts the clock (if it is not running); the function returned ends this use of it. */
export function useLoopClock(): () => void {
  users += 1;
  if (users === 1) {
    lastBeat = performance.now();
    timer = setInterval(beat, BEAT_MS).unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    users -= 1;
    if (users === 0) clearInterval(timer);
  };
}

/** How late the loop came to the moment `mono` (0: on time): the time since its last beat, when that is late. */
export function slackAt(mono: number): number {
  const since = mono - lastBeat;
  return since > 2 * BEAT_MS ? Math.round(since) : 0;
}

/** All the time the loop has been held up by the moment `mono`, from some moment: only differences mean anything. */
export function heldAt(mono: number): number {
  return Math.round(heldTotal) + slackAt(mono);
}
