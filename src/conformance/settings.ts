/**
 * The suite's own choices, shared by the checks of both interfaces: how far from an edge a probe stands, how
 * hard a burst pushes. The spec's numbers themselves (the 300 s window, 256 KB, 120 characters) are in
 * src/spec/constants.ts; these only say where the checks probe around them.
 */

/** Seconds beyond (or within) the §5.5 window used by the window checks: well clear of the edge. */
export const WINDOW_MARGIN_SECONDS = 60;

/** How far from the sent timestamp the signature of the "other timestamp" probe is made (§5.2, §5.4). */
export const OTHER_TIMESTAMP_SKEW_SECONDS = 7;

/** Simultaneous deliveries of one event_id in a concurrency round, and rounds: a check-then-insert race shows up in one. */
export const CONCURRENT_DELIVERIES = 8;
export const CONCURRENT_ROUNDS = 3;

/** Requests in the bounded burst of the rate-cap check, sent in waves of this many. */
export const RATE_BURST_LIMIT = 400;
export const RATE_WAVE_SIZE = 20;

/** A target clock further off than this gets a warning (the window is ±300 s, §5.5). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** The `Retry-After` the callback listener answers a 429 with (§7), and the timer slack allowed on it. */
export const CALLBACK_RETRY_AFTER_SECONDS = 1;
export const RETRY_AFTER_TOLERANCE_MS = 50;

/**
 * How long an event answered 400 is watched for a redelivery (§7: not retried): twice the gap the same provider
 * left before redelivering an event answered 503, plus a margin (a sender that retried 400 like a 5xx would do it
 * within its first backoff), at least the minimum; without a 503 redelivery to measure, the fallback. Never longer
 * than --callback-wait.
 */
export const NOT_RETRIED_MARGIN_MS = 250;
export const NOT_RETRIED_MIN_MS = 500;
export const NOT_RETRIED_FALLBACK_MS = 3000;

/**
 * After a repeated job's first ending event (appointment.booked or job.closed), how much longer its events are
 * gathered, so a second conversation started by the repeat can end too: half the time the first took, at least this.
 */
export const REPEAT_GRACE_MIN_MS = 500;
