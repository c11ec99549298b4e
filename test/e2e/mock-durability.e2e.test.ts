/**
 * Issue 14, findings 3 and 8, against platform mocks in processes of their own: a restart on a log of hundreds
 * of thousands of records (written straight to the file), and re-sending stored events while the disk is full.
 * The SIGKILL test of the durable log is in mock-platform.test.ts.
 */
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DurableLog, readMockLog } from '../../src/mock/log.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';
import { generatedEventId, writeEventLog } from '../helpers/mock-logs.js';
import { startLibraryMock, stopAllMockProcesses } from '../helpers/mock-process.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-durability-'));
afterAll(() => {
  stopAllMockProcesses();
  rmSync(dir, { recursive: true, force: true });
});
const MiB = 1024 * 1024;
const RECORDS = 300_000;

describe.skipIf(process.platform !== 'linux')('the platform mock and its log', () => {
  it(`restarts on a log of ${RECORDS} records, keeping only what dedupe needs, and goes on deduplicating`, async () => {
    const log = join(dir, 'large.ndjson');
    writeEventLog(log, RECORDS, 'evt_big_');
    const options = { providerCode: 'acme', secrets: [LIVE_SECRET], logFile: log };
    const first = await startLibraryMock('platform', options);
    expect(first.reloaded).toBe(RECORDS);
    // Before: the whole log as one string and every record parsed and kept (1.3 GB at 500 000 records).
    const memory = first.memory();
    // Measured: about 140 MiB, of which some 70 are Node and the schemas.
    if (memory) expect(memory.peak).toBeLessThan(200 * MiB);
    for (const index of [0, RECORDS / 2, RECORDS - 1]) {
      const repeat = { event: 'job.closed', event_id: generatedEventId('evt_big_', index), outcome: 'no_answer' };
      expect((await post(first.url, repeat)).json).toEqual({ ok: true, duplicate: true });
    }
    const fresh = event();
    expect((await post(first.url, fresh)).json).toEqual({ ok: true });
    expect(await first.stop()).toBe(0);

    const second = await startLibraryMock('platform', options);
    expect(second.reloaded).toBe(RECORDS + 1);
    expect((await post(second.url, fresh)).json).toEqual({ ok: true, duplicate: true });
    expect(await second.stop()).toBe(0);
  });

  it('answers re-sent stored events as duplicates while the disk is full, and a new event 503', async () => {
    const log = join(dir, 'full.ndjson');
    const stored = Array.from({ length: 30 }, () => event());
    const writer = await DurableLog.open(log);
    for (const doc of stored) {
      const body = Buffer.from(JSON.stringify(doc));
      await writer.appendWithRawDocument(
        {
          v: 1,
          received_at: new Date().toISOString(),
          space: 'live',
          interface: 'B',
          kind: 'event',
          status: 202,
          verdict: 'accepted',
          provider_code: 'acme',
          event_id: doc.event_id as string,
          headers: {},
        },
        body,
      );
    }
    await writer.close();
    // Fill the "disk" to the byte: the file ends on a whole KiB (a blank line pads it) and may not grow.
    const size = statSync(log).size;
    const blocks = Math.ceil((size + 2) / 1024);
    appendFileSync(log, `${' '.repeat(blocks * 1024 - size - 1)}\n`);

    const mock = await startLibraryMock(
      'platform',
      { providerCode: 'acme', secrets: [LIVE_SECRET], logFile: log },
      { fileSizeBlocks: blocks },
    );
    expect(mock.reloaded).toBe(stored.length);
    for (const doc of stored) {
      const answer = await post(mock.url, doc);
      expect(answer.status, String(doc.event_id)).toBe(202);
      expect(answer.json).toEqual({ ok: true, duplicate: true });
    }
    // A new event cannot be stored: not acknowledged, so its sender retries (§7).
    const fresh = await post(mock.url, event());
    expect(fresh.status).toBe(503);
    expect(fresh.json).toMatchObject({ error: 'log_unavailable' });
    // Nor can new events sent at once, whose records are written together (group commit): every one is a 503.
    const together = await Promise.all(Array.from({ length: 20 }, () => post(mock.url, event())));
    expect(together.map((answer) => answer.status)).toEqual(together.map(() => 503));
    expect(together.every((answer) => (answer.json as { error?: string }).error === 'log_unavailable')).toBe(true);
    expect(await mock.stop()).toBe(0);
    expect((await readMockLog(log)).records).toHaveLength(stored.length);
  });
});
