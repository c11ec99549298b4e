/**
 * The suite's own choices, for every check of both roles, in one place: where a probe stands around an edge of the
 * spec, how a scenario scripts its answers, and how long cai listens; where a sender's judgement draws the line is
 * the sender model's latitude (src/spec/model/sender-latitude.ts). The spec's numbers themselves (the 300 s window,
 * 256 KB, 120 characters, the §7 statuses) are in src/spec; these only say how the suite probes and judges them.
 * Each is named in docs/conformance.md ("Tolerances").
 */

// --- Probes of a receiver (cai sends) ---------------------------------------------------------------------------

/** Seconds beyond (or within) the §5.5 window used by the window checks: well clear of the edge. */
export const WINDOW_MARGIN_SECONDS = 60;

/**
 * Where within a second of cai's clock the probes one second from the §5.5 edge are sent. The target reads the
 * timestamp against its own clock, which cai knows to the second (the `Date` header); one second ticking over between
 * cai's build and the target's reading would move the probe across the edge. A timestamp 301 s in the past is sent in
 * the second half of cai's second, so that the target's second is never an earlier one; 301 s in the future at its
 * very start, so that the target's second is never a later one; the 300 s probes in the middle. Against a target
 * whose clock differs from cai's by a second or more (or sends no `Date`), the edge cases are not judged.
 */
export const WINDOW_EDGE_FRACTION = { past: 0.6, future: 0.05, inside: 0.5 } as const;

/** How far from the sent timestamp the signature of the "other timestamp" probe is made (§5.2, §5.4). */
export const OTHER_TIMESTAMP_SKEW_SECONDS = 7;

/** Simultaneous deliveries of one event_id in a concurrency round, and rounds: a check-then-insert race shows up in one. */
export const CONCURRENT_DELIVERIES = 8;
export const CONCURRENT_ROUNDS = 3;

/**
 * The memory of repeats (§6.1: a retry never creates a second record, whenever it comes): an event_id is sent again
 * after this many other documents, and as the run ends, at least this long after it was accepted (a default run lasts
 * longer; a short one waits). A receiver that keeps only the last few ids, or forgets them after a cache time-to-live
 * shorter than that, answers the late repeat as new. The wait against `--mock` is shorter: the reference receiver
 * forgets nothing, and a run against it stays under three seconds.
 */
export const DEDUPE_MEMORY_OTHERS = 64;
export const DEDUPE_MEMORY_WAIT_MS = 10_000;
export const MOCK_DEDUPE_MEMORY_WAIT_MS = 1_200;

/** How long a request sent with `Expect: 100-continue` waits for the interim answer before it sends its body anyway. */
export const EXPECT_CONTINUE_WAIT_MS = 1_000;

/** Requests in the bounded burst of the rate-cap check, sent in waves of this many. */
export const RATE_BURST_LIMIT = 400;
export const RATE_WAVE_SIZE = 20;

/** A target clock further off than this gets a warning (the window is ±300 s, §5.5). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * 429 answers honoured per probe (waited for and sent again, re-signed) before the 429 itself is the answer: as
 * many as fit in RATE_LIMITED_BUDGET_MS. A receiver whose cap is shared by the whole run (8 checks at once, one of
 * them sending 64 documents in a row) keeps a probe waiting for many windows; a count alone ran a correct
 * receiver's probes out of retries and judged its 429.
 */
export const MAX_429_RETRIES = 100;

/** The longest a probe keeps honouring 429s, waits included; past it the 429 is the answer. */
export const RATE_LIMITED_BUDGET_MS = 120_000;

/** The longest `Retry-After` a probe waits for; a longer one is not waited out, and the check it bears on is not judged. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

// --- Scripts of a sender's answers (cai receives) ---------------------------------------------------------------

/** retry-5xx: answers of 5xx in a row before the 202; five give five waits, enough to see them grow (§7). */
export const FAILURES_BEFORE_ACCEPT = 5;

/** retry-429: the `Retry-After` cai sends with its 429 in a sender run, in seconds (§7). */
export const RETRY_AFTER_SECONDS = 2;

/**
 * retry-429-date: the `Retry-After` as an HTTP-date (RFC 9110 §10.2.3) at least this many seconds ahead, on the next
 * whole second (a date has no fractions): a wait of 2 to 3 s.
 */
export const RETRY_AFTER_DATE_SECONDS = 2;

/** The `Retry-After` the callback listener of an Interface A run sends with its 429: shorter, the run waits for it. */
export const CALLBACK_RETRY_AFTER_SECONDS = 1;

// --- Judgements of a sender ------------------------------------------------------------------------------------

// How early a retry may come, how the growth of backoff is judged, how far apart a fresh signature shows: the sender
// model's latitude (src/spec/model/sender-latitude.ts), each with the clause that leaves it open.

// --- How long cai listens ---------------------------------------------------------------------------------------

/** `--wait`: how long one delivery may take to settle (from its first attempt), and how long a scenario waits for a first one. */
export const DEFAULT_WAIT_MS = 60_000;
export const DEFAULT_MANUAL_WAIT_MS = 5 * 60_000;

/**
 * `--observe`: after the last attempt of a scenario, how long cai keeps listening for one more (a retry of a
 * final answer, which must not come, or the next document of the sender). With `--mock` on Interface A, the
 * reference provider retries after 50 ms, and half a second is plenty.
 */
export const DEFAULT_OBSERVE_MS = 2_000;
export const MOCK_OBSERVE_MS = 500;

/** `--callback-wait`: how long an Interface A run waits for the events of one job. */
export const DEFAULT_CALLBACK_WAIT_MS = 30_000;

/** At a scenario's end, how long the trigger may take to exit by itself before cai stops it. */
export const TRIGGER_EXIT_GRACE_MS = 1_000;

/** Bytes of the trigger's output kept (the end of it), for the report when no attempt came. */
export const TRIGGER_OUTPUT_BYTES = 16 * 1024;
