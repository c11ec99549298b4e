/**
 * A mock's log and its lock are regular files, checked before they are opened: a FIFO (or any other non-regular
 * file) at either is refused with exit 2 naming its path, and the mock ends by itself (within 10 s, the contract);
 * it never hangs in an open that cannot finish (a FIFO's open blocks until a writer comes).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnBounded } from '../helpers/bounded-spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-log-fifo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasMkfifo = spawnSync('mkfifo', ['--version']).status === 0;

function fifo(path: string): string {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr.toString()}`);
  return path;
}

const env = { MOCK_SECRET: 'whsec_fifo_0123456789' };
const mock = (kind: 'platform' | 'provider', log: string) =>
  spawnBounded(
    [
      'mock',
      kind,
      '--provider',
      'acme',
      '--secret-env',
      'MOCK_SECRET',
      ...(kind === 'provider' ? ['--callback-secret-env', 'MOCK_SECRET'] : []),
      '--port',
      '0',
      '--log',
      log,
    ],
    { boundMs: 10_000, env, cwd: dir },
  );

describe.skipIf(!hasMkfifo)('a FIFO as a mock log or its lock', () => {
  it.each(['platform', 'provider'] as const)(
    'mock %s: a FIFO as --log is refused with exit 2, naming it',
    async (kind) => {
      const log = fifo(join(dir, `${kind}.ndjson`));
      const result = await mock(kind, log);
      expect(result.killed, result.stderr).toBe(false);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: the log ${log} is not a regular file (a FIFO)\nhint: pass --log a regular file (it is created when missing)\n`,
      );
      expect(existsSync(`${log}.lock`)).toBe(false);
    },
  );

  it('a FIFO at the lock (LOG.lock) is refused with exit 2, naming it', async () => {
    const log = join(dir, 'locked.ndjson');
    const lock = fifo(`${log}.lock`);
    const result = await mock('platform', log);
    expect(result.killed, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `error: the lock of the log ${log}, ${lock}, is not a regular file (a FIFO)\nhint: remove ${lock} (a cai mock's lock is a regular file it creates), or give this mock another log\n`,
    );
  });

  it('a directory as --log is refused the same way', async () => {
    const log = join(dir, 'a-directory');
    mkdirSync(log);
    const result = await mock('platform', log);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      `error: the log ${log} is not a regular file (a directory)\nhint: pass --log a regular file (it is created when missing)\n`,
    );
  });
});
