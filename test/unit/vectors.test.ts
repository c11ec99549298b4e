import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/signing/sign.js';
import { verify } from '../../src/signing/verify.js';

interface Vector {
  name: string;
  secret: string;
  timestamp: string;
  now: number;
  body?: string;
  body_base64?: string;
  body_file?: string;
  signature: string;
  expected: { valid: boolean; reason: string };
}

const fixtures = new URL('../../fixtures/', import.meta.url);
const document = JSON.parse(readFileSync(new URL('vectors.json', fixtures), 'utf8')) as {
  window_seconds: number;
  vectors: Vector[];
};

function bodyOf(vector: Vector): Buffer {
  if (vector.body_file !== undefined) return readFileSync(new URL(vector.body_file, fixtures));
  if (vector.body_base64 !== undefined) return Buffer.from(vector.body_base64, 'base64');
  return Buffer.from(vector.body ?? '', 'utf8');
}

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe('fixtures/vectors.json (known answers computed with openssl)', () => {
  it('holds at least 12 vectors, valid and invalid, with unique names', () => {
    expect(document.vectors.length).toBeGreaterThanOrEqual(12);
    expect(new Set(document.vectors.map((v) => v.name)).size).toBe(document.vectors.length);
    expect(document.vectors.some((v) => v.expected.valid)).toBe(true);
    expect(document.vectors.some((v) => !v.expected.valid)).toBe(true);
  });

  it.each(document.vectors.map((v) => [v.name, v] as const))(
    '%s: verify gives the expected verdict',
    (_name, vector) => {
      const result = verify({
        secrets: [vector.secret],
        signature: vector.signature,
        timestamp: vector.timestamp,
        rawBody: bodyOf(vector),
        now: vector.now,
        windowSeconds: document.window_seconds,
      });
      expect({ valid: result.valid, reason: result.reason }).toEqual(vector.expected);
    },
  );

  it.each(document.vectors.filter((v) => v.expected.valid).map((v) => [v.name, v] as const))(
    '%s: sign reproduces the signature',
    (_name, vector) => {
      expect(sign(vector.secret, vector.timestamp, bodyOf(vector))).toBe(vector.signature);
    },
  );

  it.skipIf(!hasOpenssl).each(document.vectors.filter((v) => v.expected.valid).map((v) => [v.name, v] as const))(
    '%s: openssl recomputes the same signature',
    (_name, vector) => {
      const input = Buffer.concat([Buffer.from(`${vector.timestamp}.`), bodyOf(vector)]);
      const out = spawnSync('openssl', ['dgst', '-sha256', '-hmac', vector.secret], { input });
      expect(`sha256=${out.stdout.toString().trim().split('= ').pop()}`).toBe(vector.signature);
    },
  );
});
