/**
 * parseJsonText refuses a text that cannot start a JSON value without calling JSON.parse: the answer must be the
 * one JSON.parse's failure gave, and every text JSON.parse accepts must still be accepted.
 */
import { describe, expect, it } from 'vitest';
import { describeJsonFailure } from '../../src/spec/json-syntax.js';
import { parseJsonText } from '../../src/spec/json-text.js';

describe('parseJsonText', () => {
  it.each([
    'X: y\r',
    '',
    '   ',
    '\ufeff{}',
    'undefined',
    "{'a':1}",
    ' \u00a0{}',
    '+1',
    '.5',
    'NaN',
    'x'.repeat(10_000),
  ])('refuses %j as JSON.parse does, with the same description', (text) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(parseJsonText(text)).toEqual({ ok: false, failure: describeJsonFailure(text) });
  });

  it.each(['{}', ' \t\r\n[1]', '"a"', '-1', '0', '12e3', 'true', 'false', 'null', '\n{"v":1}'])(
    'accepts %j, as JSON.parse does',
    (text) => {
      expect(parseJsonText(text)).toEqual({ ok: true, value: JSON.parse(text) });
    },
  );

  it('still describes a text that starts as JSON and breaks later', () => {
    const text = '{"v":1,';
    expect(parseJsonText(text)).toEqual({ ok: false, failure: describeJsonFailure(text) });
  });
});
