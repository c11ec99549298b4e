import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTime, parseUsualTime } from '../../src/report/log.js';

const FIRST = Date.parse('0000-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');
const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Times shaped like the mocks' (and near misses): every field drawn over and past its range. */
const timeText = fc
  .record({
    year: fc.oneof(fc.constantFrom(1000, 1970, 2024, 2026, 9999), fc.integer({ min: 0, max: 9999 })),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.constantFrom('', '.000', '.123', '.999', '.1', '.12', '.1234', '.abc'),
    zone: fc.constantFrom('Z', 'z', '+00:00', '-00:00', '+01:00', '-05:30', '+23:59', '+24:00', '-12:60', '+0100', ''),
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction, zone }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}${zone}`,
  );

describe('parseTime of the report log', () => {
  it('reads the usual times exactly as Date.parse does, and leaves every other text to it', () => {
    fc.assert(
      fc.property(fc.oneof(timeText, fc.string({ maxLength: 30 })), (text) => {
        const fast = parseUsualTime(text);
        if (fast !== undefined) expect(fast).toBe(Date.parse(text));
        const ms = Date.parse(text);
        // A log's times are of years 0000 to 9999: Date.parse also reads "10000" as the year 10000.
        expect(parseTime(text)).toBe(Number.isFinite(ms) && text !== '' && ms >= FIRST && ms <= LAST ? ms : undefined);
      }),
      { numRuns: 20_000 },
    );
    expect(parseTime('10000')).toBeUndefined();
    expect(parseTime('9999')).toBe(Date.parse('9999'));
  });

  it('takes the fast way for the times the mocks write', () => {
    for (const text of [
      '2026-11-01T08:00:00.000Z',
      '2026-11-01T08:00:00Z',
      '2026-11-01T09:00:00+01:00',
      '2026-11-01T03:00:00.250-05:00',
    ]) {
      expect(parseUsualTime(text)).toBe(Date.parse(text));
    }
    for (const text of [
      '2026-02-29T00:00:00Z',
      '2026-11-01T24:00:00Z',
      '2026-11-01T08:00:00.1Z',
      '2026-11-01',
      ' 2026-11-01T08:00:00Z',
    ]) {
      expect(parseUsualTime(text)).toBeUndefined();
    }
    expect(parseTime('2026-02-29T00:00:00Z')).toBe(Date.parse('2026-02-29T00:00:00Z'));
    expect(parseTime('not a time')).toBeUndefined();
    expect(parseTime(42)).toBeUndefined();
  });
});
