import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { SIGNATURE_PREFIX } from '../spec/constants.js';

export type RawBody = Uint8Array | string;

/** The signed string of §5.2: timestamp, one literal dot, then the raw body exactly as transmitted. */
export function signedPayload(timestamp: number | string, rawBody: RawBody): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]);
}

/** Lowercase hex of HMAC-SHA256(secret, payload), without the prefix. */
export function hmacHex(secret: string | Uint8Array, payload: Uint8Array): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/**
 * A string secret as a KeyObject, made once per secret: createHmac with a string prepares the key again on every
 * call, which a sender or a mock pays per request. Same bytes (UTF-8), same MAC. A few secrets at most are in use.
 */
const keys = new Map<string, KeyObject>();
function keyOf(secret: string | Uint8Array): KeyObject | Uint8Array {
  if (typeof secret !== 'string') return secret;
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= 32) keys.clear();
    key = createSecretKey(secret, 'utf8');
    keys.set(secret, key);
  }
  return key;
}

/**
 * HMAC-SHA256(secret, timestamp + "." + raw_body) (§5.2), the 32 bytes: the signed string fed in two parts,
 * never copied into one buffer (the hot path of the mocks and the sender).
 */
export function signatureDigest(secret: string | Uint8Array, timestamp: number | string, rawBody: RawBody): Buffer {
  return createHmac('sha256', keyOf(secret)).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/**
 * §5.3: `sha256=` + lowercase hex of HMAC-SHA256(secret, timestamp + "." + raw_body).
 * The body is taken as bytes and never decoded or re-serialised (§5.2).
 */
export function sign(secret: string | Uint8Array, timestamp: number | string, rawBody: RawBody): string {
  return SIGNATURE_PREFIX + signatureDigest(secret, timestamp, rawBody).toString('hex');
}

/** X-CAI-Timestamp (§4, §5.4): the Unix time in seconds of a clock reading, as text; the same second's reused (thousands a second). */
let lastSecond = Number.NaN;
let lastSecondText = '';
export function unixSeconds(nowMs: number): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = String(second);
  }
  return lastSecondText;
}
