import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { sign } from '../../src/signing/sign.js';
import { SignedHeaders, verify, verifyBody, verifyHeaders } from '../../src/signing/verify.js';

const secretArb = fc.string({ minLength: 1, maxLength: 64 });
const bodyArb = fc.uint8Array({ maxLength: 2048 });
const timestampArb = fc.integer({ min: 0, max: 99_999_999_999 });

describe('sign/verify properties', () => {
  it('sign → verify round-trips for any bytes, secret and timestamp', () => {
    fc.assert(
      fc.property(secretArb, bodyArb, timestampArb, (secret, body, timestamp) => {
        const signature = sign(secret, timestamp, body);
        expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
        const result = verify({
          secrets: [secret],
          signature,
          timestamp: String(timestamp),
          rawBody: body,
          now: timestamp,
        });
        expect(result.valid).toBe(true);
        expect(result.matchedSecretIndex).toBe(0);
      }),
    );
  });

  it('changing any byte of the body fails verification', () => {
    fc.assert(
      fc.property(
        secretArb,
        bodyArb.filter((b) => b.length > 0),
        timestampArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (secret, body, timestamp, at, delta) => {
          const signature = sign(secret, timestamp, body);
          const changed = Uint8Array.from(body);
          const index = at % changed.length;
          changed[index] = ((changed[index] ?? 0) + delta) % 256;
          expect(verify({ secrets: [secret], signature, timestamp, rawBody: changed, now: timestamp }).reason).toBe(
            'signature_mismatch',
          );
        },
      ),
    );
  });

  it('changing the timestamp fails verification', () => {
    fc.assert(
      fc.property(
        secretArb,
        bodyArb,
        timestampArb,
        fc.integer({ min: 1, max: 299 }),
        (secret, body, timestamp, delta) => {
          const signature = sign(secret, timestamp, body);
          expect(
            verify({ secrets: [secret], signature, timestamp: timestamp + delta, rawBody: body, now: timestamp }).valid,
          ).toBe(false);
        },
      ),
    );
  });

  it('changing any hex digit of the signature fails verification', () => {
    fc.assert(
      fc.property(
        secretArb,
        bodyArb,
        timestampArb,
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 15 }),
        (secret, body, timestamp, at, delta) => {
          const signature = sign(secret, timestamp, body);
          const hex = signature.slice(7).split('');
          hex[at] = ((parseInt(hex[at] as string, 16) + delta) % 16).toString(16);
          const result = verify({
            secrets: [secret],
            signature: `sha256=${hex.join('')}`,
            timestamp,
            rawBody: body,
            now: timestamp,
          });
          expect(result.reason).toBe('signature_mismatch');
        },
      ),
    );
  });

  it('never throws on arbitrary header strings', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string()),
        fc.option(fc.string()),
        fc.array(fc.string()),
        bodyArb,
        (signature, timestamp, secrets, body) => {
          const result = verify({ secrets, signature, timestamp, rawBody: body });
          expect(typeof result.valid).toBe('boolean');
          expect(result.valid).toBe(false);
        },
      ),
    );
  });

  it('with several secrets, says which one matched (rotation, §5.9)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(secretArb, { minLength: 2, maxLength: 4 }),
        fc.nat(),
        bodyArb,
        timestampArb,
        (secrets, pick, body, timestamp) => {
          const index = pick % secrets.length;
          const signature = sign(secrets[index] as string, timestamp, body);
          const result = verify({ secrets, signature, timestamp, rawBody: body, now: timestamp });
          expect(result.valid).toBe(true);
          expect(secrets[result.matchedSecretIndex ?? -1]).toBe(secrets[index]);
        },
      ),
    );
  });

  it('signs HMAC-SHA256 over timestamp, a dot and the body bytes, as one buffer would (§5.2, §5.3)', () => {
    fc.assert(
      fc.property(
        fc.oneof(secretArb, fc.uint8Array({ minLength: 1, maxLength: 130 })),
        fc.oneof(bodyArb, fc.string()),
        fc.oneof(timestampArb, fc.string()),
        (secret, body, timestamp) => {
          const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
          const reference = createHmac('sha256', secret)
            .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), bytes]))
            .digest('hex');
          expect(sign(secret, timestamp, body)).toBe(`sha256=${reference}`);
        },
      ),
    );
  });

  it("verifyHeaders gives the verdict of verify on everything but the HMAC, without the body; verifyBody then gives verify's", () => {
    const headerArb = fc.option(
      fc.oneof(
        fc.string(),
        fc.constantFrom('sha256=' + 'ab'.repeat(32), 'sha256=' + 'AB'.repeat(32), '1763900000', '00', ''),
      ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constant('')), { maxLength: 3 }),
        headerArb,
        fc.oneof(headerArb, timestampArb.map(String), timestampArb),
        bodyArb,
        timestampArb,
        fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
        (secrets, signature, timestamp, body, now, windowSeconds) => {
          const input = { secrets, signature, timestamp, now, windowSeconds };
          const full = verify({ ...input, rawBody: body });
          const headers = verifyHeaders(input);
          if (full.valid || full.reason === 'signature_mismatch') {
            expect(headers).toBeInstanceOf(SignedHeaders);
            expect(verifyBody(headers as SignedHeaders, body)).toEqual(full);
          } else {
            const { signatureMatches: _needsTheBody, ...rest } = full;
            expect(headers).toEqual(rest);
          }
        },
      ),
    );
  });
  it("verifyHeaders then verifyBody give verify's verdict on signed requests, each secret of a rotation and a wrong one", () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        fc.nat(3),
        bodyArb,
        timestampArb,
        fc.integer({ min: -400, max: 400 }),
        (secrets, pick, body, timestamp, skew) => {
          const signer = pick < secrets.length ? (secrets[pick] as string) : 'not-one-of-them';
          const input = {
            secrets,
            signature: sign(signer, timestamp, body),
            timestamp: String(timestamp),
            now: timestamp + skew,
          };
          const full = verify({ ...input, rawBody: body });
          const headers = verifyHeaders(input);
          if (headers instanceof SignedHeaders) expect(verifyBody(headers, body)).toEqual(full);
          else expect(full.reason).toMatch(/^timestamp_/);
        },
      ),
    );
  });
  it('signing again with the same secret (its key made once) gives the MAC of a key given afresh, for any secret', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64 }), bodyArb, timestampArb, (secret, body, timestamp) => {
        const reference =
          'sha256=' +
          createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex');
        expect(sign(secret, timestamp, body)).toBe(reference);
        expect(sign(secret, timestamp, body)).toBe(reference);
      }),
    );
  });
});
