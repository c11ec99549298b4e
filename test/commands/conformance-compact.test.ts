/**
 * The report of `cai conformance run` where stdout is not a terminal (a CI log, a pipe, a file): the compact form by
 * default (what was judged, a line per failed, warned or waived check, the count lines, none over 100 columns), the
 * table with `--format table` or `--verbose`, the failures and the counts alone with `--quiet`; on a terminal, the
 * table as before. What the target answered is escaped in every line.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { runTty, widestLine } from '../helpers/tty.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-compact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const repro = () => ['--repro-dir', mkdtempSync(join(dir, 'repro-'))];

const lines = (text: string) => text.split('\n').filter((line) => line !== '');
const overflowing = (text: string) => lines(text).filter((line) => widestLine(line) > 100);

describe('piped, the compact form is the default', () => {
  it('a passing run: the headline and the count lines, nothing over 100 columns, at most 40 lines (built binary)', async () => {
    // The stateful phase smaller than by default (the README's walk-through and the quick start run it whole): the
    // lines are the same.
    const result = await spawnCli(['conformance', 'run', '--interface', 'B', '--mock', '--generate', '300']);
    expect(result.code, result.stderr).toBe(0);
    const all = `${result.stdout}${result.stderr}`;
    expect(overflowing(all)).toEqual([]);
    expect(lines(all).length).toBeLessThanOrEqual(40);
    expect(lines(result.stdout)).toEqual([
      expect.stringMatching(/^cai conformance: interface B, the built-in reference receiver, clock offset [+-]\d+ s$/),
      expect.stringMatching(/^\d+ passed, 0 failed, \d+ skipped$/),
      '0 warnings',
      expect.stringMatching(/^stateful phase: seed \d+ \(the same seed draws the same conversations\)$/),
    ]);
    expect(result.stdout).not.toContain('│');
  }, 60_000);

  it('a failing run: one line per failed check, its level, section, answer and what was expected', async () => {
    const result = await runCli([
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--break',
      'no-dedupe',
      '--only',
      'dedupe',
      '--no-generate',
      ...repro(),
    ]);
    expect(result.code).toBe(1);
    const failures = lines(result.stdout).filter((line) => line.startsWith('✗ '));
    expect(failures.length).toBe(5);
    const out = lines(result.stdout);
    const at = out.indexOf('✗ B-DEDUP-001 must §6.1: 202 {"ok":true}: not answered as a repeat (expected 202');
    expect(out.slice(at, at + 2)).toEqual([
      '✗ B-DEDUP-001 must §6.1: 202 {"ok":true}: not answered as a repeat (expected 202',
      '    {"ok":true,"duplicate":true})',
    ]);
    // The stateful phase's checks of the same tag are there, skipped (--no-generate).
    expect(result.stdout).toMatch(/^\d+ passed, 5 failed, 3 skipped$/m);
    expect(overflowing(result.stdout + result.stderr)).toEqual([]);
    // Where the details are: on stderr, as a note (the report itself stays the result).
    expect(result.stderr).toContain(
      'note: each failure in detail (request, answer, reproduction): --format table, or --html FILE',
    );
  });

  it('--quiet: only the failures and the count lines', async () => {
    const result = await runCli([
      '--quiet',
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--break',
      'no-dedupe',
      '--only',
      'dedupe',
      '--no-generate',
      ...repro(),
    ]);
    expect(result.code).toBe(1);
    const out = lines(result.stdout);
    // The failures (each wrapped to three lines at most), then the count lines, nothing else.
    expect(out.filter((line) => line.startsWith('✗ B-DEDUP-'))).toHaveLength(5);
    expect(out.every((line) => /^(✗ B-DEDUP-| {4}\S)/.test(line) || out.indexOf(line) >= out.length - 2)).toBe(true);
    expect(out.slice(-2)).toEqual([expect.stringMatching(/^\d+ passed, 5 failed, 3 skipped$/), '0 warnings']);
    expect(result.stderr).not.toContain('note:');
  });

  it('--quiet --format table: each failure in detail and the counts, without the table or the headline', async () => {
    const result = await runCli([
      '--quiet',
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--break',
      'no-dedupe',
      '--only',
      'dedupe',
      '--no-generate',
      '--format',
      'table',
      ...repro(),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('│');
    expect(result.stdout).not.toContain('cai conformance:');
    expect(result.stdout).toContain('  expected: 202 {"ok":true,"duplicate":true}');
    expect(result.stdout).toMatch(/^\d+ passed, 5 failed, 3 skipped$/m);
  });

  it('--format table and --verbose: the table of every check, as before', async () => {
    for (const flag of [['--format', 'table'], ['--verbose']]) {
      const result = await runCli([
        'conformance',
        'run',
        '--interface',
        'B',
        '--mock',
        '--only',
        'dedupe',
        '--no-generate',
        ...flag,
        ...repro(),
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('│ B-DEDUP-002 │');
    }
  });

  it('a waived failure gets its line with the reason', async () => {
    const waivers = join(dir, 'waivers.json');
    (await import('node:fs')).writeFileSync(
      waivers,
      JSON.stringify([{ id: 'B-DEDUP-001', reason: 'fix in PLAT-123', expires: '2999-01-01' }]),
    );
    const result = await runCli([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--only',
      'B-DEDUP-001',
      '--waivers',
      waivers,
      ...repro(),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('~ B-DEDUP-001 waived: fix in PLAT-123 (until 2999-01-01); 202 {"ok":true}');
  });

  it('FORCE_COLOR colours the verdict symbols of a log (and only them); without it, none', async () => {
    const argv = [
      'conformance',
      'run',
      '--interface',
      'B',
      '--mock',
      '--break',
      'no-dedupe',
      '--only',
      'B-DEDUP-001',
      '--no-generate',
      ...repro(),
    ];
    const coloured = await runCli(argv, { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(coloured.stdout).toMatch(/^\u001b\[31m✗\u001b\[39m B-DEDUP-001 must §6\.1: /m);
    const plainRun = await runCli(argv);
    expect(plainRun.stdout).not.toContain('\u001b');
  });

  it('--format takes compact or table only', async () => {
    const result = await runCli(['conformance', 'run', '--interface', 'B', '--mock', '--format', 'junit']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: option '--format <format>' argument 'junit' is invalid\. Allowed choices are compact, table\.$/m,
    );
  });
});

describe('on a terminal', () => {
  it('the table format stays the default: the failures in detail, no line per failure', async () => {
    const result = await runTty(
      ['conformance', 'run', '--interface', 'B', '--mock', '--break', 'no-dedupe', '--only', 'B-DEDUP-001', ...repro()],
      { columns: 100 },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('expected: 202 {"ok":true,"duplicate":true}');
    expect(result.stdout).not.toContain('✗ B-DEDUP-001 must §6.1:');
  });
});

describe('a receiver that answers with terminal controls and long bodies', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // Accepts everything (so the signature and dedupe checks fail), answering with an ESC sequence, a bidi override
    // and 300 characters: every failure line quotes it.
    const body = `{"ok":true,"x":"\u001b[2J\u001b]0;pwned\u0007\u202eevil ${'y'.repeat(300)}"}`;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(202, { 'content-type': 'application/json' }).end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/events`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('every failure line is escaped, wrapped at 100 columns to three lines at most', async () => {
    const result = await runCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--target',
        url,
        '--provider',
        'acme',
        '--only',
        'B-DEDUP-001,B-AUTH-001',
        ...repro(),
      ],
      { env: { CAI_SECRET: 'whsec_compact' } },
    );
    expect(result.code).toBe(1);
    const failures = lines(result.stdout).filter((line) => line.startsWith('✗ '));
    expect(failures.length).toBe(2);
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(failures.some((line) => line.includes('\\x1b[2J'))).toBe(true);
    expect(overflowing(result.stdout)).toEqual([]);
    // Each failure wraps to three lines at most, the last cut: its cause (often at the end) is in the log.
    const all = lines(result.stdout);
    for (const first of failures) {
      const at = all.indexOf(first);
      const continued = all.slice(at + 1).findIndex((line) => !line.startsWith('    '));
      const count = 1 + (continued < 0 ? all.length - at - 1 : continued);
      expect(count).toBeLessThanOrEqual(3);
    }
  });
});
