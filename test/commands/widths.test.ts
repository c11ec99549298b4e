/**
 * No line wider than the terminal, and no example cut inside a quoted string: every `--help` (every command and group, and the program's) and every listing,
 * rendered at 80 and at 60 columns, on a terminal of that width (fake TTY streams) and, for help, piped with
 * `COLUMNS` set; and `TERM=dumb` gets no cursor control (no `\r`, no erase-line), however long the command runs.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { runTty, widestLine } from '../helpers/tty.js';
import { loadProgram } from '../docs/cli-surface.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-widths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_widths_0123456789' };

/** Every command path: the program, the groups and their subcommands. */
function paths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((sub) => paths(sub, [...prefix, sub.name()]))];
}

let helps: string[][] = [];
/** A folder with the profile `cai config init` writes, for `config show`. */
const profile = join(dir, 'profile');
beforeAll(async () => {
  helps = paths(await loadProgram());
  mkdirSync(profile);
  expect((await runCli(['config', 'init'], { cwd: profile })).code).toBe(0);
});

/** Whether every quoted string of a shell line closes on that line (a `'…'` or `"…"` open at its end was cut). */
function quotesBalanced(line: string): boolean {
  let quote: string | undefined;
  for (const char of line) {
    if (quote === undefined && (char === "'" || char === '"')) quote = char;
    else if (char === quote) quote = undefined;
  }
  return quote === undefined;
}

const overflowing = (text: string, columns: number) =>
  text
    .split('\n')
    .filter((line) => widestLine(line) > columns)
    .map((line) => `${widestLine(line)}: ${line}`);

describe.each([80, 60])('at %i columns', (columns) => {
  it('every --help fits, on a terminal and piped with COLUMNS', async () => {
    expect(helps.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const path of helps) {
      const tty = await runTty([...path, '--help'], { columns });
      const piped = await runCli([...path, '--help'], { env: { COLUMNS: String(columns) } });
      for (const [how, result] of [
        ['tty', tty],
        ['COLUMNS', piped],
      ] as const) {
        expect(result.code, `cai ${path.join(' ')} --help`).toBe(0);
        expect(result.stdout, `cai ${path.join(' ')} --help`).toMatch(/^Usage: cai/);
        problems.push(
          ...overflowing(result.stdout, columns).map((line) => `cai ${path.join(' ')} --help (${how}) ${line}`),
        );
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('no example of any --help is broken inside a quoted string: each line pastes as whole words', async () => {
    const problems: string[] = [];
    for (const path of helps) {
      const tty = await runTty([...path, '--help'], { columns });
      const piped = await runCli([...path, '--help'], { env: { COLUMNS: String(columns) } });
      for (const [how, result] of [
        ['tty', tty],
        ['COLUMNS', piped],
      ] as const) {
        let continued = false;
        for (const line of result.stdout.split('\n')) {
          const command: boolean = continued || /^\s*\$ /.test(line);
          continued = command && / \\$/.test(line);
          if (command && !quotesBalanced(line)) problems.push(`cai ${path.join(' ')} --help (${how}): ${line}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it.each([
    ['conformance', 'list'],
    ['conformance', 'list', '--role', 'sender'],
    ['conformance', 'list', '--interface', 'A', '--wide'],
    ['send-event', '--print-schedule'],
    ['report', '--log', join(ROOT, 'fixtures/logs/platform.ndjson')],
    [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--only',
      'dedupe',
      '--no-generate',
      '--verbose',
      '--repro-dir',
      join(dir, 'repro'),
    ],
    // The spinner needs a real terminal's cursor calls: TERM=dumb leaves the result alone on the fake one.
    ['doctor', '--target', 'http://127.0.0.1:9/cai/events', '--timeout', '1s'],
    ['config', 'show', '--env', 'test'],
  ])(
    '%j fits',
    async (...argv) => {
      const where =
        argv[0] === 'config' ? { cwd: profile } : argv[0] === 'doctor' ? { env: { ...env, TERM: 'dumb' } } : {};
      const result = await runTty(argv, { columns, env, ...where });
      expect(result.code, result.stderr).toBeLessThanOrEqual(1);
      expect(overflowing(result.stdout, columns)).toEqual([]);
      expect(overflowing(result.stderr.split('\r').join('\n'), columns)).toEqual([]);
    },
    60_000,
  );
});

describe('TERM=dumb: a terminal without cursor control', () => {
  it('gets progress as plain lines, never a line redrawn in place', async () => {
    const dumb = await runTty(
      ['conformance', 'run', '--mock', '--interface', 'B', '--only', 'dedupe', '--no-generate'],
      { columns: 80, env: { ...env, TERM: 'dumb' } },
    );
    expect(dumb.code).toBe(0);
    expect(dumb.stderr).not.toContain('\r');
    expect(dumb.stderr).not.toContain('\x1b[K');
    expect(dumb.stderr).toMatch(/^✓ +1\/14 B-DEDUP-\d{3} /m);
    // The same run on a terminal that can redraw does redraw: the check above can fail.
    const smart = await runTty(
      ['conformance', 'run', '--mock', '--interface', 'B', '--only', 'dedupe', '--no-generate'],
      { columns: 80, env: { ...env, TERM: 'xterm-256color' } },
    );
    expect(smart.stderr).toContain('\r');
  });
});
