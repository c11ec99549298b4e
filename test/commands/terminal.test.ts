/**
 * The terminal: output laid out for its width (80 columns must look right, 60 and 40 degrade without breaking),
 * one listing per conformance run, colour decided from the terminal, NO_COLOR, FORCE_COLOR and --no-color; and,
 * without a terminal, plain and complete output. Fake TTY streams in-process (test/helpers/tty.ts).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { colorLevel, Output } from '../../src/output/output.js';
import { MockLines } from '../../src/commands/mock/lines.js';
import { renderBatchSummary } from '../../src/commands/send/batch-summary.js';
import { summarize, type BatchRecord } from '../../src/send/batch.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { runTty, screenLines, ttyIo, widestLine } from '../helpers/tty.js';
import { planFor } from '../../src/conformance/run-receiver.js';

/** The default B run, as the catalogue plans it: every check, and those run (optional ones skipped). */
const DEFAULT_B = planFor({ interface: 'B', selection: { only: [], skip: [], include: [] } }).planned;
const RUN_B = DEFAULT_B.filter((item) => item.skipReason === undefined).length;
const SKIPPED_B = DEFAULT_B.length - RUN_B;

const dir = mkdtempSync(join(tmpdir(), 'cai-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const reproDir = () => mkdtempSync(join(dir, 'repro-'));
const ESC = '\x1b[';

describe('colour decisions (STYLE.md: only on a terminal, never against NO_COLOR, FORCE_COLOR=0, --no-color, --json)', () => {
  const plain = { json: false };
  it.each([
    ['a terminal', {}, true, plain, 1],
    ['a pipe', {}, false, plain, 0],
    ['NO_COLOR=1 on a terminal', { NO_COLOR: '1' }, true, plain, 0],
    ['NO_COLOR empty on a terminal (unset)', { NO_COLOR: '' }, true, plain, 1],
    ['FORCE_COLOR=0 on a terminal', { FORCE_COLOR: '0' }, true, plain, 0],
    ['FORCE_COLOR=false on a terminal', { FORCE_COLOR: 'false' }, true, plain, 0],
    ['FORCE_COLOR=1 on a pipe', { FORCE_COLOR: '1' }, false, plain, 1],
    ['FORCE_COLOR=3 on a pipe', { FORCE_COLOR: '3' }, false, plain, 3],
    ['NO_COLOR beats FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '1' }, true, plain, 0],
    ['--no-color beats FORCE_COLOR', { FORCE_COLOR: '1' }, true, { json: false, color: false }, 0],
    ['--json', {}, true, { json: true }, 0],
    ['TERM=dumb', { TERM: 'dumb' }, true, plain, 0],
  ] as const)('%s', (_name, env, isTTY, options, level) => {
    expect(colorLevel(env, isTTY, options)).toBe(level);
  });

  const argv = [
    'conformance',
    'run',
    '--mock',
    '--interface',
    'B',
    '--only',
    'B-ACCEPT-001,B-SIZE-001',
    '--break',
    'no-size-limit',
  ];

  it('a terminal gets the verdicts and the count line in colour', async () => {
    const result = await runTty([...argv, '--repro-dir', reproDir()], { columns: 80, env: { NO_COLOR: '' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${ESC}31m✗ B-SIZE-001${ESC}39m`);
    expect(result.stdout).toMatch(
      new RegExp(`^\\x1b\\[32m1 passed\\x1b\\[39m, \\x1b\\[31m1 failed\\x1b\\[39m, 0 skipped`, 'm'),
    );
  });

  it.each([
    ['FORCE_COLOR=0', ['--repro-dir'], { NO_COLOR: '', FORCE_COLOR: '0' }],
    ['NO_COLOR=1', ['--repro-dir'], { NO_COLOR: '1' }],
    ['--no-color', ['--no-color', '--repro-dir'], { NO_COLOR: '' }],
  ] as const)('%s turns colour off on a terminal', async (_name, flags, env) => {
    const result = await runTty([...argv, ...flags, reproDir()], { columns: 80, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ B-SIZE-001');
    // Only the status line's own redraw codes (carriage return, erase to the end of the line) may remain.
    expect(result.stdout.replace(/\r|\x1b\[K/g, '')).not.toContain(ESC);
    expect(result.stderr.replace(/\r|\x1b\[K/g, '')).not.toContain(ESC);
  });
});

describe('cai conformance run on a terminal', () => {
  it.each([80, 60, 40])(
    'at %i columns: no line is wider, no table, the failures in detail, one listing',
    async (columns) => {
      const repro = reproDir();
      const result = await runTty(
        ['conformance', 'run', '--mock', '--interface', 'B', '--break', 'no-size-limit', '--repro-dir', repro],
        { columns },
      );
      expect(result.code).toBe(1);
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(columns);
      expect(widestLine(result.stderr)).toBeLessThanOrEqual(columns);
      const out = screenLines(result.stdout);
      expect(result.stdout).not.toContain('┌');
      // One listing: the checks that passed are counted, not listed again.
      expect(result.stdout).not.toContain('B-ACCEPT-001');
      expect(out.join(' ').replace(/\s+/g, ' ')).toMatch(/✗ B-SIZE-001 a correctly signed body of 262145 bytes/);
      expect(out.join('\n')).toMatch(/ {2}expected: 413 \(body too large\)/);
      expect(out.join('\n')).toMatch(/ {2}actual: {3}202 \{"ok":true\}/);
      expect(out.join('').replace(/\s+/g, '')).toContain(`repro:sh${repro}/B-SIZE-001.sh`.replace(/\s+/g, ''));
      expect(out.join(' ').replace(/\s+/g, ' ')).toContain(
        '- B-AUTH-016 skipped: optional: run it with --include origin',
      );
      expect(
        out.some((line) =>
          new RegExp(
            `^${RUN_B - 3} passed, 3 failed, ${SKIPPED_B} skipped( in [\\d.]+ (?:ms|s|min|h)(?: \\d+ (?:min|s))*)?$`,
          ).test(line),
        ),
      ).toBe(true);
      // The live status line went by on stderr and was cleared.
      expect(result.stderr).toContain(`${DEFAULT_B.length}/${DEFAULT_B.length} checks`);
      expect(screenLines(result.stderr)[0]).toMatch(/^(bodies and repro scripts of the failing requests:)?/);
      // The repro script runs the command the report names.
      expect(readdirSync(repro).sort()).toEqual([
        '.cai-reproductions',
        'B-SIZE-001.body',
        'B-SIZE-001.sh',
        'B-SIZE-004.body',
        'B-SIZE-004.sh',
        'B-STATE-006.body',
        'B-STATE-006.sh',
      ]);
    },
  );

  it('--verbose adds the table of every check, fitted to 80 columns; at 40 each check becomes a list', async () => {
    const argv = [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'B-ACCEPT-001,B-DEDUP-001',
      '--verbose',
    ];
    const wide = await runTty(argv, { columns: 80 });
    expect(wide.code).toBe(0);
    expect(widestLine(wide.stdout)).toBeLessThanOrEqual(80);
    expect(wide.stdout).toContain('┌');
    // The title wraps where the duration column is wider (a check that took 650 ms, not 65, on a busy machine).
    expect(screenLines(wide.stdout).find((line) => line.startsWith('│ B-DEDUP-001'))).toMatch(
      /^│ B-DEDUP-001 {2}│ a sequential repeat of an(?: event_id)? +│ must +│ ✓ passed +│ +[\d.]+ m?s +│$/,
    );
    const narrow = await runTty(argv, { columns: 40 });
    expect(widestLine(narrow.stdout)).toBeLessThanOrEqual(40);
    expect(narrow.stdout).not.toContain('┌');
    expect(screenLines(narrow.stdout)).toContain('id       B-ACCEPT-001');
  });

  it('without a terminal, --format table: the full table and every line whole (CI logs, pipes)', async () => {
    const result = await runCli([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-size-limit',
      '--format',
      'table',
      '--repro-dir',
      reproDir(),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('│ B-ACCEPT-001 │ a valid conversation.message event is accepted');
    expect(result.stdout).toMatch(/^ {2}body: {5}\/.*\/B-SIZE-001\.body$/m);
    expect(result.stdout).toMatch(
      /^ {2}repro: {4}cai conformance run --interface B --mock --break no-size-limit --format table --only B-SIZE-001$/m,
    );
    expect(result.stdout).toMatch(new RegExp(`^${RUN_B - 3} passed, 3 failed, ${SKIPPED_B} skipped$`, 'm'));
    expect(result.stderr).not.toContain('\r');
  });

  it('stdout piped and stderr a terminal: the live line on stderr, the compact report on stdout', async () => {
    const result = await runTty(['conformance', 'run', '--mock', '--interface', 'B', '--only', 'B-ACCEPT-001'], {
      columns: 80,
      stdout: false,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^cai conformance: interface B, the built-in reference receiver, clock offset [+-]\d+ s\n1 passed, 0 failed, 0 skipped\n0 warnings\n$/,
    );
    expect(result.stderr).toContain('1/1 checks');
  });
});

describe('other renderers fit the terminal', () => {
  it('cai conformance list at 60 columns: the compact list by theme, no word cut; --wide: the table', async () => {
    const result = await runTty(['conformance', 'list', '--interface', 'B'], { columns: 60 });
    expect(result.code).toBe(0);
    expect(widestLine(result.stdout)).toBeLessThanOrEqual(60);
    const lines = screenLines(result.stdout);
    expect(lines).toContain('acceptance (B-ACCEPT, 12)');
    expect(lines).toContain('  B-ACCEPT-002  must      a valid appointment.booked event');
    expect(result.stdout).not.toContain('│');
    // Every word of every title is whole on some line.
    const words = new Set(lines.flatMap((line) => line.trim().split(/\s+/)));
    for (const word of ['appointment.booked', '{"ok":true,"duplicate":true}']) expect(words.has(word), word).toBe(true);
    const wide = await runTty(['conformance', 'list', '--interface', 'B', '--wide'], { columns: 160 });
    expect(wide.stdout).toMatch(/│ B-ACCEPT-001 +│ must +│ §4\.2 §6 §2\.5 +│ acceptance, events +│/);
  });

  it.each([80, 60, 40])(
    'the report tables at %i columns: fitted, or a list per row when too narrow',
    async (columns) => {
      const result = await runTty(
        ['report', '--log', 'fixtures/logs/platform.ndjson', '--log', 'fixtures/logs/provider.ndjson'],
        { columns },
      );
      expect(result.code).toBe(0);
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(columns);
      const text = screenLines(result.stdout).join('\n');
      expect(text).toContain('Jobs and first contact');
      // Every figure is still there: BR-001 appears in each of the four views.
      expect(text.match(/BR-001/g)).toHaveLength(4);
    },
  );

  it('the batch summary at 40 columns, and its pace line says what it counts', async () => {
    const io = ttyIo({ columns: 40 });
    const output = await Output.create(io, { json: false, quiet: false, debug: false });
    const records: BatchRecord[] = [1, 2, 3].map((line) => ({
      line,
      bodySha256: 'x',
      verdict: 'accepted',
      sent: true,
      attempts: line,
    }));
    await renderBatchSummary(summarize(records, 1500, false), records, undefined, output);
    expect(widestLine(io.out())).toBeLessThanOrEqual(40);
    expect(screenLines(io.out()).join(' ')).toContain(
      '3 documents in 1.5 s (2 documents/s), 6 HTTP requests (retries included)',
    );
  });

  it('the mock lines at 60 columns wrap under the status', async () => {
    const io = ttyIo({ columns: 60 });
    const output = await Output.create(io, { json: false, quiet: false, debug: false });
    const lines = new MockLines(output);
    lines.request({
      v: 1,
      interface: 'B',
      received_at: '2026-11-23T10:00:00.000Z',
      status: 401,
      verdict: 'rejected',
      event: 'conversation.message',
      event_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      lead_id: 'lead_7f3a',
      reason: 'invalid_signature',
      message: 'the signature does not match the body and timestamp with any given secret',
    } as Parameters<MockLines['request']>[0]);
    lines.flush();
    const shown = screenLines(io.out());
    expect(widestLine(io.out())).toBeLessThanOrEqual(60);
    expect(shown[0]).toMatch(/^10:00:00\.000 {2}\[401\] {2}rejected/);
    expect(shown.slice(1).every((line) => line.startsWith(' '.repeat(14)))).toBe(true);
    expect(shown.join(' ').replace(/\s+/g, ' ')).toContain(
      'the signature does not match the body and timestamp with any given secret',
    );
  });

  it('a send result at 40 columns, and the retry schedule at 60', async () => {
    const server = await startScriptedServer(
      [
        {
          status: 202,
          body: { ok: true, note: 'a rather long message from the receiver that a terminal would have to wrap' },
        },
      ],
      { path: '/events' },
    );
    try {
      const result = await runTty(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], {
        columns: 40,
        env: { CAI_SECRET: 'whsec_test' },
      });
      expect(result.code).toBe(0);
      expect(widestLine(result.stdout)).toBeLessThanOrEqual(40);
      expect(widestLine(result.stderr)).toBeLessThanOrEqual(40);
      expect(screenLines(result.stdout).join(' ').replace(/\s+/g, ' ')).toContain(
        'a rather long message from the receiver that a terminal would have to wrap',
      );
    } finally {
      await server.close();
    }
    const schedule = await runTty(['send-event', '--print-schedule'], { columns: 60 });
    expect(schedule.code).toBe(0);
    expect(widestLine(schedule.stdout)).toBeLessThanOrEqual(60);
  });

  it('validate and the errors on stderr at 40 columns', async () => {
    const file = join(dir, 'bad-event.json');
    writeFileSync(
      file,
      JSON.stringify({
        event: 'job.closed',
        event_id: 'e1',
        outcome: 'maybe',
        attempts: 'three',
        occurred_at: 'yesterday',
      }),
    );
    const result = await runTty(['validate', file], { columns: 40 });
    expect(result.code).toBe(1);
    expect(widestLine(result.stdout)).toBeLessThanOrEqual(40);
    const usage = await runTty(['conformance', 'run', '--interface', 'B'], { columns: 40 });
    expect(usage.code).toBe(2);
    expect(widestLine(usage.stderr)).toBeLessThanOrEqual(40);
    expect(screenLines(usage.stderr)).toEqual([
      'error: no receiver to check',
      'hint: pass --to URL, or --mock to run',
      '      against the built-in reference',
      '      receiver',
    ]);
  });
});
