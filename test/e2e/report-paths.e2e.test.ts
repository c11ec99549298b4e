/**
 * `cai conformance run` with report files and a repro directory through the built binary: a bad path is a usage
 * error before any request is sent; a file that cannot be written after the run loses none of its result.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-report-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_report_paths' };
const linux = existsSync('/proc/self') && existsSync('/dev/full');
const mockRun = ['conformance', 'run', '--mock', '--interface', 'B', '--only', 'B-SIZE-001', '--no-generate'];

/** A run against a receiver that counts what it gets: a usage error found before the run sends nothing. */
async function refusedBeforeRun(extra: string[]) {
  const server = await startScriptedServer(() => ({ status: 202 }), { path: '/events' });
  try {
    const run = ['conformance', 'run', '--interface', 'B', '--to', server.url, '--provider', 'acme', '--no-generate'];
    const result = await spawnCli([...run, '--only', 'B-SIZE-001', ...extra], { env, cwd: dir });
    return { ...result, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

describe.skipIf(!linux)('report files and the repro directory: checked before the run', () => {
  const reportHint = 'hint: check that the directory exists and is writable\n';
  const reproHint =
    'hint: pass a directory cai can write into (it is created if missing), or leave the option out for a new one\n';

  it.each([
    ['--html', '/nonexistent/dir/r.html', 'HTML report', 'its directory does not exist'],
    ['--html', '/proc/r.html', 'HTML report', 'its directory is not writable'],
    ['--junit', '/tmp', 'JUnit report', 'it is a directory'],
    ['--summary', '/proc/self', 'job summary', 'it is a directory'],
  ])('%s %s: a usage error, nothing sent', async (flag, path, what, why) => {
    const result = await refusedBeforeRun([flag, path]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot write the ${what} to ${path}: ${why}\n${reportHint}`,
      requests: 0,
    });
  });

  it.each([
    ['event.json', 'it is not a directory'],
    ['/proc/xx', 'it cannot be created (its directory is not writable)'],
    ['/proc', 'it is not writable'],
  ])(
    '--repro-dir %s: a usage error at once, nothing sent',
    async (path, why) => {
      writeFileSync(join(dir, 'event.json'), '{}');
      const result = await refusedBeforeRun(['--repro-dir', path]);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot save reproductions in --repro-dir ${path}: ${why}\n${reproHint}`,
        requests: 0,
      });
    },
    20_000,
  );

  it('--repro-dir "" is a usage error, not the current directory', async () => {
    const result = await refusedBeforeRun(['--repro-dir', '']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `error: --repro-dir is empty\n${reproHint}`, requests: 0 });
  });

  it('a --repro-dir that does not exist yet is made, private', async () => {
    const repro = join(dir, 'new', 'repro');
    const result = await spawnCli([...mockRun, '--break', 'no-size-limit', '--repro-dir', repro], { env });
    expect(result.code).toBe(1);
    expect(statSync(repro).mode & 0o777).toBe(0o700);
    expect(existsSync(join(repro, 'B-SIZE-001.sh'))).toBe(true);
  });
});

describe.skipIf(!linux)('a report file that cannot be written after the run (/dev/full: no space left)', () => {
  const noSpace = (what: string) => `error: cannot write the ${what} to /dev/full: no space left on the device\n`;
  const hint = 'hint: the result above stands; check the directory and its free space\n';

  it('the result is printed whole, the other files written, each failure said; the verdict is the exit code', async () => {
    const junit = join(dir, 'run.xml');
    const files = ['--html', '/dev/full', '--summary', '/dev/full', '--junit', junit];
    const result = await spawnCli([...mockRun, '--break', 'no-size-limit', ...files, '--repro-dir', dir], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ B-SIZE-001 must §8: /m);
    expect(result.stdout).toContain('0 passed, 1 failed, 0 skipped\n');
    expect(readFileSync(junit, 'utf8')).toContain('<testsuite');
    expect(result.stderr).toContain(`JUnit report written to ${junit}\n`);
    expect(result.stderr.endsWith(`${noSpace('HTML report')}${noSpace('job summary')}${hint}`)).toBe(true);
  });

  it('a run that passed is exit 2 (a file asked for is missing); --json keeps its one document', async () => {
    const result = await spawnCli(['--json', ...mockRun, '--html', '/dev/full'], { env });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as { ok: boolean; summary: { passed: number } };
    expect(report.ok).toBe(true);
    expect(report.summary.passed).toBe(1);
    expect(result.stderr).toBe(`${noSpace('HTML report')}${hint}`);
  });
});
