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
