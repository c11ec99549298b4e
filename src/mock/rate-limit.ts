/**
 * Token bucket for a request cap of N per second, minute or hour: a burst of up to N requests, refilled evenly over
 * the unit (7 a minute: 7 at once, then one every 8.6 s). The rate arrives per second, so its unit is read back as
 * the first of second, minute, hour in which it counts 1 or more (7/60 per second is 7 a minute; 600 a minute is 10
 * a second). §7: over the cap the answer is 429 with Retry-After, the whole seconds until a request would pass.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private readonly capacity: number;
  /** The cap in words: `7 requests per minute`. */
  readonly cap: string;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    const units = Object.entries({ second: 1, minute: 60, hour: 3600 });
    const [unit, seconds] = units.find(([, s]) => round(perSecond * s) >= 1) ?? ['hour', 3600];
    const count = round(perSecond * seconds);
    this.cap = `${count} request${count === 1 ? '' : 's'} per ${unit}`;
    this.capacity = Math.max(1, count);
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

/** To 6 significant digits: 7/60 per second times 60 is 7.000000000000001. */
const round = (value: number): number => Number(value.toPrecision(6));
