import { describe, expect, it } from 'vitest';
import { dedupeKeyOf, narrowedFormatIssues, signedTimestamp } from '../../../src/mock/receiver-faults.js';

const faults = (...names: string[]) => new Set(names);

describe('the receiver faults both mocks share', () => {
  it('compare event_ids exactly unless a dedupe fault folds them', () => {
    const id = 'Evt-Café ';
    expect(dedupeKeyOf(id, faults())).toBe(id);
    expect(dedupeKeyOf(id, faults('dedupe-case-insensitive'))).toBe('evt-café ');
    expect(dedupeKeyOf('cafe\u0301', faults('dedupe-normalises-unicode'))).toBe('caf\u00e9');
    expect(dedupeKeyOf(id, faults('dedupe-trims-event-id'))).toBe('Evt-Café');
  });

  it('sign the timestamp as sent unless signs-parsed-timestamp reads it as a number', () => {
    expect(signedTimestamp(faults())).toBeUndefined();
    const parsed = signedTimestamp(faults('signs-parsed-timestamp'));
    expect(parsed?.('01700000000')).toBe('1700000000');
    expect(parsed?.('+1700000000')).toBe('1700000000');
    expect(parsed?.('2026-11-22T10:00:00Z')).toBe('2026-11-22T10:00:00Z');
  });

  it('find the narrower formats by field name, anywhere in the document', () => {
    const job = {
      origin: { captured_at: '2026-11-22T10:00:00.5Z' },
      contact: { phone_e164: '+6834002', language: 'zh-Hant-TW' },
    };
    expect(narrowedFormatIssues(job, faults())).toEqual([]);
    const paths = (...names: string[]) => narrowedFormatIssues(job, faults(...names)).map((issue) => issue.path);
    expect(paths('date-time-without-fraction', 'date-time-numeric-offset-only')).toEqual([
      'origin.captured_at',
      'origin.captured_at',
    ]);
    expect(paths('date-time-positive-offset-only')).toEqual([]);
    expect(paths('e164-min-10-digits', 'e164-max-14-digits')).toEqual(['contact.phone_e164']);
    expect(paths('language-two-part-only')).toEqual(['contact.language']);
    expect(
      narrowedFormatIssues(
        { occurred_at: '2026-11-22T10:00:00-05:00', from_number_e164: '+493012345678901' },
        faults('date-time-positive-offset-only', 'e164-max-14-digits'),
      ).map((issue) => issue.path),
    ).toEqual(['occurred_at', 'from_number_e164']);
  });
});
