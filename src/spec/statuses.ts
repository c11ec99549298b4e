/**
 * §7, the status table of Interface B, as data: each status, the condition the spec gives for it, and the client
 * action. The sender's retry policy, the send output, the mocks' 401 reasons, the conformance expectations and
 * the OpenAPI document all read it here. Plain data, no zod, so `cai sign` can import it.
 */

export type ClientAction =
  /** 202: nothing to do. */
  | 'none'
  /** 400, 401, 413: do not retry. */
  | 'do-not-retry'
  /** 429: retry after the number in `Retry-After`. */
  | 'retry-after'
  /** 5xx: retry with exponential backoff for up to 24 hours (§8). */
  | 'backoff';

export interface StatusRule {
  /** `202`, `400` … or `5xx` for the whole 500–599 range. */
  status: '202' | '400' | '401' | '413' | '429' | '5xx';
  /** The spec's "Condition" column. */
  condition: string;
  /** The spec's "Client action" column. */
  clientAction: string;
  action: ClientAction;
  /** Advice for a person reading a sender's output, with the spec section. */
  advice: string;
}

/** §7, row by row. */
export const STATUS_TABLE: readonly StatusRule[] = [
  {
    status: '202',
    condition: 'Event accepted, or discarded as a duplicate',
    clientAction: 'None.',
    action: 'none',
    advice: '§7: accepted',
  },
  {
    status: '400',
    condition: 'Invalid schema',
    clientAction: 'Do not retry. Correct the body.',
    action: 'do-not-retry',
    advice: '§7: invalid schema: do not retry; correct the body',
  },
  {
    status: '401',
    condition: 'Invalid signature, timestamp outside the window, unrecognised provider, or unauthorised origin',
    clientAction: 'Do not retry. Check credential, clock and registered origin.',
    action: 'do-not-retry',
    advice:
      '§7: invalid signature, timestamp outside the window, unrecognised provider or unauthorised origin: check the secret, the clock and the registered egress address',
  },
  {
    status: '413',
    condition: 'Body larger than 256 KB',
    clientAction: 'Do not retry. Reduce the event.',
    action: 'do-not-retry',
    advice: '§7: body larger than 256 KB: reduce it',
  },
  {
    status: '429',
    condition: 'Request cap reached',
    clientAction: 'Retry after the number in the Retry-After header.',
    action: 'retry-after',
    advice: '§7: request cap reached: retry after Retry-After',
  },
  {
    status: '5xx',
    condition: 'Temporary unavailability',
    clientAction: 'Retry with exponential backoff for up to 24 hours.',
    action: 'backoff',
    advice: '§7: temporary unavailability: retry with exponential backoff for up to 24 hours',
  },
];

/** The §7 row for a status, when the table names it (any 500–599 is the `5xx` row). */
export function statusRule(status: number): StatusRule | undefined {
  const key = status >= 500 && status < 600 ? '5xx' : String(status);
  return STATUS_TABLE.find((rule) => rule.status === key);
}

/** How a sender treats an answer's status (§6.5, §7). */
export type StatusClass =
  /** 2xx: §6.5, any 2xx means accepted. */
  | 'accepted'
  /** 3xx: never followed; the URL is wrong or the receiver moved. */
  | 'redirect'
  /** 429: wait Retry-After, then retry. */
  | 'rate-limited'
  /** 5xx: exponential backoff (§7, §8). */
  | 'retryable'
  /** 400, 401, 413 and every other status: do not retry. */
  | 'rejected';

export function classifyStatus(status: number): StatusClass {
  if (status >= 200 && status < 300) return 'accepted';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 429) return 'rate-limited';
  if (status >= 500 && status < 600) return 'retryable';
  return 'rejected';
}

/** A 4xx that rejects without retry: every 4xx but 429 (§7; §4.1 leaves Interface A's error statuses open). */
export function isRejection(status: number): boolean {
  return status >= 400 && status < 500 && status !== 429;
}

/**
 * §7's 401 conditions as the stable reason codes the reference receivers answer with: a signature that is
 * missing or wrong, a timestamp outside the §5.5 window, an unknown `X-CAI-Provider` (§5.6) or `X-CAI-Source`
 * (§4.1), an unregistered origin (§5.7).
 */
export const UNAUTHORISED_REASONS = [
  'missing_signature',
  'invalid_signature',
  'timestamp_outside_window',
  'unknown_provider',
  'unknown_source',
  'origin_not_allowed',
] as const;
export type UnauthorisedReason = (typeof UNAUTHORISED_REASONS)[number];

/**
 * The 401 reasons about the signature itself (§5.2-§5.5: missing, not matching, outside the window), a subset of
 * UNAUTHORISED_REASONS: the ones a signature diagnosis can explain, unlike an unknown provider, source or origin.
 */
export const SIGNATURE_REASONS: ReadonlySet<string> = new Set<UnauthorisedReason>([
  'missing_signature',
  'invalid_signature',
  'timestamp_outside_window',
]);

/** The 401 reason for a failed signature verification (the `reason` of `verify()`, §5). */
export function unauthorisedReasonOf(verifyReason: string): UnauthorisedReason {
  switch (verifyReason) {
    case 'timestamp_too_old':
    case 'timestamp_in_future':
      return 'timestamp_outside_window';
    case 'missing_signature':
    case 'missing_timestamp':
      return 'missing_signature';
    default:
      return 'invalid_signature';
  }
}
