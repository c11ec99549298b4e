import { timingSafeEqual } from 'node:crypto';
import { SIGNATURE_PREFIX, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { signatureDigest, type RawBody } from './sign.js';

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

/** Whether an X-CAI-Timestamp value has the form §4.1/§4.2 give it (and verify() accepts). */
export function isTimestampText(text: string): boolean {
  return TIMESTAMP_PATTERN.test(text);
}

/** The headers as verify() reads them, once presence and format are checked. */
export interface CheckedHeaders {
  secrets: (string | Uint8Array)[];
  timestampText: string;
  timestamp: number;
  ageSeconds: number;
  /** The 32 bytes the signature header carries (hex-decoded after the prefix). */
  received: Buffer;
}

/**
 * The signature headers of a request, checked by verifyHeaders (presence, format, window): everything verifyBody
 * needs besides the body, so that a receiver checks the headers once, before it reads the body, and only computes
 * the HMAC afterwards.
 */
export class SignedHeaders {
  /** @internal */
  constructor(
    readonly checked: CheckedHeaders,
    readonly windowSeconds: number,
  ) {}
}

/**
 * The checks of verify() that need no body, in its order: a secret, presence and format of both headers (§5.3,
 * §5.4), then the window (§5.5). When they fail, the result verify() gives, without `signatureMatches` (which
 * needs the body): a receiver answers these before it reads the body. When they pass, the checked headers, for
 * verifyBody.
 */
export function verifyHeaders(input: Omit<VerifyInput, 'rawBody'>): VerifyResult | SignedHeaders {
  const checked = checkHeaders(input);
  if ('valid' in checked) return checked;
  const windowSeconds = input.windowSeconds ?? SIGNATURE_WINDOW_SECONDS;
  return windowFailure(checked, windowSeconds, 'unknown') ?? new SignedHeaders(checked, windowSeconds);
}

/**
 * verify()'s result for headers verifyHeaders passed and the body exactly as received (§5.2): the HMAC compared in
 * constant time with each secret (§5.5, §5.9). The same result verify() gives for the same input.
 */
export function verifyBody(headers: SignedHeaders, rawBody: RawBody): VerifyResult {
  const { checked, windowSeconds } = headers;
  return bodyVerdict(
    checked,
    findMatchingSecret(checked.secrets, checked.timestampText, rawBody, checked.received),
    windowSeconds,
  );
}

function failure(
  reason: VerifyReason,
  message: string,
  windowSeconds: number,
  extra: Partial<VerifyResult> = {},
): VerifyResult {
  return { valid: false, reason, message, windowSeconds, ...extra };
}

function checkHeaders(input: Omit<VerifyInput, 'rawBody'>): CheckedHeaders | VerifyResult {
  const windowSeconds = input.windowSeconds ?? SIGNATURE_WINDOW_SECONDS;
  const secrets = normaliseSecrets(input.secrets);
  if (secrets.length === 0) return failure('no_secret', 'no non-empty secret to verify with', windowSeconds);
  const signature = typeof input.signature === 'string' ? input.signature : undefined;
  const timestampText =
    typeof input.timestamp === 'number'
      ? String(input.timestamp)
      : typeof input.timestamp === 'string'
        ? input.timestamp
        : undefined;
  if (signature === undefined || signature === '')
    return failure('missing_signature', 'the signature header is missing or empty', windowSeconds);
  if (timestampText === undefined || timestampText === '')
    return failure('missing_timestamp', 'the timestamp header is missing or empty', windowSeconds);
  if (!isTimestampText(timestampText)) {
    return failure('malformed_timestamp', 'the timestamp is not an integer number of unix seconds', windowSeconds);
  }
  if (!SIGNATURE_PATTERN.test(signature)) {
    return failure(
      'malformed_signature',
      `the signature is not "${SIGNATURE_PREFIX}" followed by 64 lowercase hex characters`,
      windowSeconds,
    );
  }
  const timestamp = Number(timestampText);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  // 64 lowercase hex characters (checked above): exactly 32 bytes.
  return {
    secrets,
    timestampText,
    timestamp,
    ageSeconds: now - timestamp,
    received: Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'hex'),
  };
}

/** The §5.5 verdict on the timestamp, once the headers are well-formed; undefined inside the window. */
function windowFailure(
  checked: CheckedHeaders,
  windowSeconds: number,
  matchedSecretIndex: number | undefined | 'unknown',
): VerifyResult | undefined {
  const { timestamp, ageSeconds } = checked;
  const extra =
    matchedSecretIndex === 'unknown'
      ? { timestamp, ageSeconds }
      : { timestamp, ageSeconds, signatureMatches: matchedSecretIndex !== undefined };
  const [reason, how]: [VerifyReason, string] | [] =
    ageSeconds > windowSeconds
      ? ['timestamp_too_old', `${ageSeconds} s old`]
      : -ageSeconds > windowSeconds
        ? ['timestamp_in_future', `${-ageSeconds} s in the future`]
        : [];
  if (reason === undefined) return undefined;
  return failure(reason, `the timestamp is ${how}, outside the ${windowSeconds} s window`, windowSeconds, extra);
}

/**
 * Verifies a request signature (§5). Never throws: every outcome is a returned result.
 * Order: presence, format, window (§5.5), then a constant-time comparison against each secret.
 */
export function verify(input: VerifyInput): VerifyResult {
  const windowSeconds = input.windowSeconds ?? SIGNATURE_WINDOW_SECONDS;
  const checked = checkHeaders(input);
  if ('valid' in checked) return checked;
  const matchedSecretIndex = findMatchingSecret(
    checked.secrets,
    checked.timestampText,
    input.rawBody,
    checked.received,
  );
  return (
    windowFailure(checked, windowSeconds, matchedSecretIndex) ?? bodyVerdict(checked, matchedSecretIndex, windowSeconds)
  );
}

/** The verdict on well-formed headers inside the window, once the HMAC is compared. */
function bodyVerdict(
  checked: CheckedHeaders,
  matchedSecretIndex: number | undefined,
  windowSeconds: number,
): VerifyResult {
  const { timestamp, ageSeconds } = checked;
  if (matchedSecretIndex === undefined) {
    return failure(
      'signature_mismatch',
      'the signature does not match the body and timestamp with any given secret',
      windowSeconds,
      { timestamp, ageSeconds },
    );
  }
  return {
    valid: true,
    reason: 'ok',
    message: 'signature valid',
    matchedSecretIndex,
    windowSeconds,
    timestamp,
    ageSeconds,
  };
}

function normaliseSecrets(secrets: VerifyInput['secrets']): (string | Uint8Array)[] {
  const list = typeof secrets === 'string' || secrets instanceof Uint8Array ? [secrets] : [...secrets];
  return list.filter((secret) => secret.length > 0);
}

/** Compares against every secret, in constant time for each (§5.5), and returns the first that matched. */
function findMatchingSecret(
  secrets: (string | Uint8Array)[],
  timestampText: string,
  rawBody: RawBody,
  received: Buffer,
): number | undefined {
  let matched: number | undefined;
  for (let index = 0; index < secrets.length; index += 1) {
    const expected = signatureDigest(secrets[index] as string | Uint8Array, timestampText, rawBody);
    // Both are 32 bytes (the format check above); the guard keeps timingSafeEqual from throwing regardless.
    if (expected.length === received.length && timingSafeEqual(expected, received) && matched === undefined)
      matched = index;
  }
  return matched;
}
