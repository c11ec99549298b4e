/**
 * The platform mock's log on a full disk, under SIGKILL and against a second mock, through the built binary, in
 * each fsync mode. The full disk is real: the file-size limit (RLIMIT_FSIZE: a write takes what fits, then EFBIG),
 * raised from outside with prlimit when "space comes back"; and, where user namespaces are allowed, a small tmpfs
 * mounted in a namespace of the test's own (ENOSPC), emptied of a filler file to free space.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readMockLog } from '../../src/mock/log.js';
import { BIN, ROOT, spawnCli } from '../helpers/cli.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';
import { startMockProcess, stopAllMockProcesses, type MockProcess } from '../helpers/mock-process.js';
import { acknowledgedUntilKilled } from '../helpers/sigkill-load.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-log-repair-e2e-'));
const started = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  stopAllMockProcesses();
  for (const child of started) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const env = { ACME_SECRET: LIVE_SECRET };
const MODES = ['always', 'everysec', 'never'] as const;
type Mode = (typeof MODES)[number];
const mockArgs = (log: string, fsync: Mode) => [
  'mock',
  'platform',
  '--provider',
  'acme',
  '--secret-env',
  'ACME_SECRET',
  '--log',
  log,
  '--fsync',
  fsync,
];

const linux = process.platform === 'linux';
const hasPrlimit = linux && spawnSync('prlimit', ['--version']).status === 0;
/** A user and mount namespace of our own, where a tmpfs can be mounted without root. */
const namespaces =
  linux && spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=64k none "$0"', tmpdir()]).status === 0;

type Doc = Record<string, unknown>;

/** What a run against a full disk sent and got: the events acknowledged (202 new) and those refused (503). */
interface Outcome {
  acknowledged: Doc[];
  refused: Doc[];
}

/** Sends waves of 8 concurrent new events until the disk refuses some (bounded: at most 40 waves). */
async function sendUntilRefused(url: string, outcome: Outcome): Promise<void> {
  for (let wave = 0; wave < 40 && outcome.refused.length === 0; wave += 1) {
    const docs = Array.from({ length: 8 }, () => event());
    const answers = await Promise.all(docs.map((doc) => post(url, doc)));
    answers.forEach((answer, i) => {
      const doc = docs[i] as Doc;
      if (answer.status === 202) {
        expect(answer.json).toEqual({ ok: true });
        outcome.acknowledged.push(doc);
      } else {
        expect(answer.status).toBe(503);
        expect(answer.json).toMatchObject({ error: 'log_unavailable' });
        outcome.refused.push(doc);
      }
    });
  }
  expect(outcome.refused.length).toBeGreaterThan(0);
}

/**
 * The disk full: new events refused, repeats of stored ones still duplicates. Then `free()` gives space back:
 * every refused event, sent again, is new exactly once, and new events are stored.
 */
async function fillThenFree(url: string, outcome: Outcome, free: () => Promise<void>): Promise<void> {
  await sendUntilRefused(url, outcome);
  for (const doc of Array.from({ length: 3 }, () => event())) {
    const answer = await post(url, doc);
    expect(answer.status).toBe(503);
    outcome.refused.push(doc);
  }
  expect((await post(url, outcome.acknowledged[0])).json).toEqual({ ok: true, duplicate: true });
  await free();
  for (const doc of outcome.refused) expect((await post(url, doc)).json, String(doc.event_id)).toEqual({ ok: true });
  for (const doc of outcome.refused)
    expect((await post(url, doc)).json, String(doc.event_id)).toEqual({ ok: true, duplicate: true });
  const fresh = event();
  expect((await post(url, fresh)).json).toEqual({ ok: true });
  outcome.acknowledged.push(...outcome.refused, fresh);
}

/**
 * The log after it: every acknowledged event accepted exactly once; each line that is not a record (a record cut
 * by the failed write) is named by `cai report --format json` and holds no acknowledged event. Returns the
 * numbers of those lines.
 */
async function checkLog(log: string, outcome: Outcome): Promise<number[]> {
  const accepted = (await readMockLog(log)).records
    .filter((record) => record.verdict === 'accepted')
    .map((record) => record.event_id);
  expect(accepted.length).toBe(new Set(accepted).size);
  expect(new Set(accepted)).toEqual(new Set(outcome.acknowledged.map((doc) => doc.event_id)));
  // Read independently of cai: the lines that JSON.parse refuses.
  const lines = readFileSync(log, 'utf8').split('\n');
  const torn = lines.flatMap((line, i) => {
    if (line === '') return [];
    try {
      JSON.parse(line);
      return [];
    } catch {
      return [i + 1];
    }
  });
  // One failed write, at most one cut record; each starts as a record does and names a refused event.
  expect(torn.length).toBeLessThanOrEqual(1);
  for (const number of torn) {
    const text = lines[number - 1] as string;
    expect(text.startsWith('{"v":1,"received_at":')).toBe(true);
    expect(
      outcome.acknowledged.some(
        (doc) => text.includes(`"event_id":"${String(doc.event_id)}","event"`) && text.endsWith('}'),
      ),
    ).toBe(false);
  }
  const report = await spawnCli(['report', '--log', log, '--format', 'json']);
  expect(report.code, report.stderr).toBe(0);
  const doc = JSON.parse(report.stdout) as { malformed: { line: number; reason: string }[]; records: { used: number } };
  expect(doc.malformed.map((line) => line.line)).toEqual(torn);
  for (const line of doc.malformed) expect(line.reason).toMatch(/^a record cut short/);
  expect(doc.records.used).toBe(outcome.acknowledged.length);
  return torn;
}

/** Restarts on the log: the reload names the skipped line, and what was acknowledged is a duplicate. */
async function checkRestart(log: string, fsync: Mode, torn: number[], outcome: Outcome): Promise<void> {
  const mock = await startMockProcess(mockArgs(log, fsync), env);
  expect(mock.stderr()).toContain(`${outcome.acknowledged.length} accepted events reloaded for dedupe`);
  if (torn.length === 1) expect(mock.stderr()).toContain(`line ${torn[0]} of ${log} is not a log record`);
  else expect(mock.stderr()).not.toContain('not a log record');
  for (const doc of [outcome.acknowledged[0], outcome.refused[0]])
    expect((await post(mock.url, doc)).json).toEqual({ ok: true, duplicate: true });
  await stop(mock);
}

async function stop(mock: MockProcess): Promise<void> {
  mock.child.kill('SIGTERM');
  expect(await mock.exited).toBe(0);
}

describe.skipIf(!hasPrlimit)('a full disk (the file-size limit, EFBIG), in each fsync mode', () => {
  it.each(MODES)(
    '--fsync %s: refuses what it could not write, repairs the log, and accepts each refused event once',
    async (fsync) => {
      const log = join(dir, `efbig-${fsync}.ndjson`);
      // 8 KiB: about ten records fit, then a write is cut at the limit and fails.
      const mock = await startMockProcess(mockArgs(log, fsync), env, [
        'bash',
        '-c',
        'ulimit -S -f 8 && exec "$0" "$@"',
      ]);
      const outcome: Outcome = { acknowledged: [], refused: [] };
      await fillThenFree(mock.url, outcome, async () => {
        // Space comes back: the soft limit raised from outside (the hard one was never set).
        expect(spawnSync('prlimit', ['--pid', String(mock.child.pid), '--fsize=unlimited:']).status).toBe(0);
      });
      await stop(mock);
      const torn = await checkLog(log, outcome);
      await checkRestart(log, fsync, torn, outcome);
    },
  );
});

/** The harness in its namespace: its answers, read line by line. */
function startInNamespace(disk: string, args: string[]) {
  const harness = fileURLToPath(new URL('../helpers/full-disk.mjs', import.meta.url));
  const child = spawn(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      'mount -t tmpfs -o size=128k none "$0" && exec "$@"',
      disk,
      process.execPath,
      harness,
      disk,
      BIN,
      ...args,
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    },
  );
  started.add(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    waiters.forEach((wake) => wake());
  });
  const next = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.findIndex(test);
        if (found !== -1) {
          waiters.delete(check);
          resolve(lines.splice(found, 1)[0] as string);
        } else if (child.exitCode !== null) reject(new Error(`the harness exited; stderr:\n${stderr}`));
      };
      waiters.add(check);
      child.on('exit', check);
      check();
    });
  const command = async (text: string, answer: string) => {
    child.stdin.write(`${text}\n`);
    return next((line) => line.startsWith(`${answer} `) || line === answer);
  };
  return { next, command, stderr: () => stderr };
}

describe.skipIf(!namespaces)('a full disk (a tmpfs filled up, ENOSPC), in each fsync mode', () => {
  it.each(MODES)(
    '--fsync %s: refuses what it could not write, repairs the log, and accepts each refused event once',
    async (fsync) => {
      const disk = join(dir, `tmpfs-${fsync}`);
      mkdirSync(disk);
      const copy = join(dir, `enospc-${fsync}.ndjson`);
      const harness = startInNamespace(disk, mockArgs(join(disk, 'events.ndjson'), fsync));
      const url = await harness.next((line) => line.startsWith('http://'));
      const outcome: Outcome = { acknowledged: [], refused: [] };
      // A few records first, so that the log's last page has room left: a write fills it, then fails.
      for (let i = 0; i < 3; i += 1) {
        const doc = event();
        expect((await post(url, doc)).json).toEqual({ ok: true });
        outcome.acknowledged.push(doc);
      }
      expect(await harness.command('fill', 'filled')).toMatch(/^filled [0-9]+$/);
      await fillThenFree(url, outcome, async () => {
        await harness.command('free', 'freed');
      });
      expect(await harness.command(`stop ${copy}`, 'stopped')).toBe('stopped 0');
      const torn = await checkLog(copy, outcome);
      await checkRestart(copy, fsync, torn, outcome);
    },
  );
});

describe.skipIf(!linux)('SIGKILL, in each fsync mode', () => {
  it.each(MODES)(
    '--fsync %s: every acknowledged event is in the log after SIGKILL, and a mock starts on it again',
    async (fsync) => {
      const log = join(dir, `sigkill-${fsync}.ndjson`);
      const first = await startMockProcess(mockArgs(log, fsync), env);
      const acknowledged = await acknowledgedUntilKilled(first.url, first.child);
      await first.exited;
      const stored = new Set(
        (await readMockLog(log)).records.filter((r) => r.verdict === 'accepted').map((r) => r.event_id),
      );
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      // Its lock is stale (the process is gone): the next mock takes it over.
      expect(existsSync(`${log}.lock`)).toBe(true);
      const second = await startMockProcess(mockArgs(log, fsync), env);
      expect((await post(second.url, { ...event(), event_id: acknowledged[0] })).json).toEqual({
        ok: true,
        duplicate: true,
      });
      await stop(second);
      expect(existsSync(`${log}.lock`)).toBe(false);
    },
  );
});

describe('one mock per log', () => {
  it('refuses a second mock on a log in use (exit 2, the holder named), and starts one once the first stops', async () => {
    const log = join(dir, 'locked.ndjson');
    const first = await startMockProcess(mockArgs(log, 'everysec'), env);
    const second = await spawnCli(mockArgs(log, 'everysec'), { env });
    expect(second.code).toBe(2);
    const real = join(realpathSync(dir), 'locked.ndjson');
    expect(second.stderr).toBe(
      `error: the log ${real} is in use by another cai mock: pid ${first.child.pid}\n` +
        `hint: stop that mock first, or give this one another log; the lock is ${real}.lock (remove it only if no mock runs on the log)\n`,
    );
    // The first one is untouched, and keeps its events.
    const doc = event();
    expect((await post(first.url, doc)).json).toEqual({ ok: true });
    await stop(first);
    const third = await startMockProcess(mockArgs(log, 'everysec'), env);
    expect((await post(third.url, doc)).json).toEqual({ ok: true, duplicate: true });
    await stop(third);
  });
});
