/**
 * A latency histogram in bounded memory, in the manner of HdrHistogram: values (microseconds) below 2^precision are
 * counted exactly; above, each power of two is split into 2^precision equal sub-buckets, so any value is known to
 * within 1/2^precision of itself (0.8 % at the default precision 7) whatever the run's length. A run of any size
 * costs the same few kilobytes; min, max and the sum are exact.
 */

/** Values below 2^(MAX_EXPONENT+1) µs (about 25 days) are bucketed; longer ones share the last bucket. */
const MAX_EXPONENT = 40;

export class Histogram {
  private readonly counts: Float64Array;
  private readonly subBits: number;
  private readonly subCount: number;
  total = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;
  sum = 0;

  /** `precision`: bits of each sub-range (7: within 0.8 %; 4: within 6 %, for the many small windows of a timeline). */
  constructor(precision = 7) {
    this.subBits = precision;
    this.subCount = 2 ** precision;
    this.counts = new Float64Array(this.subCount + (MAX_EXPONENT - precision + 1) * this.subCount);
  }

  /** Records one value in microseconds (rounded down; negative as 0). */
  record(micros: number): void {
    const value = micros > 0 ? Math.floor(micros) : 0;
    const index = this.indexOf(value);
    this.counts[index] = (this.counts[index] as number) + 1;
    this.total += 1;
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
  }

  /** Adds every value of `other` (same precision). */
  add(other: Histogram): void {
    if (other.counts.length !== this.counts.length) throw new Error('histograms of different precision');
    for (let index = 0; index < other.counts.length; index += 1)
      this.counts[index] = (this.counts[index] as number) + (other.counts[index] as number);
    this.total += other.total;
    this.sum += other.sum;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  /**
   * The value at percentile `p` (0–100), in µs: the highest value of the bucket holding the sample of rank
   * ceil(p/100 × count), as HdrHistogram reports it (never below the truth), kept within the exact min and max.
   * Undefined when nothing was recorded.
   */
  percentile(p: number): number | undefined {
    if (this.total === 0) return undefined;
    const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * this.total));
    if (rank >= this.total) return this.max;
    let seen = 0;
    for (let index = 0; index < this.counts.length; index += 1) {
      seen += this.counts[index] as number;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, this.highestOf(index)));
    }
    return this.max;
  }

  mean(): number | undefined {
    return this.total === 0 ? undefined : this.sum / this.total;
  }

  private indexOf(value: number): number {
    if (value < this.subCount) return value;
    if (value >= 2 ** (MAX_EXPONENT + 1)) return this.counts.length - 1;
    // The leading bit's position: clz32 for values under 2^32 µs (71 minutes), log2 beyond.
    let shift = (value < 4_294_967_296 ? 31 - Math.clz32(value) : Math.floor(Math.log2(value))) - this.subBits;
    // The top `precision` bits below the leading one pick the sub-bucket (log2 of a large odd value may round up).
    let top = Math.floor(value / 2 ** shift);
    if (top < this.subCount) top = Math.floor(value / 2 ** --shift);
    return this.subCount + shift * this.subCount + (top - this.subCount);
  }

  /** The highest value a bucket holds. */
  private highestOf(index: number): number {
    if (index < this.subCount) return index;
    const shift = Math.floor((index - this.subCount) / this.subCount);
    const sub = (index - this.subCount) % this.subCount;
    return (this.subCount + sub + 1) * 2 ** shift - 1;
  }
}
