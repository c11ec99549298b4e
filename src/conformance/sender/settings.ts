/**
 * The sender suite's own choices: how its scenarios script the answers and where its judgements draw the line.
 * The spec's numbers themselves (the 300 s window, 256 KB, 120 characters, the §7 statuses) are in src/spec; these
 * only say how the scenarios probe them. Each is named in docs/conformance.md ("Judging a sender").
 */

/** retry-5xx: answers of 503 in a row before the 202; five give five waits, enough to see them grow (§7). */
export const FAILURES_BEFORE_ACCEPT = 5;

/** retry-429: the `Retry-After` cai sends with its 429, in seconds (§7: "the number in the Retry-After header"). */
export const RETRY_AFTER_SECONDS = 2;

/**
 * A retry this much earlier than `Retry-After` still counts as waiting for it. A sender's timer starts from its
 * event loop's idea of now, which a busy machine leaves behind the clock: a correct wait of 2 s has been seen to
 * arrive 1.73 s after the answer. A sender that ignores Retry-After retries at its own backoff, far earlier.
 */
export const RETRY_AFTER_TOLERANCE_MS = 500;

/**
 * The waits after consecutive 5xx grow (§7: exponential backoff) when the last two add up to at least this many
 * times the two shortest of the first three. Exponential backoff, even with up to 50 % jitter, gives 4× or more
 * over five waits; constant waits give 1×. Sums of two, and the shortest early ones, keep a busy machine (which
 * only ever draws a wait out) from deciding.
 */
export const BACKOFF_GROWTH_FACTOR = 2;

/**
 * Two attempts of one delivery sent at least this far apart must carry different timestamps, the later one later:
 * a retry signed afresh (§5.5), not the first attempt's headers sent again. Timestamps are whole seconds, so a
 * second apart always shows; the other half second allows for one attempt taking longer on its way than the other.
 */
export const FRESH_SIGNATURE_SPAN_MS = 1_500;

/**
 * The longest cai's event loop may be held up during a scenario whose waits are judged (the growth of the backoff
 * waits): beyond it a measured wait may be drawn out by cai itself, and the check says so instead of judging.
 */
export const TIMING_LAG_LIMIT_MS = 100;

/** §8's service-level target for message delivery, used for the time to the first attempt on both interfaces. */
export const FIRST_ATTEMPT_TARGET_SECONDS = 60;

/** Default bound per scenario for the expected attempts: with --trigger, and for a person sending by hand. */
export const DEFAULT_WAIT_MS = 60_000;
export const DEFAULT_MANUAL_WAIT_MS = 5 * 60_000;

/** Default time cai keeps listening after a final answer (400, 401, 413, 2xx) for an attempt that must not come. */
export const DEFAULT_OBSERVE_MS = 2_000;

/** At a scenario's end, how long the trigger may take to exit by itself before cai stops it. */
export const TRIGGER_EXIT_GRACE_MS = 1_000;

/** Bytes of an attempt's body kept; a body over it is judged by its size alone (four times the §8 limit). */
export const MAX_KEPT_BODY_BYTES = 4 * 256 * 1024;

/** Bytes of the trigger's output kept (the end of it), for the report when no attempt came. */
export const TRIGGER_OUTPUT_BYTES = 16 * 1024;
