/**
 * The README's five-minute walk-through, run as written: its commands in bash, `cai` being this checkout's
 * bin/cai.js (a shim on PATH), in an empty directory, with a second terminal for the mock platform. What the README
 * shows after each command must be what the command printed (see test/docs/walkthrough.ts for the rules), and
 * every command exits as the README says.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { compare, missingLine, runWalkthrough, walkthroughScript, walkthroughSteps } from './walkthrough.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'cai-readme-walkthrough-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function caiShim(): string {
  const binDir = join(root, 'bin');
  mkdirSync(binDir, { recursive: true });
  const shim = join(binDir, 'cai');
  if (existsSync(shim)) return binDir;
  // A link to the script, as a global install makes one: cai names itself `cai` in the commands it prints.
  symlinkSync(BIN, shim);
  return binDir;
}

describe('the README walk-through', () => {
  const steps = walkthroughSteps(README);

  it('covers what the README promises: a mock, an accepted event, a duplicate, a passing and a failing run', () => {
    const commands = steps.flatMap((step) => (step.command ? [step.command] : []));
    expect(commands.some((command) => command.startsWith('cai mock platform'))).toBe(true);
    expect(commands.filter((command) => command.startsWith('cai send-event')).length).toBeGreaterThanOrEqual(2);
    expect(commands.filter((command) => command.startsWith('cai conformance run')).length).toBe(2);
    expect(commands.some((command) => command.includes('--break'))).toBe(true);
    const shown = steps.flatMap((step) => step.expected).join('\n');
    expect(shown).toContain('✔ accepted: a new event (202 Accepted)');
    expect(shown).toContain('✔ accepted as a duplicate (202 Accepted)');
    expect(shown).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/m);
    expect(shown).toMatch(/^✗ B-DEDUP-001 /m);
    expect(shown).toMatch(/^  repro: +cai conformance run .* --only B-DEDUP-001$/m);
    expect(commands).toContain('sh repro/B-DEDUP-001.sh');
  });

  it('runs as written and prints what the README shows', async () => {
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    const results = await runWalkthrough(steps, { binDir: caiShim(), cwd: work, outDir: join(root, 'out'), timeoutMs: 90_000 });
    expect(compare(results, 'README.md')).toEqual([]);
    // The statuses the README shows, read from the run itself.
    const status = (prefix: string) => results.filter((result) => result.step.command?.startsWith(prefix)).map((result) => result.status);
    expect(status('cai conformance run')).toEqual([0, 1]);
    expect(status('cai send-event')).toEqual([0, 0]);
    expect(status('sh repro/B-DEDUP-001.sh')).toEqual([1]);
    expect(status('cai mock platform')).toEqual([130, 130]); // both stopped by Ctrl-C (SIGINT): 130, as every command
  }, 120_000);
});

describe('the walk-through runner itself', () => {
  it('matches excerpts: … skips lines or stands for text, variable parts are normalised', () => {
    const actual = ['a', '12:00:01.123  [202]  x  13 ms', 'b', 'c 127.0.0.1:41234 d'];
    expect(missingLine(['09:59:59.000  [202]  x  2.5 s', 'b'], actual)).toBeUndefined();
    expect(missingLine(['a', '…', 'c 127.0.0.1:8787 d'], actual)).toBeUndefined();
    expect(missingLine(['a', 'b'], actual)).toBe('b'); // consecutive unless … says otherwise
    expect(missingLine(['c … d'], actual)).toBeUndefined();
    expect(missingLine(['[203]'], actual)).toBe('[203]');
  });

  it('reports a line the command did not print and a status the page does not show', async () => {
    const page = [
      '<!-- walkthrough -->',
      '```console',
      '$ echo hello',
      'goodbye',
      '$ false',
      '$ sh -c "exit 3"',
      '$ echo $?',
      '3',
      '```',
    ].join('\n');
    const steps = walkthroughSteps(page);
    expect(steps.map((step) => [step.command, step.statusShown])).toEqual([
      ['echo hello', false],
      ['false', false],
      ['sh -c "exit 3"', true],
      ['echo $?', false],
    ]);
    const work = join(root, 'self');
    mkdirSync(work, { recursive: true });
    const results = await runWalkthrough(steps, { binDir: caiShim(), cwd: work, outDir: join(work, 'out'), timeoutMs: 20_000 });
    const problems = compare(results, 'page.md');
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^page\.md:3: `echo hello` did not print\n {4}goodbye\n/);
    expect(problems[1]).toMatch(/^page\.md:5: `false` exited 1; the page shows no status/);
  });

  it('starts terminal 2 on a free port and points later commands at it', () => {
    const script = walkthroughScript(walkthroughSteps(README), '/tmp/x');
    expect(script).toContain('cai mock platform --provider acme --port 0 >');
    expect(script).toContain('127.0.0.1:${P_8787}/events');
    expect(script).not.toMatch(/cai send-event --to http:\/\/127\.0\.0\.1:8787/);
  });
});
