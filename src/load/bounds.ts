/**
 * The bounds of `cai load`: every input has one, and so has every structure a run keeps, so that a run of any
 * length and any target costs bounded memory. Stated in docs/load.md ("Bounds"); its deadlines in src/bounds.ts.
 */
import { DEADLINES, FLAG_BOUNDS } from '../bounds.js';

export const LOAD_BOUNDS = {
  /** Arrivals a second at most (`--rate`, a ramp's ends), as every rate flag. One machine sends some thousands a second. */
  maxRatePerSecond: FLAG_BOUNDS.ratePerSecond,
  /** The whole run at most, ramps included (`--duration`, `--ramp`). */
  maxDurationMs: 24 * 60 * 60 * 1000,
  /** `--slo-scale` at most: §8's targets times 1000 (a first contact within 3.5 days instead of 5 min). */
  maxSloScale: 1000,
  /** Ramps before the steady phase. */
  maxRamps: 16,
  /** Requests in flight at once at most (`--connections`: one per connection). */
  maxConnections: 10_000,
  defaultConnections: 64,
  /** `--threshold` given at most. */
  maxThresholds: 64,
  /** Characters of one `--threshold`. */
  maxThresholdCharacters: 200,
  /** Share of repeats at most (`--repeat`): the rest are new documents, some of which later repeats need. */
  maxRepeatShare: 0.9,
  /** Documents accepted as new kept to be repeated: the most recent ones. */
  repeatPool: 4096,
  /** Bytes of an answer's body kept (the §2.13 acknowledgment, a rejection's reason); the rest is read and dropped. */
  answerBodyBytes: 4096,
  /** An answer's body past this is not read further: the request is counted as answered and its connection closed. */
  answerReadBytes: 1024 * 1024,
  /** Distinct rejection reasons counted by name (status and `error` code); the others are counted as `other`. */
  rejectionReasons: 32,
  /** Characters of a rejection reason kept. */
  reasonCharacters: 64,
  /** Distinct statuses with their own latency histogram (for `http_req_duration{status:…}`). */
  statusHistograms: 32,
  /** Distinct transport failure codes counted by name. */
  failureCodes: 16,
  /** Windows of the timeline (the `--html` charts); longer runs get wider windows. */
  timelineWindows: 600,
  /**
   * The run's deadline is its last phase, then one request's time-out, then this much (the pool notices an overdue
   * answer within a quarter of the time-out, at most a second): whatever is still in flight then fails `timeout`.
   */
  runGraceMs: DEADLINES.loadRun.ms,
  /** Jobs whose first callback is awaited at once (`--callbacks`); past it, jobs are sent but not timed. */
  callbackJobs: 100_000,
} as const;
