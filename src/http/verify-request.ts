import type { IncomingMessage } from 'node:http';
import { Headers, MAX_BODY_BYTES } from '../spec/constants.js';
import { verify, type VerifyResult } from '../signing/verify.js';
import { headerValue, readBody } from './server.js';

export interface VerifyRequestOptions {
  /** One secret, or several during a rotation overlap (§5.9). */
  secrets: string | readonly string[];
  /**
   * The raw body, when a framework has already read the stream (for example `express.raw()`): it must be the
   * bytes exactly as received, never a re-serialised parse (§5.2).
   */
  rawBody?: Uint8Array;
  /** Half-width of the validity window; 300 s by default (§5.5). */
  windowSeconds?: number;
  /** Current time in unix seconds; defaults to the clock. */
  now?: number;
  /** Bodies above this are not read (§8: 256 KB); defaults to 262 144 bytes. */
  maxBodyBytes?: number;
}

export type VerifyRequestResult =
  | (VerifyResult & { rawBody: Buffer })
  | { valid: false; reason: 'body_too_large' | 'body_unreadable'; message: string; rawBody?: undefined };

/**
 * Verifies a `node:http`-style request (§5): reads the body as raw bytes (unless given), takes
 * `X-CAI-Signature` and `X-CAI-Timestamp` from the headers, and returns the verdict with the exact bytes, so the
 * caller parses what was verified. Never throws.
 */
export async function verifyRequest(
  request: IncomingMessage,
  options: VerifyRequestOptions,
): Promise<VerifyRequestResult> {
  let rawBody: Buffer;
  if (options.rawBody !== undefined) {
    rawBody = Buffer.from(options.rawBody);
  } else {
    const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
    const read = await readBody(request, limit);
    if (!read.ok) {
      return read.reason === 'too_large'
        ? { valid: false, reason: 'body_too_large', message: `the body is larger than ${limit} bytes (§8)` }
        : { valid: false, reason: 'body_unreadable', message: 'the body could not be read in full' };
    }
    rawBody = read.body;
  }
  const result = verify({
    secrets: typeof options.secrets === 'string' ? [options.secrets] : options.secrets,
    signature: headerValue(request, Headers.signature),
    timestamp: headerValue(request, Headers.timestamp),
    rawBody,
    now: options.now,
    windowSeconds: options.windowSeconds,
  });
  return { ...result, rawBody };
}
