/**
 * Token bucket for `--rate-limit N/s`: a burst of up to max(1, N) requests, refilled at N per second.
 * §7: over the cap the answer is 429 with Retry-After, the whole seconds until a request would pass.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private readonly capacity: number;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = Math.max(1, perSecond);
    this.tokens = this.capacity;
    this.last = now();
  }

  /** Takes one token: `undefined` when allowed, else the Retry-After value in whole seconds (at least 1). */
  take(): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }
}
