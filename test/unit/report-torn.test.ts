import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { recordLine, type MockLogRecordHead } from '../../src/mock/log.js';
import { readLog, type ReadSummary } from '../../src/report/read.js';
import type { LogRecord } from '../../src/report/log.js';

function line(eventId: string): string {
  const head: MockLogRecordHead = {
    v: 1,
    received_at: '2026-11-22T13:00:00.000Z',
    space: 'live',
    interface: 'B',
    kind: 'event',
    status: 202,
    verdict: 'accepted',
    provider_code: 'acme',
    event_id: eventId,
    event: 'job.closed',
    headers: {},
  };
  // The document holds a record's start too: only a whole record at the end of a line counts.
  return recordLine(
    head,
    Buffer.from(`{"event":"job.closed","event_id":"${eventId}","notes":{"v":1,"received_at":"x"}}`),
  );
}

describe('cai report on a log with records cut short', () => {
  it('skips and names each cut record, and counts a complete record glued after one (as the reload does)', async () => {
    const cut = line('cut').slice(0, 90);
    const text = [line('a'), `${cut}\n`, `${cut}${line('glued')}`, line('b'), cut].join('');
    const records: LogRecord[] = [];
    const summary: ReadSummary = { lines: 0, malformed: [] };
    await readLog(Readable.from([Buffer.from(text)]), 'events.ndjson', (record) => records.push(record), summary);
    expect(records.map((record) => record.eventId)).toEqual(['a', 'glued', 'b']);
    const torn = 'a record cut short (a write that failed: a full disk, a crash)';
    expect(summary.malformed).toEqual([
      { file: 'events.ndjson', line: 2, reason: `${torn}: not valid JSON` },
      { file: 'events.ndjson', line: 3, reason: `${torn}, followed by a complete record (counted)` },
      { file: 'events.ndjson', line: 5, reason: `${torn}: not valid JSON` },
    ]);
  });

  it('does not call a whole line with a raw control character torn, and refuses a line that is not UTF-8', async () => {
    const raw = line('raw').replace('"event_id":"raw"', '"event_id":"r\u001baw"');
    const lead = Buffer.from(line('latin'));
    const latin = Buffer.concat([lead.subarray(0, 40), Buffer.from([0xe9]), lead.subarray(40)]);
    const text = Buffer.concat([Buffer.from(line('a')), Buffer.from(raw), latin, Buffer.from(line('b'))]);
    const records: LogRecord[] = [];
    const summary: ReadSummary = { lines: 0, malformed: [] };
    await readLog(Readable.from([text]), 'events.ndjson', (record) => records.push(record), summary);
    expect(records.map((record) => record.eventId)).toEqual(['a', 'b']);
    expect(summary.malformed).toEqual([
      { file: 'events.ndjson', line: 2, reason: 'not valid JSON' },
      {
        file: 'events.ndjson',
        line: 3,
        reason: 'not UTF-8 (the mocks write their logs in UTF-8: this line is not one of their records)',
      },
    ]);
  });
});
