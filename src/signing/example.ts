import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SIGNATURE_PREFIX } from '../spec/constants.js';
import { parseJsonText } from '../spec/json-text.js';
import { isObject } from '../spec/json.js';
import { hmacHex, signedPayload } from './sign.js';

/**
 * The example shipped with the package, resolved from this module's location: src/signing/, dist/signing/ and
 * dist/bundle/ all stand two levels below the package's root.
 */
export const SHIPPED_EXAMPLE = fileURLToPath(new URL('../../fixtures/signature-example.json', import.meta.url));

/**
 * A worked signature example (§5.10), as shipped in `fixtures/signature-example.json` or published by a
 * deployment: `{secret, timestamp, body | body_base64, signature}`.
 */
export interface SignatureExample {
  secret: string;
  timestamp: string;
  body: Buffer;
  signature: string;
  description?: string;
}

export type ParseExampleResult = { ok: true; example: SignatureExample } | { ok: false; message: string };

export function parseSignatureExample(text: string): ParseExampleResult {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { ok: false, message: `not JSON: ${parsed.failure}` };
  const data = parsed.value;
  if (!isObject(data)) return { ok: false, message: 'not a JSON object' };
  const { secret, timestamp, signature, body, body_base64: bodyBase64, description } = data;
  if (typeof secret !== 'string' || secret === '') return { ok: false, message: '"secret" must be a non-empty string' };
  if (typeof timestamp !== 'string' && typeof timestamp !== 'number')
    return { ok: false, message: '"timestamp" must be a string or number' };
  if (typeof signature !== 'string')
    return { ok: false, message: '"signature" must be a string such as "sha256=<hex>"' };
  let bodyBytes: Buffer;
  if (typeof body === 'string') bodyBytes = Buffer.from(body, 'utf8');
  else if (typeof bodyBase64 === 'string') bodyBytes = Buffer.from(bodyBase64, 'base64');
  else return { ok: false, message: 'give the body as "body" (a UTF-8 string) or "body_base64"' };
  return {
    ok: true,
    example: {
      secret,
      timestamp: String(timestamp),
      body: bodyBytes,
      signature,
      description: typeof description === 'string' ? description : undefined,
    },
  };
}

export interface ExampleReproduction {
  reproduced: boolean;
  expected: string;
  computed: string;
  steps: { label: string; value: string }[];
}

/** Recomputes the example's signature step by step (§5.2, §5.3). The secret is described, never shown. */
export function reproduceExample(example: SignatureExample): ExampleReproduction {
  const payload = signedPayload(example.timestamp, example.body);
  const hex = hmacHex(example.secret, payload);
  const computed = SIGNATURE_PREFIX + hex;
  const preview = payload.toString('utf8');
  const steps: ExampleReproduction['steps'] = [
    { label: 'timestamp (X-CAI-Timestamp)', value: example.timestamp },
    {
      label: 'body',
      value: `${example.body.length} bytes, sha256 ${createHash('sha256').update(example.body).digest('hex')}`,
    },
    {
      label: 'signed string (timestamp + "." + raw body)',
      value: preview.length > 160 ? `${preview.slice(0, 157)}...` : preview,
    },
    { label: 'secret', value: `${Buffer.byteLength(example.secret, 'utf8')} bytes (not shown)` },
    { label: 'HMAC-SHA256, lowercase hex', value: hex },
    { label: 'X-CAI-Signature', value: computed },
    { label: 'published signature', value: example.signature },
  ];
  return { reproduced: computed === example.signature, expected: example.signature, computed, steps };
}
