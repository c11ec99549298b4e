import { createHmac } from 'node:crypto';
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
 * HMAC-SHA256(secret, timestamp + "." + raw_body) (§5.2), the 32 bytes: the signed string fed in two parts,
 * never copied into one buffer (the hot path of the mocks and the sender).
 */
export function signatureDigest(secret: string | Uint8Array, timestamp: number | string, rawBody: RawBody): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/**
 * §5.3: `sha256=` + lowercase hex of HMAC-SHA256(secret, timestamp + "." + raw_body).
 * The body is taken as bytes and never decoded or re-serialised (§5.2).
 */
export function sign(secret: string | Uint8Array, timestamp: number | string, rawBody: RawBody): string {
  return SIGNATURE_PREFIX + signatureDigest(secret, timestamp, rawBody).toString('hex');
}
