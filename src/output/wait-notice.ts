/**
 * A long wait told on stderr where no line can be redrawn (a pipe, a CI log, TERM=dumb): one line every
 * WAIT_LINE_MS at most while something is awaited, saying what and until when. A CI log that stops moving for a
 * minute looks like a hung job; this says it is not. On a terminal that redraws, the command's own status line
 * shows the wait instead; with --quiet, nothing.
 */

import type { Output } from './output.js';
import { formatDuration } from '../duration.js';

export const WAIT_LINE_MS = 10_000;

export interface Awaited {
  /** What is awaited: `the answer of https://platform.example (attempt 2)`. */
  what: string;
  /** When the wait ends at the latest (ms since the epoch), if it is bounded. */
  until?: number;
}

export interface WaitNotice {
  /**
   * From now on, this is awaited (nothing, when empty); several are awaited one after the other (a retry's wait,
   * then its answer): the line names the first that has not ended yet.
   */
  set(...awaited: Awaited[]): void;
  stop(): void;
}

const silent: WaitNotice = { set() {}, stop() {} };

export function waitNotice(output: Output, now: () => number, everyMs = WAIT_LINE_MS): WaitNotice {
  if (output.cursorControl || output.quiet) return silent;
  let awaited: Awaited[] = [];
  let since = now();
  const timer = setInterval(() => {
    const at = now();
    const current = awaited.find((phase) => phase.until === undefined || phase.until > at) ?? awaited.at(-1);
    if (current === undefined || at - since < everyMs) return;
    output.info(describeWait(current, at));
  }, everyMs);
  timer.unref();
  return {
    set(...next) {
      awaited = next;
      since = now();
    },
    stop() {
      clearInterval(timer);
      awaited = [];
    },
  };
}

/** `waiting for the answer of https://x (attempt 1), until 14:05:10 (25 s from now)`. */
export function describeWait(awaited: Awaited, at: number): string {
  if (awaited.until === undefined) return `waiting for ${awaited.what}`;
  const until = new Date(awaited.until).toTimeString().slice(0, 8);
  return `waiting for ${awaited.what}, until ${until} (${formatDuration(Math.max(0, awaited.until - at))} from now)`;
}
