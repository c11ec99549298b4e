/**
 * The durable log after a failed write, and its fsync modes, through descriptor swaps: a non-blocking FIFO takes
 * part of a batch and then fails it (EAGAIN), as a full disk takes part of a write and then fails with ENOSPC;
 * fdatasync on a FIFO fails (EINVAL) as a sync fails on a broken disk. The real full disk (EFBIG, ENOSPC) is in
 * test/e2e/mock-log-repair.e2e.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  DurableLog,
  FSYNC_MODES,
  readMockLog,
  recordBytes,
  type FsyncMode,
  type MockLogRecordHead,
} from '../../../src/mock/log.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-log-repair-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

function head(eventId: string): MockLogRecordHead {
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
    event: 'job.closed',
    headers: {},
  };
}

/** A body of about 1 000 bytes, so that a batch of them is longer than a pipe holds. */
function body(eventId: string): Buffer {
  return Buffer.from(JSON.stringify({ event: 'job.closed', event_id: eventId, notes: 'x'.repeat(900) }));
}

/** A FIFO opened read-write and non-blocking: a write takes what fits (64 KiB), then fails with EAGAIN. */
function fifo(name: string): number {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
}

/** Everything waiting in a non-blocking descriptor. */
function drain(fd: number): Buffer {
  const parts: Buffer[] = [];
  const chunk = Buffer.alloc(65536);
  for (;;) {
    try {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      parts.push(Buffer.from(chunk.subarray(0, read)));
    } catch {
      break;
    }
  }
  return Buffer.concat(parts);
}

type Inside = { fd: number; syncing: Promise<void> | undefined };

/**
 * Appends `ids` with the log's descriptor swapped for a FIFO (see fifo), then swaps it back: what each append
 * became, and the bytes the write put in the FIFO before it failed.
 */
async function appendThroughPipe(
  log: DurableLog,
  name: string,
  ids: string[],
): Promise<{ settled: PromiseSettledResult<void>[]; written: Buffer }> {
  const inside = log as unknown as Inside;
  const file = inside.fd;
  const pipe = fifo(name);
  inside.fd = pipe;
  const settled = await Promise.allSettled(ids.map((id) => log.appendWithRawDocument(head(id), body(id))));
  const written = drain(pipe);
  closeSync(pipe);
  inside.fd = file;
  return { settled, written };
}

describe.skipIf(process.platform !== 'linux')('the mock log after a failed write', () => {
  it.each(FSYNC_MODES)(
    'acknowledges the records a failed write wrote whole, refuses the rest, and starts the next write on a new line (--fsync %s)',
    async (fsync: FsyncMode) => {
      const path = join(dir, `torn-${fsync}.ndjson`);
      const log = await DurableLog.open(path, { fsync });
      // 100 records of 1 000 bytes, in one or two batches: more than the pipe takes.
      const ids = Array.from({ length: 100 }, (_, i) => `torn_${i}`);
      const { settled, written } = await appendThroughPipe(log, `pipe-${fsync}`, ids);

      const lines = ids.map((id) => recordBytes(head(id), body(id)));
      const expected = Buffer.concat(lines);
      expect(written.equals(expected.subarray(0, written.length))).toBe(true);
      // Whole in what was written: acknowledged; cut or never written: refused, with the write's error.
      let end = 0;
      const whole = lines.map((line) => (end += line.length) <= written.length);
      expect(whole.filter(Boolean).length).toBeGreaterThan(1);
      expect(whole.filter((w) => !w).length).toBeGreaterThan(1);
      expect(settled.map((outcome) => outcome.status)).toEqual(whole.map((w) => (w ? 'fulfilled' : 'rejected')));
      const cutAt = whole.indexOf(false);
      expect(ends(lines, cutAt)).toBeLessThan(written.length);

      // The file ends inside a record: the next write ends that line first.
      await log.appendWithRawDocument(head('after'), body('after'));
      await log.close();
      expect(readFileSync(path, 'utf8')).toBe(`\n${recordBytes(head('after'), body('after')).toString('utf8')}`);
    },
  );

  it('reads back a torn fragment as one skipped line, named by its number, and every record around it', async () => {
    const path = join(dir, 'torn-read.ndjson');
    const log = await DurableLog.open(path);
    await log.appendWithRawDocument(head('before'), body('before'));
    const ids = Array.from({ length: 80 }, (_, i) => `cut_${i}`);
    const { settled, written } = await appendThroughPipe(log, 'pipe-read', ids);
    // What the pipe took is what a full disk would have left in the file: put it there, as the disk would.
    appendFileSync(path, written);
    await log.appendWithRawDocument(head('after'), body('after'));
    await log.close();

    const acknowledged = ids.filter((_, i) => settled[i]?.status === 'fulfilled');
    const loaded = await readMockLog(path);
    expect(loaded.records.map((r) => r.event_id)).toEqual(['before', ...acknowledged, 'after']);
    expect(loaded.skippedLines).toBe(1);
    expect(loaded.skippedLineNumbers).toEqual([acknowledged.length + 2]);
  });

  it('refuses nothing and writes nothing twice when a write fails before its first byte', async () => {
    const path = join(dir, 'nothing.ndjson');
    const log = await DurableLog.open(path);
    await log.appendWithRawDocument(head('kept'), body('kept'));
    const inside = log as unknown as Inside;
    const file = inside.fd;
    inside.fd = openSync('/dev/full', 'w');
    await expect(log.appendWithRawDocument(head('full'), body('full'))).rejects.toThrow(/ENOSPC/);
    closeSync(inside.fd);
    inside.fd = file;
    await log.appendWithRawDocument(head('next'), body('next'));
    await log.close();
    // No torn fragment, so no line to end: the records follow one another.
    expect(readFileSync(path, 'utf8')).toBe(
      [recordBytes(head('kept'), body('kept')), recordBytes(head('next'), body('next'))].join(''),
    );
  });
});

function ends(lines: Buffer[], index: number): number {
  return lines.slice(0, index).reduce((total, line) => total + line.length, 0);
}

describe.skipIf(process.platform !== 'linux')('the fsync modes', () => {
  it('everysec: syncs what was written within a second, and acknowledges nothing more while a sync fails', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const path = join(dir, 'everysec.ndjson');
    const log = await DurableLog.open(path, { fsync: 'everysec' });
    const inside = log as unknown as Inside;
    await log.appendWithRawDocument(head('e1'), body('e1'));
    // Written before it is acknowledged, whatever the sync does later.
    expect(readFileSync(path, 'utf8')).toContain('"event_id":"e1"');

    // The next sync goes to a descriptor that cannot be synced (a FIFO: EINVAL), as on a failing disk.
    const file = inside.fd;
    const pipe = fifo('pipe-sync');
    inside.fd = pipe;
    vi.advanceTimersByTime(1000);
    expect(inside.syncing).toBeDefined();
    await inside.syncing;
    inside.fd = file;
    await expect(log.appendWithRawDocument(head('e2'), body('e2'))).rejects.toThrow(/could not be synced/);
    // The next second's sync succeeds: acknowledgments resume.
    vi.advanceTimersByTime(1000);
    await inside.syncing;
    await log.appendWithRawDocument(head('e3'), body('e3'));
    // Nothing written since the last sync: no sync a second later.
    vi.advanceTimersByTime(1000);
    expect(inside.syncing).toBeDefined();
    await inside.syncing;
    vi.advanceTimersByTime(1000);
    expect(inside.syncing).toBeUndefined();
    await log.close();
    closeSync(pipe);
    expect((await readMockLog(path)).records.map((r) => r.event_id)).toEqual(['e1', 'e3']);
  });

  it.each(['always', 'never'] as const)('%s: no sync runs on a timer', async (fsync) => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const path = join(dir, `${fsync}-timer.ndjson`);
    const log = await DurableLog.open(path, { fsync });
    const inside = log as unknown as Inside;
    await log.appendWithRawDocument(head('n1'), body('n1'));
    vi.advanceTimersByTime(5000);
    expect(inside.syncing).toBeUndefined();
    await log.appendWithRawDocument(head('n2'), body('n2'));
    await log.close();
    expect((await readMockLog(path)).records.map((r) => r.event_id)).toEqual(['n1', 'n2']);
  });
});
