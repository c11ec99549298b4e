/** A duration as src/duration.ts writes it (842 ms, 3.4 s, 1 min 5 s, 2 h 1 min), for a test's regular expression. */
export const DURATION_TEXT = '[\\d.]+ (?:ms|s|min|h)(?: \\d+ (?:min|s))*';
