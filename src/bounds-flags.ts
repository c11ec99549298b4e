/**
 * The largest value of each flag that takes a number or a duration (docs/limits.md, "Flag values"): past it, a
 * usage error naming the flag and the bound, never a value quietly changed.
 */
export const FLAG_BOUNDS = {
  /** Every duration flag: a day is more than any wait needs (§7, §8 retry for 24 h), and fits Node's timers. */
  durationMs: 24 * 3_600_000,
  /** `verify --window`: a day either side of now; verify an older capture at its own time with `--now`. */
  windowSeconds: 86_400,
  /** `--max-attempts`, and `mock platform --fail-first`: far more than a day of §7 backoff makes. */
  attempts: 1_000,
  /** `sample --count`: a batch at its cap (a million events of about 250 bytes). */
  count: 1_000_000,
  /** `conformance run --max-failures`: more than the checks of a run (a few hundred). */
  maxFailures: 10_000,
  /** `--concurrency`: documents or checks in flight at once. */
  concurrency: 256,
  /**
   * `mock provider --speed`: the factor a conversation's delays are divided by. At the least, its longest step (2 min)
   * still waits within the day a duration flag may take, and fits Node's timers (which turn a longer wait into 1 ms);
   * at the most, every step is far below a millisecond already.
   */
  speed: { least: 0.01, most: 1_000_000 },
  /**
   * `report --since`/`--until` as a duration ago (`7d`): 100 years, older than any log the mocks wrote; an earlier
   * point is a date. Past it the point would fall outside what a Date holds (±273 790 years).
   */
  agoDays: 36_500,
  /**
   * `mock --dedupe-capacity`: more event_ids than the 1024 MiB of ids a dedupe index holds (about 37 bytes each at
   * the shortest measured, MOCK_LOG_CAPS in src/bounds.ts); past that the byte cap forgets first anyway.
   */
  dedupeCapacity: 100_000_000,
  /**
   * A rate (`send-event`/`send-job --rate`, `mock platform --rate-limit`), in requests a second: at most `load`'s
   * (src/load/bounds.ts), at least one an hour, so the pause between two stays within a duration flag's bound.
   */
  ratePerSecond: 100_000,
  ratePerHourLeast: 1,
  /**
   * `--provider`, `--test-provider`, `--source` and the profile's values for them: an identifier issued at onboarding
   * (§1), sent as a header on every request; far longer than any code, far shorter than a receiver's headers.
   */
  identityCharacters: 256,
} as const;
