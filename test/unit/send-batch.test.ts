import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runBatch, summarize, type BatchDocument } from '../../src/send/batch.js';
import { existsSync } from 'node:fs';
import { acceptedKeysFromResults, openResultsFile, splitNdjson } from '../../src/send/batch-files.js';
import { contactJobsUrl, type SendResult } from '../../src/http/send.js';
import { eventIdOf } from '../../src/spec/json.js';
import { checkEventAck, checkJobAck } from '../../src/spec/acknowledgment.js';
import type { HttpResponse } from '../../src/http/client.js';

const response = (
  status: number,
  body: string,
  contentType: string | undefined = 'application/json',
): HttpResponse => ({
  status,
  headers: contentType === undefined ? {} : { 'content-type': contentType },
  body: Buffer.from(body),
  latencyMs: 1,
});

describe('contactJobsUrl (§4.1)', () => {
  it('appends /contact-jobs once', () => {
    expect(contactJobsUrl('https://p.example')).toBe('https://p.example/contact-jobs');
    expect(contactJobsUrl('https://p.example/cai/')).toBe('https://p.example/cai/contact-jobs');
    expect(contactJobsUrl('https://p.example/cai/contact-jobs')).toBe('https://p.example/cai/contact-jobs');
  });
});

describe('checkJobAck (§2.3, §4.1)', () => {
  it('accepts the prescribed answer, extra fields included (§9.2)', () => {
    const ack = checkJobAck(
      response(
        202,
        '{"provider_job_id":"pj_1","assigned_number_e164":"+447700900123","extra":1}',
        'application/json; charset=utf-8',
      ),
    );
    expect(ack).toMatchObject({ ok: true, problems: [], providerJobId: 'pj_1', assignedNumberE164: '+447700900123' });
  });
  it('names every deviation', () => {
    expect(
      checkJobAck(response(200, '{"provider_job_id":"pj_1","assigned_number_e164":"+447700900123"}')).problems,
    ).toEqual(['status 200: §4.1 answers an accepted job with 202']);
    expect(checkJobAck(response(202, '')).problems).toContain(
      'the body is empty: §2.3 requires provider_job_id and assigned_number_e164',
    );
    expect(checkJobAck(response(202, '[1]')).problems).toContain(
      'the body is not a JSON object: §2.3 requires an object with provider_job_id and assigned_number_e164',
    );
    expect(checkJobAck(response(202, '{"provider_job_id":"","assigned_number_e164":"447700900123"}')).problems).toEqual(
      [
        'provider_job_id is "", not a non-empty string (§2.3)',
        'assigned_number_e164 is "447700900123", not an E.164 number such as +447700900123 (§2.1, §2.3)',
      ],
    );
  });
  it('never throws on any body', () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.integer({ min: 100, max: 599 }), (bytes, status) => {
        const ack = checkJobAck({ status, headers: {}, body: Buffer.from(bytes) });
        return ack.ok === false;
      }),
    );
  });
});

describe('checkEventAck (§2.13, §6.5)', () => {
  it('a first-time 2xx may carry any body or none', () => {
    expect(checkEventAck(response(202, ''))).toMatchObject({ ok: true, duplicate: false });
    expect(checkEventAck(response(200, 'accepted', 'text/plain'))).toMatchObject({ ok: true, duplicate: false });
    expect(checkEventAck(response(202, '{"ok":true}'))).toMatchObject({ ok: true, duplicate: false });
    expect(checkEventAck(response(202, '{"ok":true,"duplicate":false}'))).toMatchObject({ ok: true, duplicate: false });
  });
  it('recognises the duplicate answer', () => {
    expect(checkEventAck(response(202, '{"ok":true,"duplicate":true}'))).toMatchObject({ ok: true, duplicate: true });
  });
  it('rejects duplicate answers outside the §2.13 shape, and JSON that is not', () => {
    expect(checkEventAck(response(200, '{"ok":true,"duplicate":true}')).problems).toEqual([
      'a duplicate is answered with status 202, not 200 (§2.13)',
    ]);
    expect(checkEventAck(response(202, '{"duplicate":true}')).problems).toEqual([
      'a duplicate is answered {ok: true, duplicate: true}; ok is missing (§2.13)',
    ]);
    expect(checkEventAck(response(202, '{"ok":true,"duplicate":"yes"}')).problems).toEqual([
      'duplicate is "yes", not a boolean (§2.13)',
    ]);
    expect(checkEventAck(response(202, '{oops')).ok).toBe(false);
  });
});

describe('splitNdjson', () => {
  it('keeps exact line bytes, skips blank lines, numbers lines from 1, reads event_id', () => {
    const docs = splitNdjson(Buffer.from('{"event_id":"a"}\r\n\n  \n{"event_id": "b", "x": 1}\n{"no":"id"}'));
    expect(docs.map((d) => [d.line, d.body.toString(), d.eventId])).toEqual([
      [1, '{"event_id":"a"}', 'a'],
      [4, '{"event_id": "b", "x": 1}', 'b'],
      [5, '{"no":"id"}', undefined],
    ]);
    expect(docs[0]?.bodySha256).toMatch(/^[0-9a-f]{64}$/);
  });
  it('leaves event ids out when asked', () => {
    expect(splitNdjson(Buffer.from('{"event_id":"a"}'), { eventIds: false })[0]?.eventId).toBeUndefined();
    expect(eventIdOf(Buffer.from('not json'))).toBeUndefined();
  });
});

describe('acceptedKeysFromResults (--resume)', () => {
  it('keeps accepted, duplicate and skipped documents; ignores other lines', () => {
    const text = [
      '{"line":1,"eventId":"a","bodySha256":"h1","verdict":"accepted"}',
      '{"line":2,"eventId":"b","bodySha256":"h2","verdict":"rejected"}',
      '{"line":3,"bodySha256":"h3","verdict":"duplicate"}',
      '{"summary":{}}',
      'garbage',
    ].join('\n');
    const { keys, records, unreadable } = acceptedKeysFromResults(text);
    expect([...keys].sort()).toEqual(['event:a', 'sha256:h1', 'sha256:h3']);
    expect(records).toBe(3);
    expect(unreadable).toBe(2);
  });
});

describe('runBatch', () => {
  const doc = (line: number, extra: Partial<BatchDocument> = {}): BatchDocument => ({
    line,
    body: Buffer.from(`{"event_id":"e${line}"}`),
    eventId: `e${line}`,
    bodySha256: `h${line}`,
    ...extra,
  });
  const accepted = (document: BatchDocument): SendResult => ({
    interface: 'B',
    url: 'http://x',
    verdict: 'accepted',
    eventId: document.eventId,
    delivery: {
      outcome: 'accepted',
      attempts: [],
      elapsedMs: 1,
      interrupted: false,
      response: { status: 202, headers: {}, body: Buffer.alloc(0), latencyMs: 1 },
    },
  });

  it('paces starts to --rate, skips resumed and invalid documents, and records every one', async () => {
    let now = 0;
    const waits: number[] = [];
    const starts: number[] = [];
    const { records, summary } = await runBatch(
      [doc(1), doc(2, { invalid: ['bad'] }), doc(3), doc(4), doc(5)],
      async (document) => {
        starts.push(now);
        return accepted(document);
      },
      {
        concurrency: 1,
        ratePerSecond: 4,
        alreadyAccepted: new Set(['event:e4']),
        clock: () => now,
        sleep: async (ms) => {
          waits.push(ms);
          now += ms;
        },
      },
    );
    expect(starts).toEqual([0, 250, 500]);
    expect(records.map((r) => r.verdict)).toEqual(['accepted', 'invalid', 'accepted', 'skipped', 'accepted']);
    expect(summary).toMatchObject({ total: 5, accepted: 3, invalid: 1, skipped: 1, notSent: 0, interrupted: false });
  });

  it('after a stop, starts nothing new and marks the rest not sent', async () => {
    const stop = new AbortController();
    const sent: number[] = [];
    const { records, summary } = await runBatch(
      [doc(1), doc(2), doc(3), doc(4)],
      async (document) => {
        sent.push(document.line);
        if (document.line === 2) stop.abort();
        return accepted(document);
      },
      { concurrency: 1, stopSignal: stop.signal },
    );
    expect(sent).toEqual([1, 2]);
    expect(records.map((r) => r.verdict)).toEqual(['accepted', 'accepted', 'not-sent', 'not-sent']);
    expect(summary).toMatchObject({ accepted: 2, notSent: 2, interrupted: true });
  });

  it('a stop during a wait for a --rate slot ends the wait: the rest is not sent', async () => {
    const stop = new AbortController();
    const sent: number[] = [];
    // One document an hour: without the stop, the second would wait an hour for its slot.
    const { records, summary } = await runBatch(
      [doc(1), doc(2), doc(3)],
      async (document) => {
        sent.push(document.line);
        setTimeout(() => stop.abort(), 20);
        return accepted(document);
      },
      { concurrency: 1, ratePerSecond: 1 / 3600, stopSignal: stop.signal },
    );
    expect(sent).toEqual([1]);
    expect(records.map((r) => r.verdict)).toEqual(['accepted', 'not-sent', 'not-sent']);
    expect(summary).toMatchObject({ accepted: 1, notSent: 2, interrupted: true });
  });

  it('summarises rejections by status', () => {
    const summary = summarize(
      [
        { line: 1, bodySha256: 'a', verdict: 'rejected', sent: true, attempts: 1, status: 400 },
        { line: 2, bodySha256: 'b', verdict: 'rejected', sent: true, attempts: 1, status: 400 },
        { line: 3, bodySha256: 'c', verdict: 'rejected', sent: true, attempts: 1, status: 202 },
        { line: 4, bodySha256: 'd', verdict: 'failed', sent: true, attempts: 3 },
      ],
      10,
      false,
    );
    expect(summary.rejectedBy).toEqual({ '400': 2, ack: 1 });
    expect(summary).toMatchObject({ rejected: 3, failed: 1, attempts: 6 });
  });
});

describe('sendBatch judges every answer, repeated or not (§2.13)', () => {
  it('a run of answers alike, a duplicate among them, then a broken one twice and a good one again', async () => {
    const { startScriptedServer } = await import('../helpers/scripted-server.js');
    const { sendBatch } = await import('../../src/send/batch.js');
    const server = await startScriptedServer([
      { status: 202, body: { ok: true } },
      { status: 202, body: { ok: true } },
      { status: 202, body: { ok: true, duplicate: true } },
      { status: 202, body: { ok: true } },
      { status: 202, body: { ok: true, duplicate: 'yes' } },
      { status: 202, body: { ok: true, duplicate: 'yes' } },
      { status: 200, body: { ok: true, duplicate: true } },
      { status: 202, body: { ok: true } },
    ]);
    try {
      const documents = splitNdjson(
        Buffer.from(Array.from({ length: 8 }, (_, i) => `{"event_id":"evt_${i}"}`).join('\n')),
      );
      const { records } = await sendBatch(
        { kind: 'event', to: server.url, identity: 'acme', secret: 'whsec_x' },
        documents,
        { retry: { enabled: false } },
        { concurrency: 1 },
      );
      expect(records.map((record) => record.verdict)).toEqual([
        'accepted',
        'accepted',
        'duplicate',
        'accepted',
        'rejected',
        'rejected',
        'rejected',
        'accepted',
      ]);
      expect(records[6]?.problems).toEqual(['a duplicate is answered with status 202, not 200 (§2.13)']);
    } finally {
      await server.close();
    }
  });
});

describe('openResultsFile (--output)', () => {
  // Node calls end()'s callback with a write error a tick before the stream's 'error' event: the failure must be
  // known the moment close() resolves, or a full disk ends the run 0 with the results file incomplete.
  it.skipIf(!existsSync('/dev/full'))('knows a write error as soon as close() resolves', async () => {
    const errors: Error[] = [];
    const file = openResultsFile('/dev/full', undefined, '/', (error) => errors.push(error));
    file.write({ line: 1 } as unknown as Parameters<typeof file.write>[0]);
    await file.close();
    expect(file.failure()?.message).toMatch(/ENOSPC/);
  });
});
