import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/spec/constants.js';
import { validateBody, validateDocument } from '../../src/spec/validate.js';
import { duplicateKeys } from '../../src/spec/json-syntax.js';
import { sampleEvent, sampleJob } from '../../src/spec/sample.js';

const job = () => sampleJob();
const codes = (issues: { path: string; code: string }[]) => issues.map((issue) => `${issue.path}:${issue.code}`);

describe('validateDocument', () => {
  it('accepts a sample job and says it is a job', () => {
    const verdict = validateDocument(job());
    expect(verdict).toMatchObject({ kind: 'job', valid: true, errors: [] });
  });

  it('reports a missing required field with its path', () => {
    const doc = job();
    delete (doc.contact as Record<string, unknown>).phone_e164;
    const verdict = validateDocument(doc);
    expect(verdict.valid).toBe(false);
    expect(verdict.errors).toEqual([
      { path: 'contact.phone_e164', code: 'required', message: 'required field is missing', expected: 'a string' },
    ]);
  });

  it('reports a bad format with expected and received', () => {
    const doc = { ...job(), contact: { name: 'A', phone_e164: '0612345678' } };
    const [issue] = validateDocument(doc).errors;
    expect(issue).toMatchObject({ path: 'contact.phone_e164', code: 'format', received: '"0612345678"' });
    expect(issue?.message).toBe('not an E.164 telephone number');
  });

  it('treats null in an optional field as an error (omit it instead)', () => {
    const verdict = validateDocument({ ...sampleEvent('conversation.message'), text: null });
    expect(codes(verdict.errors)).toEqual(['text:null']);
  });

  it('accepts unknown fields and lists them as warnings only with strict', () => {
    const doc = { ...sampleEvent('job.closed'), extra: 1 };
    expect(validateDocument(doc)).toMatchObject({ valid: true, warnings: [] });
    const strict = validateDocument(doc, { strict: true });
    expect(strict.valid).toBe(true);
    expect(codes(strict.warnings)).toEqual(['extra:unknown_field']);
  });

  it('lists unknown nested job fields under strict', () => {
    const doc = job();
    (doc.contact as Record<string, unknown>).nickname = 'Liv';
    expect(codes(validateDocument(doc, { strict: true }).warnings)).toContain('contact.nickname:unknown_field');
  });

  it('warns, never errs, where the spec says "not shown"', () => {
    const booked = sampleEvent('appointment.booked');
    delete booked.scheduled_at;
    const verdict = validateDocument(booked);
    expect(verdict.valid).toBe(true);
    expect(codes(verdict.warnings)).toEqual(['scheduled_at:usually_present']);
    const message = validateDocument({ event: 'conversation.message', event_id: 'e1' });
    expect(message.valid).toBe(true);
    expect(codes(message.warnings)).toContain('text:usually_present');
  });

  it('enforces the 120-character event_id in code points (§8)', () => {
    const ok = { ...sampleEvent('job.closed'), event_id: '😀'.repeat(120) };
    expect(validateDocument(ok).valid).toBe(true);
    const long = { ...ok, event_id: 'a'.repeat(121) };
    expect(validateDocument(long).errors).toEqual([
      expect.objectContaining({ path: 'event_id', code: 'too_long', received: '121 characters' }),
    ]);
  });

  it('rejects an unknown event type', () => {
    const verdict = validateDocument({ event: 'appointment.attended', event_id: 'x' });
    expect(verdict).toMatchObject({ kind: 'event', eventType: 'appointment.attended', valid: false });
    expect(codes(verdict.errors)).toEqual(['event:unknown_event_type']);
  });

  it('checks enums, integers and minimums', () => {
    const verdict = validateDocument({ ...sampleEvent('job.closed'), outcome: 'booked', attempts: 1.5 });
    expect(codes(verdict.errors)).toEqual(['outcome:enum', 'attempts:not_integer']);
    expect(codes(validateDocument({ ...sampleEvent('job.closed'), attempts: -1 }).errors)).toEqual([
      'attempts:minimum',
    ]);
  });

  it('checks branch_code against a catalog', () => {
    const catalog = [{ branch_code: 'BR-001', name: 'Centre' }];
    expect(validateDocument(sampleJob({ branchCode: 'BR-001' }), { catalog }).valid).toBe(true);
    const verdict = validateDocument(sampleJob({ branchCode: 'BR-999' }), { catalog });
    expect(verdict.errors).toEqual([
      expect.objectContaining({ path: 'branch_code', code: 'unknown_branch', expected: 'one of: BR-001' }),
    ]);
    expect(validateDocument(sampleEvent('appointment.booked', { branchCode: 'BR-9' }), { catalog }).valid).toBe(false);
  });

  it('decides the kind by shape, or as told', () => {
    expect(validateDocument({ provider_job_id: 'j', assigned_number_e164: '+447700900123' }).kind).toBe('ack');
    expect(validateDocument({ ok: true, duplicate: true }).kind).toBe('duplicate-ack');
    expect(validateDocument({ ok: true, duplicate: false }).valid).toBe(false);
    expect(validateDocument({ hello: 1 })).toMatchObject({ kind: 'unknown', valid: false });
    expect(validateDocument(sampleEvent('job.closed'), { kind: 'job' })).toMatchObject({ kind: 'job', valid: false });
    expect(validateDocument([1], { kind: 'event' })).toMatchObject({ kind: 'event', valid: false });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.constantFrom('auto', 'job', 'event', 'ack', 'duplicate-ack'), (value, kind) => {
        const verdict = validateDocument(value, { kind, strict: true });
        expect(verdict.valid).toBe(verdict.errors.length === 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('validateBody', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('validates a body', () => {
    expect(validateBody(bytes(JSON.stringify(sampleEvent('conversation.message')))).valid).toBe(true);
  });

  it('warns of a name given twice in one object, wherever the object is, and of nothing else', () => {
    const event = JSON.stringify(sampleEvent('conversation.message'));
    const twice = `${event.slice(0, -1)},"event_id" : "other","data":[{"a":1},{"a":1,"\\u0061":2,"a":3}]}`;
    const verdict = validateBody(bytes(twice), { repeatedNames: true });
    expect(verdict.valid).toBe(true);
    expect(verdict.warnings.filter((issue) => issue.code === 'duplicate_key')).toEqual([
      expect.objectContaining({ path: 'event_id', message: expect.stringMatching(/^given 2 times in one object/) }),
      expect.objectContaining({ path: 'data[1].a', message: expect.stringMatching(/^given 3 times in one object/) }),
    ]);
    // An escaped quote before a colon inside a string looks like a name's end: the full pass finds no repeat.
    const quoted = `${event.slice(0, -1)},"note":"he said \\": yes","other":{"a":"\\":"}}`;
    expect(JSON.parse(quoted)).toMatchObject({ note: 'he said ": yes' });
    expect(
      validateBody(bytes(quoted), { repeatedNames: true }).warnings.filter((issue) => issue.code === 'duplicate_key'),
    ).toEqual([]);
    // Not asked (a receiver's hot path, a stream without --strict): not scanned.
    expect(validateBody(bytes(twice)).warnings).toEqual([]);
    expect(validateBody(bytes(event), { repeatedNames: true }).warnings).toEqual([]);
  });

  it('finds no repeated name in JSON that JSON.stringify wrote, with or without the parsed value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(duplicateKeys(text, JSON.parse(text))).toEqual([]);
        expect(duplicateKeys(text)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('reports JSON syntax errors with line and column', () => {
    const verdict = validateBody(bytes('{\n  "event": "job.closed",\n  "event_id": tru\n}'));
    expect(verdict.valid).toBe(false);
    expect(verdict.errors[0]).toMatchObject({ code: 'not_json' });
    expect(verdict.errors[0]?.message).toBe('not JSON: found a letter where a value was expected at line 3, column 15');
  });

  it('reports empty input and trailing garbage', () => {
    expect(validateBody(bytes('')).errors[0]?.message).toBe('not JSON: empty input at line 1, column 1');
    expect(validateBody(bytes('{} x')).errors[0]?.message).toBe(
      'not JSON: found a letter after the JSON value at line 1, column 4',
    );
  });

  it('refuses invalid UTF-8 and a byte order mark', () => {
    expect(validateBody(Buffer.from([0x7b, 0xff, 0x7d])).errors[0]?.code).toBe('not_utf8');
    expect(validateBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('{}')])).errors[0]?.code).toBe(
      'not_json',
    );
  });

  it('refuses an event over 256 KB (§8), only warns for a job', () => {
    const event = { ...sampleEvent('conversation.message'), text: 'x'.repeat(MAX_BODY_BYTES) };
    const verdict = validateBody(bytes(JSON.stringify(event)));
    expect(codes(verdict.errors)).toEqual([':too_large']);
    const bigJob = { ...sampleJob(), brief: { notes: 'x'.repeat(MAX_BODY_BYTES) } };
    const jobVerdict = validateBody(bytes(JSON.stringify(bigJob)));
    expect(jobVerdict.valid).toBe(true);
    expect(codes(jobVerdict.warnings)).toContain(':too_large');
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (raw) => {
        expect(typeof validateBody(raw).valid).toBe('boolean');
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(validateBody(bytes(text)).errors.some((issue) => issue.code === 'not_json')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
