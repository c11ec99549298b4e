/**
 * The built binary in a real pseudo-terminal of 80 columns (util-linux `script`, `stty cols 80`): no line wider
 * than the terminal, one listing per conformance run, colour only as the environment allows.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, spawnProcess } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';
import { screenLines, widestLine } from '../helpers/tty.js';
import { planFor } from '../../src/conformance/run-receiver.js';

/** The default B run against the mock, as the catalogue plans it: every check, and those run (optional ones skipped). */
const DEFAULT_B = planFor({ interface: 'B', selection: { only: [], skip: [], include: [] } }).planned;
const RUN_B = DEFAULT_B.filter((item) => item.skipReason === undefined).length;
const SKIPPED_B = DEFAULT_B.length - RUN_B;

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Runs `cai …` in a pseudo-terminal of `columns` columns; the terminal's output (stdout and stderr together). */
async function inTerminal(
  argv: string[],
  options: { columns?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; output: string }> {
  const command = `stty cols ${options.columns ?? 80} rows 50; exec ${quote(process.execPath)} ${quote(BIN)} ${argv.map(quote).join(' ')}`;
  const result = await spawnProcess('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, TERM: 'xterm-256color', NO_COLOR: '1', ...(options.env ?? {}) },
  });
  // The terminal turns each newline into CR LF.
  return { code: result.code, output: result.stdout.replace(/\r\n/g, '\n') };
}

describe.skipIf(!hasScript)('cai in a pseudo-terminal of 80 columns (built binary)', () => {
  it('conformance run --mock --interface B: a live status line, then a short summary; nothing wider than 80', async () => {
    const { code, output } = await inTerminal(['conformance', 'run', '--mock', '--interface', 'B']);
    expect(code).toBe(0);
    expect(widestLine(output)).toBeLessThanOrEqual(80);
    expect(output).toContain(`${DEFAULT_B.length}/${DEFAULT_B.length} checks`);
    const screen = screenLines(output);
    expect(screen[0]).toBe('cai conformance: interface B, built-in reference receiver');
    expect(screen[1]).toMatch(/^ {2}http:\/\/127\.0\.0\.1:\d+\/events, clock offset \+0 s$/);
    expect(screen.slice(2, 7)).toEqual([
      '',
      '- B-AUTH-016 skipped: optional: run it with --include origin',
      '- B-AUTH-022 skipped: optional: run it with --include origin',
      '- B-RATE-001 skipped: optional: run it with --include rate-limit',
      '',
    ]);
    expect(screen[7]).toMatch(
      new RegExp(`^${RUN_B} passed, 0 failed, ${SKIPPED_B} skipped in [\\d.]+ (?:ms|s|min|h)(?: \\d+ (?:min|s))*$`),
    );
    expect(screen[8]).toBe('0 warnings');
    expect(screen.slice(9)).toEqual([
      expect.stringMatching(/^stateful phase: seed \d+ \(the same seed draws the same conversations\)$/),
    ]);
  });

  it('conformance run --mock --interface A: nothing wider than 80', async () => {
    const { code, output } = await inTerminal(['conformance', 'run', '--mock', '--interface', 'A']);
    expect(code).toBe(0);
    expect(widestLine(output)).toBeLessThanOrEqual(80);
    // 106 checks, none failed. On a busy machine cai's own loop may be late for a timing judgement (the growth of the
    // callbacks' waits, BS-RETRY-005, at its edge): the check says so and ends not judged, never failed.
    const screen = screenLines(output);
    const counts = screen.findIndex((line) => /^\d+ passed, \d+ failed, \d+ skipped/.test(line));
    expect(counts, output).toBeGreaterThanOrEqual(0);
    const [passed, failed, skipped] = (screen[counts]?.match(/\d+/g) ?? []).map(Number);
    const notJudged = Number(screen[counts + 1]?.match(/(\d+) not judged/)?.[1] ?? 0);
    expect({ failed, skipped, judgedOrNot: (passed ?? 0) + notJudged }, output).toEqual({
      failed: 0,
      skipped: 0,
      judgedOrNot: 106,
    });
  });

  it('a failing run: each failure in detail with a short reproduction, fitted to 80 columns', async () => {
    const { code, output } = await inTerminal([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
    ]);
    expect(code).toBe(1);
    expect(widestLine(output)).toBeLessThanOrEqual(80);
    const screen = screenLines(output);
    expect(screen).toContain('✗ B-DEDUP-001 a sequential repeat of an event_id is answered 202');
    expect(screen).toContain('  expected: 202 {"ok":true,"duplicate":true}');
    expect(screen.some((line) => /^ {2}repro: {4}sh \/\S+\/B-DEDUP-001\.sh$/.test(line))).toBe(true);
    expect(output).not.toContain('┌');
  });

  it('a send to a dead local port: exit 3 at once, the error and the hint wrapped to 80 columns', async () => {
    const dead = `http://127.0.0.1:${await deadLoopbackPort()}`;
    const url = `${dead}/events`;
    const { code, output } = await inTerminal(['send-event', '--to', url, '--provider', 'acme', '--sample'], {
      env: { CAI_SECRET: 'whsec_test' },
    });
    expect(code).toBe(3);
    expect(widestLine(output)).toBeLessThanOrEqual(80);
    const screen = screenLines(output);
    const error = screen.findIndex((line) => line.startsWith('error: '));
    expect(screen.slice(error, error + 2)).toEqual([
      `error: nothing listens at ${dead}: the connection was refused`,
      '       (ECONNREFUSED)',
    ]);
    expect(screen[error + 2]).toBe('hint: is the receiver running, and on the port of the URL? (cai mock');
  });

  it('colour on a terminal; none with FORCE_COLOR=0', async () => {
    const argv = ['conformance', 'run', '--mock', '--interface', 'B', '--only', 'B-ACCEPT-001'];
    const coloured = await inTerminal(argv, { env: { NO_COLOR: '' } });
    expect(coloured.code).toBe(0);
    expect(coloured.output).toContain('\x1b[32m1 passed\x1b[39m');
    const plain = await inTerminal(argv, { env: { NO_COLOR: '', FORCE_COLOR: '0' } });
    expect(plain.code).toBe(0);
    expect(plain.output.replace(/\r|\x1b\[K/g, '')).not.toContain('\x1b[');
    expect(screenLines(plain.output)).toContain(
      '1 passed, 0 failed, 0 skipped in ' +
        screenLines(plain.output)
          .find((line) => line.startsWith('1 passed'))
          ?.split(' in ')[1],
    );
  });
});
