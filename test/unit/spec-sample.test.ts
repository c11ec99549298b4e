import { describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { EVENT_TYPES } from '../../src/spec/constants.js';
import { applyOverrides, formatDateTime, parseSetOverride, sampleEvent, sampleJob } from '../../src/spec/sample.js';
import { validateDocument } from '../../src/spec/validate.js';

describe('samples', () => {
  it('every sample job validates without warnings, even strictly', () => {
    for (let i = 0; i < 50; i++) {
      expect(validateDocument(sampleJob(), { kind: 'job', strict: true })).toMatchObject({ valid: true, warnings: [] });
    }
  });

  it.each(EVENT_TYPES)('every sample %s validates without warnings, even strictly', (type) => {
    for (let i = 0; i < 50; i++) {
      expect(validateDocument(sampleEvent(type), { kind: 'event', strict: true })).toMatchObject({
        valid: true,
        eventType: type,
        warnings: [],
      });
    }
  });

  it('uses fresh event ids and the given ids', () => {
    expect(sampleJob().event_id).not.toBe(sampleJob().event_id);
    const event = sampleEvent('conversation.message', { leadId: 'lead-1', providerJobId: 'job-1' });
    expect(event).toMatchObject({ lead_id: 'lead-1', provider_job_id: 'job-1' });
    expect(sampleJob({ callbackUrl: 'http://127.0.0.1:9/x', branchCode: 'B2' })).toMatchObject({
      callback_url: 'http://127.0.0.1:9/x',
      branch_code: 'B2',
    });
  });

  it('formats times with an explicit offset', () => {
    const date = new Date('2026-11-22T13:00:00.000Z');
    expect(formatDateTime(date, 60)).toBe('2026-11-22T14:00:00+01:00');
    expect(formatDateTime(date, -330)).toBe('2026-11-22T07:30:00-05:30');
    expect(formatDateTime(date, 0)).toBe('2026-11-22T13:00:00+00:00');
  });
});

describe('applyOverrides', () => {
  it('sets and unsets dotted paths on a copy', () => {
    const doc = sampleJob();
    const changed = applyOverrides(doc, {
      set: [
        ['contact.name', 'Ana'],
        ['brief.extra.deep', 1],
      ],
      unset: ['city'],
    });
    expect(changed).toMatchObject({ contact: { name: 'Ana' }, brief: { extra: { deep: 1 } } });
    expect(changed).not.toHaveProperty('city');
    expect(doc).toHaveProperty('city');
  });

  it('refuses paths through non-objects and unsets of missing fields', () => {
    expect(() => applyOverrides(sampleJob(), { set: [['city.name', 'x']] })).toThrow(CaiError);
    expect(() => applyOverrides(sampleJob(), { unset: ['contact.nickname'] })).toThrow(/no field contact.nickname/);
    expect(() => applyOverrides(sampleJob(), { set: [['__proto__.x', 1]] })).toThrow(CaiError);
  });

  it('parses --set values as JSON when they are JSON', () => {
    expect(parseSetOverride('attempts=4')).toEqual(['attempts', 4]);
    expect(parseSetOverride('text=null')).toEqual(['text', null]);
    expect(parseSetOverride('contact.name=Ana Sousa')).toEqual(['contact.name', 'Ana Sousa']);
    expect(parseSetOverride('event_id="42"')).toEqual(['event_id', '42']);
    expect(parseSetOverride('a=b=c')).toEqual(['a', 'b=c']);
    expect(() => parseSetOverride('=x')).toThrow(CaiError);
  });
});
