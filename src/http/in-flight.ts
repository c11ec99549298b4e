/**
 * The requests a receiver is still answering, counted (a promise chain and a Set entry per request cost more than
 * the count), so that its close answers them before the connections go: the `drain` of ListeningServer.close.
 */
export class InFlight {
  private count = 0;
  private waiting: (() => void)[] = [];

  /** Counts `work` until it settles; a rejection settles it too (a failing handler must not hold the close). */
  track(work: Promise<unknown>): void {
    this.count += 1;
    void work.then(this.settled, this.settled);
  }

  /** Resolves once no request is in flight. */
  async drained(): Promise<void> {
    while (this.count > 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private readonly settled = (): void => {
    this.count -= 1;
    if (this.count === 0 && this.waiting.length > 0) {
      const waiting = this.waiting;
      this.waiting = [];
      for (const resolve of waiting) resolve();
    }
  };
}
