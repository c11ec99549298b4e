import { timingSafeEqual } from 'node:crypto';
import { SIGNATURE_PREFIX, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { hmacHex, signedPayload, type RawBody } from './sign.js';

export type VerifyReason =
  | 'ok'
  | 'missing_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'malformed_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'no_secret';

export interface VerifyInput {
  /** One secret, or several during a rotation overlap (§5.9); any of them may match. */
  secrets: string | Uint8Array | readonly (string | Uint8Array)[];
  /** The `X-CAI-Signature` header value as received. */
  signature: string | null | undefined;
  /** The `X-CAI-Timestamp` header value as received. */
  timestamp: string | number | null | undefined;
  /** The body exactly as transmitted (§5.2). */
  rawBody: RawBody;
  /** Current time in unix seconds; defaults to the clock. */
  now?: number;
  /** Half-width of the validity window; defaults to 300 s (§5.5). */
  windowSeconds?: number;
}

export interface VerifyResult {
  valid: boolean;
  reason: VerifyReason;
  message: string;
  /** 0-based position of the secret that matched, when valid. */
  matchedSecretIndex?: number;
  /** The parsed timestamp, when well-formed. */
  timestamp?: number;
  /** now - timestamp in seconds (negative: the timestamp is in the future). */
  ageSeconds?: number;
  windowSeconds: number;
  /** For window failures only: whether the signature itself would have matched. */
  signatureMatches?: boolean;
}

const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;
// §4.1/§4.2: `<unix_seconds>`, integer. Capped at 12 digits so absurd values stay exact in a double.
const TIMESTAMP_PATTERN = /^[0-9]{1,12}$/;

/**
 * Verifies a request signature (§5). Never throws: every outcome is a returned result.
 * Order: presence, format, window (§5.5), then a constant-time comparison against each secret.
 */
export function verify(input: VerifyInput): VerifyResult {
  const windowSeconds = input.windowSeconds ?? SIGNATURE_WINDOW_SECONDS;
  const secrets = normaliseSecrets(input.secrets);
  const fail = (reason: VerifyReason, message: string, extra: Partial<VerifyResult> = {}): VerifyResult => ({
    valid: false,
    reason,
    message,
    windowSeconds,
    ...extra,
  });

  if (secrets.length === 0) return fail('no_secret', 'no non-empty secret to verify with');
  const signature = typeof input.signature === 'string' ? input.signature : undefined;
  const timestampText =
    typeof input.timestamp === 'number' ? String(input.timestamp) : typeof input.timestamp === 'string' ? input.timestamp : undefined;
  if (signature === undefined || signature === '') return fail('missing_signature', 'the signature header is missing or empty');
  if (timestampText === undefined || timestampText === '') return fail('missing_timestamp', 'the timestamp header is missing or empty');
  if (!TIMESTAMP_PATTERN.test(timestampText)) {
    return fail('malformed_timestamp', 'the timestamp is not an integer number of unix seconds');
  }
  if (!SIGNATURE_PATTERN.test(signature)) {
    return fail('malformed_signature', `the signature is not "${SIGNATURE_PREFIX}" followed by 64 lowercase hex characters`);
  }

  const timestamp = Number(timestampText);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  const ageSeconds = now - timestamp;
  const payload = signedPayload(timestampText, input.rawBody);
  const received = Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'utf8');
  const matchedSecretIndex = findMatchingSecret(secrets, payload, received);
  const timing = { timestamp, ageSeconds };

  if (ageSeconds > windowSeconds) {
    return fail('timestamp_too_old', `the timestamp is ${ageSeconds} s old, outside the ${windowSeconds} s window`, {
      ...timing,
      signatureMatches: matchedSecretIndex !== undefined,
    });
  }
  if (-ageSeconds > windowSeconds) {
    return fail('timestamp_in_future', `the timestamp is ${-ageSeconds} s in the future, outside the ${windowSeconds} s window`, {
      ...timing,
      signatureMatches: matchedSecretIndex !== undefined,
    });
  }
  if (matchedSecretIndex === undefined) {
    return fail('signature_mismatch', 'the signature does not match the body and timestamp with any given secret', timing);
  }
  return { valid: true, reason: 'ok', message: 'signature valid', matchedSecretIndex, windowSeconds, ...timing };
}

function normaliseSecrets(secrets: VerifyInput['secrets']): (string | Uint8Array)[] {
  const list = typeof secrets === 'string' || secrets instanceof Uint8Array ? [secrets] : [...secrets];
  return list.filter((secret) => secret.length > 0);
}

/** Compares against every secret, in constant time for each (§5.5), and returns the first that matched. */
function findMatchingSecret(secrets: (string | Uint8Array)[], payload: Buffer, received: Buffer): number | undefined {
  let matched: number | undefined;
  secrets.forEach((secret, index) => {
    const expected = Buffer.from(hmacHex(secret, payload), 'utf8');
    // Lengths are equal by the format check above; the guard keeps timingSafeEqual from throwing regardless.
    if (expected.length === received.length && timingSafeEqual(expected, received) && matched === undefined) {
      matched = index;
    }
  });
  return matched;
}
