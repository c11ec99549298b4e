import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DurableLog,
  readMockLog,
  recordBytes,
  recordLine,
  scanMockLog,
  type MockLogHead,
  type MockLogRecord,
  type MockLogRecordHead,
} from '../../../src/mock/log.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function head(eventId: string): MockLogRecordHead {
  const { document: _document, ...fields } = record(eventId);
  return fields;
}

/** The line as the log wrote it before issue #17 (a string, the body decoded): the format recordBytes must keep. */
function referenceLine(recordHead: MockLogRecordHead, body: Buffer): string {
  const breaks = body.includes(0x0a) || body.includes(0x0d);
  const document = breaks ? Buffer.from(body.map((byte) => (byte === 0x0a || byte === 0x0d ? 0x20 : byte))) : body;
  const exact = breaks ? `,"body_base64":"${body.toString('base64')}"` : '';
  const { headers, ...fields } = recordHead;
  // The C1 and bidi controls and the line separators JSON.stringify leaves raw, written as \uXXXX escapes.
  const headText = JSON.stringify({ ...fields, body_bytes: body.length, headers })
    .slice(0, -1)
    .replace(
      /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return `${headText},"document":${document.toString('utf8')}${exact}}\n`;
}

function record(eventId: string): MockLogRecord {
  return {
    v: 1,
    received_at: '2026-11-22T13:00:00.000Z',
    space: 'live',
    interface: 'B',
    kind: 'event',
    status: 202,
    verdict: 'accepted',
    provider_code: 'acme',
    event_id: eventId,
    headers: {},
    document: { event: 'job.closed', event_id: eventId },
  };
}

describe('the mock log', () => {
  it('keeps a line torn by a crash, ends it, and goes on with parseable records', async () => {
    const path = join(dir, 'torn.ndjson');
    writeFileSync(path, JSON.stringify(record('e1')) + '\n');
    appendFileSync(path, '{"v":1,"received_at":"2026-11-22T13:00:01.000Z","spa');
    const log = await DurableLog.open(path);
    await log.append(record('e2'));
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('"spa\n');
    const loaded = await readMockLog(path);
    expect(loaded.records.map((r) => r.event_id)).toEqual(['e1', 'e2']);
    expect(loaded.skippedLines).toBe(1);
    expect(loaded.skippedLineNumbers).toEqual([2]);
  });

  it('recovers a complete record written right after a torn one (two writes in flight at a crash)', async () => {
    const path = join(dir, 'glued.ndjson');
    const torn = JSON.stringify(record('torn')).slice(0, 40);
    writeFileSync(path, `${JSON.stringify(record('e1'))}\n${torn}\u0000\u0000\u0000${JSON.stringify(record('e2'))}\n`);
    const loaded = await readMockLog(path);
    expect(loaded.records.map((r) => r.event_id)).toEqual(['e1', 'e2']);
    expect(loaded.skippedLines).toBe(1);
  });

  it('batches concurrent appends and resolves each once written', async () => {
    const path = join(dir, 'batch.ndjson');
    const log = await DurableLog.open(path);
    await Promise.all(Array.from({ length: 200 }, (_, i) => log.append(record(`e${i}`))));
    await log.close();
    expect((await readMockLog(path)).records).toHaveLength(200);
    await expect(log.append(record('late'))).rejects.toThrow('closed');
  });

  it('rejects every append of a batch whose write fails, and writes none of them', async () => {
    const path = join(dir, 'failing.ndjson');
    const log = await DurableLog.open(path);
    // The log's descriptor swapped for one open read-only: its writes fail (EBADF), as on a lost disk.
    const inside = log as unknown as { fd: number };
    const writable = inside.fd;
    inside.fd = openSync(path, 'r');
    const appends = Array.from({ length: 50 }, (_, i) =>
      log.appendWithRawDocument(head(`f${i}`), Buffer.from(`{"event_id":"f${i}"}`)),
    );
    const settled = await Promise.allSettled(appends);
    expect(settled.map((outcome) => outcome.status)).toEqual(appends.map(() => 'rejected'));
    expect(readFileSync(path, 'utf8')).toBe('');
    closeSync(writable);
    await log.close();
  });

  it('fails the whole batch when the write throws instead of calling back, and still closes', async () => {
    const path = join(dir, 'throwing.ndjson');
    const log = await DurableLog.open(path);
    const inside = log as unknown as { fd: number };
    const writable = inside.fd;
    inside.fd = -1; // fs.write refuses it synchronously (ERR_OUT_OF_RANGE)
    const appends = Array.from({ length: 20 }, (_, i) =>
      log.appendWithRawDocument(head(`t${i}`), Buffer.from(`{"event_id":"t${i}"}`)),
    );
    const settled = await Promise.allSettled(appends);
    expect(settled.map((outcome) => outcome.status)).toEqual(appends.map(() => 'rejected'));
    inside.fd = writable;
    await log.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('closes once however often close is called, at once or later', async () => {
    const path = join(dir, 'closing.ndjson');
    const log = await DurableLog.open(path);
    const written = log.appendWithRawDocument(head('c1'), Buffer.from('{"event_id":"c1"}'));
    await Promise.all([log.close(), log.close(), written]);
    await expect(log.close()).resolves.toBeUndefined();
    expect((await readMockLog(path)).records.map((record) => record.event_id)).toEqual(['c1']);
  });

  it('writes the bytes of the line format: the head as JSON.stringify writes it, the body spliced in unchanged', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.string({ unit: 'binary' }),
          event: fc.option(fc.string(), { nil: undefined }),
          lead: fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
          known: fc.option(fc.boolean(), { nil: undefined }),
          header: fc.string({ unit: 'binary' }),
          headersLast: fc.boolean(),
        }),
        fc.array(fc.oneof(fc.string(), fc.constantFrom('\n', '\r\n', 'é', '€', '😀')), { maxLength: 8 }),
        ({ id, event, lead, known, header, headersLast }, parts) => {
          // A JSON string with raw line breaks in it: the bytes of the document are spliced in, whatever they are.
          const body = Buffer.from(JSON.stringify(parts.join('')).replace(/\\n/g, '\n'), 'utf8');
          const { headers: _headers, ...base } = head(id);
          const headers = { 'x-cai-provider': header };
          // The receivers' records end with `headers`; any other order is written with it moved last.
          const recordHead = headersLast
            ? { ...base, event, lead_id: lead, lead_known: known, headers }
            : { headers, ...base, event, lead_id: lead, lead_known: known };
          expect(recordBytes(recordHead, body).equals(Buffer.from(referenceLine(recordHead, body), 'utf8'))).toBe(true);
        },
      ),
    );
  });

  it('splices the body in as the document, as received; a multi-line one keeps its exact bytes in body_base64', async () => {
    const path = join(dir, 'raw.ndjson');
    const log = await DurableLog.open(path);
    const { document: _unused, ...head } = record('e1');
    const multiLine = Buffer.from('{\r\n  "event": "job.closed",\n  "event_id": "e2"\n}');
    await log.appendWithRawDocument(head, Buffer.from('{"event":"job.closed",  "event_id":"e1"}'));
    await log.appendWithRawDocument({ ...head, event_id: 'e2' }, multiLine);
    await log.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(',"body_bytes":40,"headers":{},"document":{"event":"job.closed",  "event_id":"e1"}}');
    // CR and LF (whitespace between tokens) become spaces in the document, which keeps the same length.
    expect(lines[1]).toContain(
      `"document":{    "event": "job.closed",   "event_id": "e2" },"body_base64":"${multiLine.toString('base64')}"}`,
    );
    const records = (await readMockLog(path)).records;
    expect(records.map((r) => r.document)).toEqual([
      { event: 'job.closed', event_id: 'e1' },
      { event: 'job.closed', event_id: 'e2' },
    ]);
    expect(Buffer.from(records[1]?.body_base64 ?? '', 'base64').equals(multiLine)).toBe(true);
  });

  it('writes the C1 and bidi controls of ids and header values escaped, and reads them back as they came', async () => {
    const path = join(dir, 'controls.ndjson');
    const log = await DurableLog.open(path);
    const { document: _unused, ...head } = record('e1');
    const hostile = 'A\u009b31mB\u202eC\u2028D\u0085E\u007f';
    await log.appendWithRawDocument(
      { ...head, event_id: hostile, lead_id: hostile, headers: { 'content-type': `application/json${hostile}` } },
      Buffer.from('{"event":"job.closed"}'),
    );
    await log.append({ ...record('e2'), lead_id: hostile });
    await log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/[\u007f-\u009f\u2028\u202e]/);
    expect(text).toContain('"event_id":"A\\u009b31mB\\u202eC\\u2028D\\u0085E\\u007f"');
    const records = (await readMockLog(path)).records;
    expect(records.map((r) => [r.event_id, r.lead_id])).toEqual([
      [hostile, hostile],
      ['e2', hostile],
    ]);
    expect(records[0]?.headers['content-type']).toBe(`application/json${hostile}`);
    const heads: MockLogHead[] = [];
    await scanMockLog(path, (found) => heads.push(found));
    expect(heads.map((r) => r.event_id)).toEqual([hostile, 'e2']);
  });

  it('reads heads for a restart exactly as a full parse reads the records, for every kind of line', async () => {
    const path = join(dir, 'heads.ndjson');
    const { document: _unused, ...head } = record('plain');
    const lines = [
      recordLine(head, Buffer.from('{"event":"job.closed","event_id":"plain"}')),
      recordLine(
        { ...head, event_id: 'multi', space: 'test' },
        Buffer.from('{\n"event":"job.closed",\r\n"event_id":"multi"}'),
      ),
      recordLine(
        { ...head, event_id: 'ünï "quoted" \\ id', lead_id: 'lead-é', lead_known: false },
        Buffer.from('{"event_id":"x"}'),
      ),
      recordLine({ ...head, event_id: 'dup', verdict: 'duplicate' }, Buffer.from('{}')),
      recordLine(
        {
          ...head,
          interface: 'A',
          kind: 'job',
          event_id: 'job-1',
          provider_job_id: 'pj_1',
          assigned_number_e164: '+447700900001',
        },
        Buffer.from('{"x":1}'),
      ),
      // Written before issue 14 (no body_bytes) and by hand: parsed whole.
      `${JSON.stringify(record('old'))}\n`,
      `${JSON.stringify({ ...record('reordered'), headers: undefined, event_id: 'reordered', v: 1 })}\n`,
      '\n   \n',
    ];
    writeFileSync(path, lines.join(''));
    const heads: MockLogHead[] = [];
    const skipped = await scanMockLog(path, (found) => heads.push(found));
    const full = await readMockLog(path);
    expect(skipped.count).toBe(full.skippedLines);
    expect(skipped.numbers).toEqual(full.skippedLineNumbers);
    const pick = (r: MockLogHead) => [
      r.event_id,
      r.space,
      r.interface,
      r.verdict,
      r.provider_job_id,
      r.assigned_number_e164,
    ];
    expect(heads.map(pick)).toEqual(full.records.map(pick));
    expect(heads.map((r) => r.event_id)).toEqual([
      'plain',
      'multi',
      'ünï "quoted" \\ id',
      'dup',
      'job-1',
      'old',
      'reordered',
    ]);
  });

  it('never takes a torn record for a complete one, even glued to a record of the same length', async () => {
    const path = join(dir, 'torn-same-length.ndjson');
    const { document: _unused, ...head } = record('x');
    const line = (id: string) =>
      recordLine({ ...head, event_id: id }, Buffer.from(`{"event":"job.closed","event_id":"${id}"}`));
    const torn = line('tornAA').trimEnd();
    const glued = line('gluedB');
    // Every cut of A, glued to B (as two writes in flight leave it after a crash), and A cut alone at the end.
    const cuts = Array.from({ length: torn.length - 1 }, (_, at) => torn.slice(0, at + 1));
    writeFileSync(path, cuts.map((cut) => `${cut}${glued}`).join('') + `${torn.slice(0, -1)}\n`);
    const heads: MockLogHead[] = [];
    await scanMockLog(path, (found) => heads.push(found));
    expect(new Set(heads.map((h) => h.event_id))).toEqual(new Set(['gluedB']));
    expect((await readMockLog(path)).records.every((r) => r.event_id === 'gluedB')).toBe(true);
  });

  it('streams a log larger than a JavaScript string (a hole of NUL bytes left by a crash), skipping the hole as one line', async () => {
    const path = join(dir, 'holey.ndjson');
    writeFileSync(path, JSON.stringify(record('before')) + '\n');
    // A sparse hole: 600 MiB that take no disk space, over V8's 512 MiB string limit.
    truncateSync(path, statSync(path).size + 600 * 1024 * 1024);
    appendFileSync(path, `${JSON.stringify(record('glued'))}\n${JSON.stringify(record('after'))}\n`);
    const heads: string[] = [];
    const skipped = await scanMockLog(path, (found) => heads.push(found.event_id));
    expect(heads).toEqual(['before', 'glued', 'after']);
    expect(skipped).toEqual({ count: 1, numbers: [2] });
  });

  it('reads a missing file as an empty log', async () => {
    expect(await readMockLog(join(dir, 'absent.ndjson'))).toEqual({
      records: [],
      skippedLines: 0,
      skippedLineNumbers: [],
    });
  });
});
