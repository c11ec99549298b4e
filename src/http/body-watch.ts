/** One body being read under a BodyWatch: its start, its last byte, and what to do when it stalls or drags. */
interface WatchedRead {
  readonly started: number;
  last: number;
  readonly onStall: () => void;
}

/**
 * The two body time-outs of a receiver (a gap of `idleMs` without a byte, or `totalMs` in all), for every body
 * being read, with one timer: a timer per request would cost more than the whole check. A body is cut within a
 * quarter of the shorter time-out after its deadline. readBody (./server.ts) watches each body with it.
 */
export class BodyWatch {
  private readonly reads = new Set<WatchedRead>();
  private timer: NodeJS.Timeout | undefined;
  private readonly periodMs: number;

  constructor(
    readonly idleMs: number,
    readonly totalMs: number,
  ) {
    this.periodMs = Math.min(1_000, Math.max(10, Math.min(idleMs, totalMs) / 4));
  }

  /** Watches one body from now: its `last` set at each chunk, `unwatch` once it is read (or refused). */
  watch(onStall: () => void): WatchedRead {
    const now = performance.now();
    const read: WatchedRead = { started: now, last: now, onStall };
    this.reads.add(read);
    this.timer ??= setInterval(() => this.sweep(), this.periodMs).unref();
    return read;
  }

  unwatch(read: WatchedRead): void {
    this.reads.delete(read);
  }

  /** Stops the timer (the receiver is closing); bodies still being read are no longer watched. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.reads.clear();
  }

  private sweep(): void {
    const now = performance.now();
    for (const read of this.reads) {
      if (now - read.last < this.idleMs && now - read.started < this.totalMs) continue;
      this.reads.delete(read);
      read.onStall();
    }
  }
}
