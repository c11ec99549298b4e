import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DurableLog, readMockLog, type MockLogRecord } from '../../../src/mock/log.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function record(eventId: string): MockLogRecord {
  return { v: 1, received_at: '2026-11-22T13:00:00.000Z', space: 'live', interface: 'B', kind: 'event', status: 202, verdict: 'accepted', provider_code: 'acme', event_id: eventId, headers: {}, document: { event: 'job.closed', event_id: eventId } };
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

  it('splices a one-line body in as the document, and re-serialises a multi-line one', async () => {
    const path = join(dir, 'raw.ndjson');
    const log = await DurableLog.open(path);
    const { document: _unused, ...head } = record('e1');
    await log.appendWithRawDocument(head, Buffer.from('{"event":"job.closed",  "event_id":"e1"}'));
    await log.appendWithRawDocument({ ...head, event_id: 'e2' }, Buffer.from('{\n  "event": "job.closed",\n  "event_id": "e2"\n}'));
    await log.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"document":{"event":"job.closed",  "event_id":"e1"}}');
    expect((await readMockLog(path)).records.map((r) => r.document)).toEqual([
      { event: 'job.closed', event_id: 'e1' },
      { event: 'job.closed', event_id: 'e2' },
    ]);
  });

  it('reads a missing file as an empty log', async () => {
    expect(await readMockLog(join(dir, 'absent.ndjson'))).toEqual({ records: [], skippedLines: 0 });
  });
});
