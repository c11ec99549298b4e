/**
 * `cai conformance run --rerun-failed REPORT` on a report in which nothing failed: nothing runs, and the command
 * still says so the way it was asked to: with `--json` one JSON document on stdout (a report of no check, ok), every
 * report file asked for written (`--junit F`: a suite of no test), exit 0.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-rerun-nothing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const report = join(dir, 'report.json');
writeFileSync(
  report,
  JSON.stringify({
    interface: 'B',
    checks: [
      { id: 'B-AUTH-001', verdict: 'passed' },
      { id: 'B-RATE-001', verdict: 'skipped' },
    ],
  }),
);

describe('--rerun-failed on a report in which nothing failed', () => {
  it('with --json --junit F: one JSON document on stdout, F written, exit 0', async () => {
    const junit = join(dir, 'nothing.xml');
    const result = await runCli(['--json', 'conformance', 'run', '--mock', '--rerun-failed', report, '--junit', junit]);
    expect(result.code, result.stderr).toBe(0);
    // JSON.parse of the whole of stdout: one document, nothing before or after it.
    const doc = JSON.parse(result.stdout) as {
      ok: boolean;
      interface: string;
      checks: unknown[];
      summary: { total: number };
    };
    expect(doc).toMatchObject({ ok: true, interface: 'B', checks: [], summary: { total: 0 } });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml /);
    expect(xml).toMatch(/tests="0"/);
  });

  it('without --json: the sentence on stdout, and the files written all the same', async () => {
    const junit = join(dir, 'text.xml');
    const html = join(dir, 'text.html');
    const result = await runCli([
      'conformance',
      'run',
      '--mock',
      '--rerun-failed',
      report,
      '--junit',
      junit,
      '--html',
      html,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`nothing to run again: every check of ${report} passed, was skipped or is waived\n`);
    expect(readFileSync(junit, 'utf8')).toMatch(/tests="0"/);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);
  });
});

describe('--rerun-failed on a report with a verdict cai never writes', () => {
  // Taken for a pass, "FAILED" (hand-edited) or "bogus" (another tool's) would drop the checks it marks and go green.
  it.each(['FAILED', 'bogus'])(
    '%s: a usage error naming the check and the verdict, exit 2, nothing run',
    async (verdict) => {
      const edited = join(dir, `edited-${verdict}.json`);
      writeFileSync(
        edited,
        JSON.stringify({
          interface: 'B',
          checks: [
            { id: 'B-AUTH-001', verdict: 'passed' },
            { id: 'B-AUTH-002', verdict },
          ],
        }),
      );
      const result = await runCli(['conformance', 'run', '--mock', '--rerun-failed', edited]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        `error: ${edited} is not a conformance report: check "B-AUTH-002" has the verdict "${verdict}"`,
      );
      expect(result.stderr).toMatch(/^hint: /m);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
