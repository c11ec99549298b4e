/**
 * The README, run as printed after its two set-up commands (`npm ci`, done here, and `npm test`, which runs this):
 * every code block is run by a test. The walk-through's commands run in bash as written, `npx cai-toolkit …` from a
 * folder of this checkout (as a user runs them in the clone: no `cai` shim on the PATH), with a second terminal for
 * the mock platform; what the README shows after each command must be what it printed (test/docs/walkthrough.ts),
 * and every command exits as the README says. The set-up command's run is run too; the install blocks run in
 * test/e2e/install.e2e.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, spawnProcess } from '../helpers/cli.js';
import { codeBlocks } from './markdown.js';
import { compare, missingLine, runWalkthrough, walkthroughScript, walkthroughSteps } from './walkthrough.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The one way the README calls the tool: the package's name through npx, which runs the clone's own build. */
const CAI = 'npx cai-toolkit';
// Inside the checkout (.cai-tmp is ignored by git), as the README's "run it in the clone" asks.
mkdirSync(join(ROOT, '.cai-tmp'), { recursive: true });
const root = mkdtempSync(join(ROOT, '.cai-tmp', 'readme-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** npm as a user has it, less its notices: its cache (where npx keeps its link to the project) is this machine's. */
const npmEnv: NodeJS.ProcessEnv = {
  npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

/** Shell words the walk-through may use besides cai. */
const SHELL = /^(export [A-Z_]+=\S+|printf |echo \$\?$|sh repro\/)/;

describe('the README', () => {
  it('is the front door: at most about 150 lines and 20 000 bytes, what it is, who it is for, install, the set-up, a walk-through, the commands', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(155);
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(20_000);
    const headings = [...README.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Install', 'Five-minute walk-through', 'Commands', 'Secrets', 'Exit codes']);
    expect(README).toMatch(/^Who uses it:$/m);
  });

  it('every code block is run by a test: the set-up, the walk-through, the install blocks', () => {
    const markers = codeBlocks(README).map((block) => block.marker);
    expect(
      markers.filter((marker) => !['setup', 'walkthrough', 'walkthrough: terminal 2'].includes(marker ?? '')),
    ).toEqual([]);
    expect(markers.filter((marker) => marker === 'setup')).toHaveLength(1);
  });

  it('calls the tool one way, `npx cai-toolkit`, in every command', () => {
    const commands = walkthroughSteps(README).flatMap((step) => (step.command ? [step.command] : []));
    expect(commands.filter((command) => !command.startsWith(`${CAI} `) && !SHELL.test(command))).toEqual([]);
    // In the text too: `cai …` alone is no command after `npm ci` in a clone.
    const prose = README.replace(/^```[\s\S]*?^```$/gm, '');
    expect(prose.match(/`cai [a-z-]+[^`]*`/g) ?? []).toEqual([]);
  });
});

describe('the set-up', () => {
  const block = codeBlocks(README).find((candidate) => candidate.marker === 'setup');
  const lines = (block?.lines ?? []).map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');

  it('is two commands: npm ci and the main job against the built-in receiver, then npm test', () => {
    expect(lines).toEqual([`npm ci && ${CAI} conformance run --mock --interface B`, 'npm test']);
  });

  it("its first command's run, after npm ci, passes in the clone", async () => {
    const words = (lines[0] ?? '').replace(/^npm ci && /, '').split(' ');
    const run = await spawnProcess(words[0] as string, words.slice(1), {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: homedir(), NO_COLOR: '1', ...npmEnv },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\n\d+ passed, 0 failed, \d+ skipped\n/);
  });
});

describe('the README walk-through', () => {
  const steps = walkthroughSteps(README);

  it('covers what the README promises: a mock, an accepted event, a duplicate, a passing and a failing run', () => {
    const commands = steps.flatMap((step) => (step.command ? [step.command] : []));
    expect(commands.some((command) => command.startsWith(`${CAI} mock platform`))).toBe(true);
    expect(commands.filter((command) => command.startsWith(`${CAI} send-event`)).length).toBeGreaterThanOrEqual(2);
    expect(commands.filter((command) => command.startsWith(`${CAI} conformance run`)).length).toBe(2);
    expect(commands.some((command) => command.includes('--break'))).toBe(true);
    const shown = steps.flatMap((step) => step.expected).join('\n');
    expect(shown).toContain('✔ accepted: a new event (202 Accepted)');
    expect(shown).toContain('✔ accepted as a duplicate (202 Accepted)');
    expect(shown).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/m);
    expect(shown).toMatch(/^✗ B-DEDUP-001 /m);
    expect(shown).toMatch(/^ {2}repro: +… conformance run .* --only B-DEDUP-001$/m);
    expect(commands).toContain('sh repro/B-DEDUP-001.sh');
  });

  it('runs as written and prints what the README shows', async () => {
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    const results = await runWalkthrough(steps, {
      cwd: work,
      outDir: join(root, 'out'),
      // A bound on a hang, not a verdict on speed: in CI, beside the conformance suite, it took over 150 s.
      timeoutMs: 280_000,
      env: npmEnv,
    });
    expect(compare(results, 'README.md')).toEqual([]);
    // The statuses the README shows, read from the run itself.
    const status = (prefix: string) =>
      results.filter((result) => result.step.command?.startsWith(prefix)).map((result) => result.status);
    expect(status(`${CAI} conformance run`)).toEqual([0, 1]);
    expect(status(`${CAI} send-event`)).toEqual([0, 0]);
    expect(status('sh repro/B-DEDUP-001.sh')).toEqual([1]);
    expect(status(`${CAI} mock platform`)).toEqual([130, 130]); // both stopped by Ctrl-C (SIGINT): 130, as every command
    // The repro names the clone's cai by its full path: it runs from any folder.
    const failing = results.find((result) => result.step.command?.includes('--repro-dir'));
    expect(failing?.stdout).toContain(`repro:    ${process.execPath} ${join(ROOT, 'bin', 'cai.js')} conformance run `);
  });
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
    const results = await runWalkthrough(steps, { cwd: work, outDir: join(work, 'out'), timeoutMs: 20_000 });
    const problems = compare(results, 'page.md');
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^page\.md:3: `echo hello` did not print\n {4}goodbye\n/);
    expect(problems[1]).toMatch(/^page\.md:5: `false` exited 1; the page shows no status/);
  });

  it('starts terminal 2 on a free port, in a process group of its own (Ctrl-C reaches npx and the cai it starts), and points later commands at it', () => {
    const script = walkthroughScript(walkthroughSteps(README), '/tmp/x');
    expect(script).toContain(`${CAI} mock platform --provider acme --port 0 >`);
    expect(script).toContain('set -m');
    expect(script).toContain('kill -INT -- "-$bg"');
    expect(script).toContain('127.0.0.1:${P_8787}/events');
    expect(script).not.toMatch(/send-event --to http:\/\/127\.0\.0\.1:8787/);
  });
});
