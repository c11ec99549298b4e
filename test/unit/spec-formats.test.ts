import { describe, expect, it } from 'vitest';
import { isDateTimeWithOffset, isE164, isLanguageTag } from '../../src/spec/formats.js';

describe('E.164 (§2.1)', () => {
  it.each(['+447700900123', '+12025550123', '+34600000000', '+123456789012345', '+12'])('accepts %s', (value) => {
    expect(isE164(value)).toBe(true);
  });
  it.each([
    '447700900123',
    '+0447700900123',
    '+1234567890123456',
    '+44 7700 900123',
    '+44-7700',
    '+',
    '+1',
    '',
    '+44770090012a',
    '＋447700900123',
  ])('rejects %j', (value) => {
    expect(isE164(value)).toBe(false);
  });
});

describe('ISO 8601 date-time with offset (§2.1)', () => {
  it.each([
    '2026-11-22T13:00:00Z',
    '2026-11-22T13:00:00+01:00',
    '2026-11-22T13:00:00.123-05:30',
    '2024-02-29T00:00:00Z',
    '2000-02-29T23:59:59+14:00',
    '2026-12-31T23:59:59.123456789Z',
  ])('accepts %s', (value) => {
    expect(isDateTimeWithOffset(value)).toBe(true);
  });
  it.each([
    ['no offset', '2026-11-22T13:00:00'],
    ['30 February', '2026-02-30T10:00:00Z'],
    ['29 February, not a leap year', '2026-02-29T10:00:00Z'],
    ['29 February, century not divisible by 400', '1900-02-29T10:00:00Z'],
    ['31 April', '2026-04-31T10:00:00Z'],
    ['month 13', '2026-13-01T10:00:00Z'],
    ['hour 24', '2026-11-22T24:00:00Z'],
    ['minute 60', '2026-11-22T13:60:00Z'],
    ['leap second', '2026-12-31T23:59:60Z'],
    ['no seconds', '2026-11-22T13:00Z'],
    ['space separator', '2026-11-22 13:00:00Z'],
    ['offset without colon', '2026-11-22T13:00:00+0100'],
    ['offset hour 24', '2026-11-22T13:00:00+24:00'],
    ['date only', '2026-11-22'],
    ['lowercase z', '2026-11-22T13:00:00z'],
    ['unix seconds', '1763816400'],
  ])('rejects %s', (_label, value) => {
    expect(isDateTimeWithOffset(value)).toBe(false);
  });
});

describe('BCP 47 language tags (RFC 5646 syntax)', () => {
  it.each([
    'en',
    'es-ES',
    'zh-Hant-TW',
    'sr-Latn-RS',
    'es-419',
    'de-CH-1901',
    'en-US-x-twain',
    'x-private',
    'i-klingon',
    'EN-gb',
    'zh-min-nan',
    'en-a-bbb-x-a-ccc',
    'sl-rozaj-biske',
    'zh-yue-HK',
  ])('accepts %s', (value) => {
    expect(isLanguageTag(value)).toBe(true);
  });
  it.each([
    '',
    'e',
    'english_language',
    'en-toolongvariant',
    'en_US',
    'en-',
    '-en',
    'en--US',
    'en-US-',
    '123',
    'en-a',
    'en-x',
    'toolongtag',
    'en-US-x-abcdefghi',
    'es-ES ',
    'en-a-b',
  ])('rejects %j', (value) => {
    expect(isLanguageTag(value)).toBe(false);
  });
});
