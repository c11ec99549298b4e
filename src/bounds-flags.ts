/**
 * The largest value of each flag that takes a number or a duration (docs/limits.md, "Flag values"): past it, a
 * usage error naming the flag and the bound, never a value quietly changed.
 */
export const FLAG_BOUNDS = {
  /** Every duration flag: a day is more than any wait needs (§7, §8 retry for 24 h), and fits Node's timers. */
  durationMs: 24 * 3_600_000,
  /** `verify --window`: a day either side of now; verify an older capture at its own time with `--now`. */
  windowSeconds: 86_400,
  /** `--max-attempts`: far more than a day of §7 backoff makes. */
  attempts: 1_000,
  /** `sample --count`: a batch at its cap (a million events of about 250 bytes). */
  count: 1_000_000,
  /** `--concurrency`: documents or checks in flight at once. */
  concurrency: 256,
} as const;
