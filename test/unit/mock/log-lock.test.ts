import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CaiError } from '../../../src/errors.js';
import { LogLock } from '../../../src/mock/log-lock.js';
import { openMockLog } from '../../../src/mock/log.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-log-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited (and been reaped): no process has it now, most likely. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function refusal(logPath: string): Promise<CaiError> {
  const error = await LogLock.acquire(logPath).then(
    () => undefined,
    (failed: unknown) => failed,
  );
  expect(error).toBeInstanceOf(CaiError);
  return error as CaiError;
}

describe.skipIf(process.platform === 'win32')('the lock of a mock log', () => {
  it('is held by one process at a time, names its holder, and is free again once released', async () => {
    const log = join(dir, 'one.ndjson');
    const lock = await LogLock.acquire(log);
    expect(JSON.parse(readFileSync(`${log}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    const error = await refusal(log);
    expect(error.kind).toBe('usage');
    expect(error.code).toBe('log_in_use');
    expect(error.message).toBe(`the log ${log} is in use by another cai mock: pid ${process.pid} (this process)`);
    expect(error.hint).toContain(`${log}.lock`);
    await lock.release();
    expect(existsSync(`${log}.lock`)).toBe(false);
    const again = await LogLock.acquire(log);
    await again.release();
    await again.release();
  });

  it('takes over a lock left by a process that is gone, or whose pid now belongs to another process', async () => {
    const log = join(dir, 'stale.ndjson');
    writeFileSync(`${log}.lock`, JSON.stringify({ pid: deadPid(), started: 1, host: hostname() }));
    const lock = await LogLock.acquire(log);
    expect(JSON.parse(readFileSync(`${log}.lock`, 'utf8')).pid).toBe(process.pid);
    await lock.release();
    if (process.platform === 'linux') {
      // This very pid, but started at another time: the pid was reused after the holder died.
      writeFileSync(`${log}.lock`, JSON.stringify({ pid: process.pid, started: 1, host: hostname() }));
      const reused = await LogLock.acquire(log);
      await reused.release();
    }
  });

  it('counts a lock from another host, or one being written, as held; an old unreadable one as stale', async () => {
    const log = join(dir, 'held.ndjson');
    writeFileSync(`${log}.lock`, JSON.stringify({ pid: deadPid(), host: 'elsewhere.example' }));
    expect((await refusal(log)).message).toMatch(/in use by another cai mock: pid [0-9]+ on host elsewhere\.example$/);
    writeFileSync(`${log}.lock`, '');
    expect((await refusal(log)).message).toMatch(/its lock file is being written/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${log}.lock`, old, old);
    const lock = await LogLock.acquire(log);
    await lock.release();
  });

  it('is taken by openMockLog before the log is read, on the real path, and released on close', async () => {
    const log = join(dir, 'opened.ndjson');
    const link = join(dir, 'link.ndjson');
    writeFileSync(log, '');
    symlinkSync(log, link);
    const first = await openMockLog(log, () => {});
    const second = await openMockLog(link, () => {}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(CaiError);
    expect((second as CaiError).message).toContain(`the log ${log} is in use`);
    await first.log.close();
    const third = await openMockLog(link, () => {});
    await third.log.close();
    expect(existsSync(`${log}.lock`)).toBe(false);
  });
});
