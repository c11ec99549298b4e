/**
 * The files written beside a command's output: `cai conformance run --html/--summary` (and $GITHUB_STEP_SUMMARY),
 * `cai report --html`. What is written, that a summary is appended, and the exit codes when a file cannot be
 * written (an explicit flag: exit 2 before the run, test/e2e/report-paths.e2e.test.ts; the environment's summary file:
 * a warning only); an empty path, refused as such before anything is written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-report-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (extra: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(
    [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'dedupe',
      '--no-generate',
      '--repro-dir',
      mkdtempSync(join(dir, 'repro-')),
      ...extra,
    ],
    { env },
  );
const missingDir = join(dir, 'no-such-dir');

describe('cai conformance run --html / --summary', () => {
  it('writes the page and appends the summary, run after run', async () => {
    const page = join(dir, 'report.html');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const failing = await run(['--break', 'no-dedupe', '--html', page, '--summary', summary]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain(`HTML report written to ${page}\njob summary appended to ${summary}\n`);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<span class="badge fail">FAILED</span>');
    expect(html).toContain('data-v="failed"');
    const passing = await run(['--summary', summary]);
    expect(passing.code).toBe(0);
    const markdown = readFileSync(summary, 'utf8');
    expect(
      markdown.startsWith('# earlier step\n### ❌ cai conformance failed: interface B against http://127.0.0.1:'),
    ).toBe(true);
    expect(markdown).toMatch(/^- ✗ \*\*B-DEDUP-001\*\* .+ \(§6\.1 §2\.13 §7\) {2}$/m);
    expect(markdown).toMatch(/^### ✅ cai conformance passed: interface B against /m);
    expect(markdown.match(/^\d+ passed, \d+ failed, \d+ skipped; /gm)?.length).toBe(2);
  });

  it('appends to $GITHUB_STEP_SUMMARY when no --summary is given', async () => {
    const summary = join(dir, 'step-summary.md');
    const result = await run([], { GITHUB_STEP_SUMMARY: summary });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`job summary appended to $GITHUB_STEP_SUMMARY (${summary})\n`);
    expect(readFileSync(summary, 'utf8')).toMatch(/^### ✅ cai conformance passed/);
  });

  it('--summary wins over $GITHUB_STEP_SUMMARY', async () => {
    const summary = join(dir, 'flag.md');
    const environment = join(dir, 'env.md');
    await run(['--summary', summary], { GITHUB_STEP_SUMMARY: environment });
    expect(readFileSync(summary, 'utf8')).toContain('cai conformance passed');
    expect(() => readFileSync(environment)).toThrow();
  });

  it('an unwritable $GITHUB_STEP_SUMMARY is a warning: the verdict decides the exit code', async () => {
    const target = join(missingDir, 'summary.md');
    const passing = await run([], { GITHUB_STEP_SUMMARY: target });
    expect(passing.code).toBe(0);
    expect(passing.stderr).toContain(
      `warning: cannot write the job summary to ${target}: its directory does not exist ($GITHUB_STEP_SUMMARY); the run's result stands\n`,
    );
    const failing = await run(['--break', 'no-dedupe'], { GITHUB_STEP_SUMMARY: target });
    expect(failing.code).toBe(1);
  });

  it.each([
    ['--summary', 'job summary'],
    ['--html', 'HTML report'],
  ])('an unwritable %s FILE is a usage error (exit 2), found before the run', async (flag, what) => {
    const target = join(missingDir, 'out');
    const result = await run([flag, target]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the ${what} to ${target}: its directory does not exist\nhint: check that the directory exists and is writable\n`,
    );
    expect(result.stdout).toBe('');
  });

  it('an unwritable --summary is exit 2 even when a check failed', async () => {
    const result = await run(['--break', 'no-dedupe', '--summary', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the job summary to ${dir}: it is a directory\nhint: check that the directory exists and is writable\n`,
    );
  });
});

describe('cai report --html', () => {
  const logs = ['--log', 'fixtures/logs/provider.ndjson', '--log', 'fixtures/logs/platform.ndjson'];

  it('writes the page with its charts and prints the report as usual', async () => {
    const page = join(dir, 'operation.html');
    const result = await runCli(['report', ...logs, '--html', page]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`HTML report written to ${page}\n`);
    expect(result.stdout).toContain('Jobs and first contact (target: within 5 minutes, §8)');
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('<h1>cai operation report</h1>');
    expect(html).toContain('data-chart="first-contact" data-branch="BR-001"');
    expect(html).toContain('<meta name="generator" content="cai ');
  });

  it('an unwritable --html FILE is a usage error (exit 2)', async () => {
    const target = join(missingDir, 'r.html');
    const result = await runCli(['report', ...logs, '--html', target]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot write the HTML report to ${target}: its directory does not exist\nhint: check that the directory exists and is writable\n`,
    );
  });
});

describe('an empty output path is refused as such, never written as the working directory', () => {
  const logs = ['--log', 'fixtures/logs/platform.ndjson'];
  it.each([
    [['--html', ''], 'HTML report'],
    [['--junit', ''], 'JUnit report'],
    [['--summary', ''], 'job summary'],
  ])('conformance run %j', async (flags, what) => {
    const result = await run(flags);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the ${what} file's path is empty\nhint: give the path of a file to write\n`,
    });
  });

  it.each([
    [['report', ...logs, '--html', ''], 'HTML report'],
    [['conformance', 'coverage', '--html', ''], 'HTML coverage'],
    [['load', '--mock', '--html', ''], 'HTML report'],
  ])('%j', async (argv, what) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: the ${what} file's path is empty\nhint: give the path of a file to write\n`);
  });

  it('mock platform --log ""', async () => {
    const result = await runCli(['mock', 'platform', '--provider', 'acme', '--log', ''], {
      env: { CAI_SECRET: 'whsec_report_files' },
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: the log file's path is empty\nhint: give the path of a file to write, or leave --log out to keep events in memory\n",
    });
  });
});
