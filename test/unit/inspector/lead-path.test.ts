/**
 * A lead's path segment: text that gives a usable segment is percent-encoded and decodes back; the rest (empty,
 * `.`, `..`, over 1 024 characters encoded) is `%h` and the SHA-256 of its UTF-16 code units, as node:crypto has it.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLead, encodeLead, isLeadDigest } from '../../../src/inspector/lead-path.js';

const sha256OfCodeUnits = (text: string) => {
  const bytes = Buffer.alloc(text.length * 2);
  for (let index = 0; index < text.length; index++) bytes.writeUInt16BE(text.charCodeAt(index), index * 2);
  return createHash('sha256').update(bytes).digest('hex');
};

describe('encodeLead', () => {
  it('names by digest what gives no usable segment: empty, `.`, `..`, too long', () => {
    for (const lead of ['', '.', '..', '一'.repeat(2000), 'x'.repeat(1025)]) {
      expect(encodeLead(lead)).toBe(`%h${sha256OfCodeUnits(lead)}`);
      expect(isLeadDigest(encodeLead(lead))).toBe(true);
    }
    expect(encodeLead('...')).toBe('...');
    expect(encodeLead('x'.repeat(1024))).toBe('x'.repeat(1024));
  });

  it('gives a segment of at most 1 090 characters, never a dot segment, that decodes back or is a digest (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constant('.'),
            fc.constant('一'),
            fc.constant('\ud800'),
            fc.string({ unit: 'binary', maxLength: 1 }),
          ),
          maxLength: 1200,
        }),
        (lead) => {
          const segment = encodeLead(lead);
          expect(segment.length).toBeLessThanOrEqual(66 + 1024);
          expect(['', '.', '..']).not.toContain(segment);
          if (isLeadDigest(segment)) expect(segment).toBe(`%h${sha256OfCodeUnits(lead)}`);
          else expect(decodeLead(segment)).toBe(lead);
        },
      ),
      { numRuns: 100 },
    );
  });
});
