/**
 * §7: "Retry after the number in the `Retry-After` header". The header's two forms (RFC 9110 §10.2.3):
 * delay-seconds, or an HTTP-date. Read here once for the sender, the conformance session and its checks.
 */

const DELAY_SECONDS = /^[0-9]+$/;
// IMF-fixdate, the HTTP-date form senders must produce, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$/;

/**
 * `Retry-After` as milliseconds from `nowMs`. Undefined when absent or unusable; a date in the past gives 0.
 * Lenient on dates (any form `Date.parse` reads), as a robust client is.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Whether a receiver's `Retry-After` is well formed: delay-seconds or an IMF-fixdate, strictly. */
export function isWellFormedRetryAfter(value: string | undefined): boolean {
  if (value === undefined) return false;
  const text = value.trim();
  return DELAY_SECONDS.test(text) || IMF_FIXDATE.test(text);
}
