/**
 * How long cai's event loop has been held up (by cai, or by a machine too busy to run it), and how early an arrival
 * it gets to may have come. A request is timed when the loop gets to it; a heartbeat every BEAT_MS marks the turns of
 * the loop. A loop reads in one turn every socket ready when it looks, and a new connection's request in the turn after
 * the one that accepted it: after two turns on time in a row, it had read all that was waiting at the first, so what
 * it gets to after came since then (on an idle loop, at once: it wakes for it). A loop held up (a machine too busy to run it, cai's own
 * work) leaves what came meanwhile in the socket buffers, and a loop held up turn after turn reads it seconds late
 * (shown on a starved process: a request sent at once read 1 to 4 s later, with every beat late): an arrival may have
 * come at any moment since the loop was last free. One clock for the process, beating while a listener uses it.
 */
const BEAT_MS = 5;

/** A beat this late (or later) was held up. */
const LATE_MS = 2 * BEAT_MS;

let users = 0;
let timer: NodeJS.Timeout | undefined;
/** The last three beats, oldest first. */
let beats = [performance.now()];
/** Beats on time in a row, up to the last. */
let onTimeRun = 0;
/** The last moment the loop is known free: the first of three beats in a row on time. */
let freeSince = performance.now();
let heldTotal = 0;

function beat(): void {
  const now = performance.now();
  const gap = now - (beats.at(-1) ?? now);
  if (gap > LATE_MS) {
    heldTotal += gap;
    onTimeRun = 0;
  } else onTimeRun += 1;
  beats = [...beats.slice(-2), now];
  // Two turns on time in a row: what was waiting at the first of the three beats has been read since.
  if (onTimeRun >= 2) freeSince = beats[0] as number;
}

/** Starts the clock (if it is not running); the function returned ends this use of it. */
export function useLoopClock(): () => void {
  users += 1;
  if (users === 1) {
    beats = [performance.now()];
    onTimeRun = 0;
    freeSince = beats[0] as number;
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

/**
 * How much earlier than `mono` an arrival the loop gets to then may have come: the time since the loop was last
 * free, or 0 when that is within two beats on time and a turn (the loop came to it at once).
 */
export function slackAt(mono: number): number {
  const since = mono - freeSince;
  return since > 2 * BEAT_MS + LATE_MS ? Math.round(since) : 0;
}

/** All the time the loop has been held up by the moment `mono`, from some moment: only differences mean anything. */
export function heldAt(mono: number): number {
  const since = mono - (beats.at(-1) ?? mono);
  return Math.round(heldTotal) + (since > LATE_MS ? since : 0);
}
