/** canonicalJson and sameJson: the same JSON value whatever its keys' order, at any depth, without recursion. */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameJson } from '../../src/spec/json.js';

describe('canonicalJson', () => {
  it('writes objects with their keys sorted, arrays in order, and JSON.stringify of everything else', () => {
    expect(canonicalJson({ b: [1, 'x', null, true], a: { d: -0, c: 1.5 } })).toBe(
      '{"a":{"c":1.5,"d":-0},"b":[1,"x",null,true]}',
    );
    expect(canonicalJson('\ud800')).toBe('"\\ud800"');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
  });

  it('tells values apart exactly as isDeepStrictEqual does, whatever the order of their keys', () => {
    const shuffled = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(shuffled)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([key, inner]) => [key, shuffled(inner)]),
            )
          : value;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameJson(a, shuffled(a))).toBe(true);
        expect(sameJson(a, b)).toBe(isDeepStrictEqual(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('takes a value nested 100 000 levels deep, where a recursive walk overflows the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(canonicalJson(deep)).toHaveLength(200_000);
    expect(sameJson(deep, JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toBe(true);
    expect(sameJson(deep, JSON.parse(`${'['.repeat(99_999)}1${']'.repeat(99_999)}`))).toBe(false);
  });
});
