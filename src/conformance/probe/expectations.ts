/**
 * The answers the receiver checks expect, by status. §7 gives Interface B's statuses; §4.1 leaves Interface A's
 * error statuses open, so there any 4xx rejection counts (`isRejection`, src/spec/statuses.ts); a 5xx never does.
 */
import { isRejection } from '../../spec/statuses.js';
import type { Exchange } from '../evidence.js';

export interface StatusExpectation {
  /** Statuses that pass. */
  statuses?: readonly number[];
  /** Any 2xx passes (§6.5: any 2xx means accepted). */
  any2xx?: boolean;
  /** Any 4xx rejection passes (Interface A: §4.1 leaves the error statuses open). */
  any4xx?: boolean;
  /** Shown as "expected". */
  describe: string;
}

export function statusMatches(exchange: Exchange, expectation: StatusExpectation): boolean {
  const status = exchange.status;
  if (status === undefined) return false;
  if (expectation.any4xx && isRejection(status)) return true;
  if (expectation.any2xx && status >= 200 && status < 300) return true;
  return (expectation.statuses ?? []).includes(status);
}

/**
 * Accepted: any 2xx. §6.5 counts any 2xx as accepted on Interface B; §4.2 and §4.1 name 202, and only the checks
 * of that status itself (B-ACCEPT-009, a `should`; A-ACCEPT-001, §4.1's `must`) expect it exactly, so a receiver
 * that answers 200 fails those and nothing else.
 */
export const ACCEPTED: StatusExpectation = { any2xx: true, describe: '2xx (accepted)' };

/** The status §4.1 and §4.2 name for an accepted document. */
export const ACCEPTED_202: StatusExpectation = { statuses: [202], describe: '202 (accepted)' };

export function isAccepted(exchange: Exchange): boolean {
  return statusMatches(exchange, ACCEPTED);
}

/** §7: 401 for an invalid signature, a timestamp outside the window, an unrecognised provider or origin. */
export const UNAUTHORISED: StatusExpectation = { statuses: [401], describe: '401 (rejected: authentication)' };

/**
 * A missing or malformed header: §7 names 401 for an invalid signature; a receiver may also call a missing
 * header a bad request. Either rejects without retry; anything else (2xx, 5xx) fails.
 */
export const HEADER_REJECTED: StatusExpectation = { statuses: [401, 400], describe: '401 (or 400): rejected' };

/** §7: 400 for an invalid schema; never 5xx. */
export const BAD_REQUEST: StatusExpectation = { statuses: [400], describe: '400 (rejected: invalid schema)' };

/** §7 and §8: 413 for a body over 256 KB. */
export const TOO_LARGE: StatusExpectation = { statuses: [413], describe: '413 (body too large)' };

/** Interface A (§4.1): any 4xx. */
export const REJECTED: StatusExpectation = { any4xx: true, describe: '4xx (rejected)' };
