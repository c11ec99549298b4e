import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const LOGS = ['--log', 'fixtures/logs/provider.ndjson', '--log', 'fixtures/logs/platform.ndjson'];

describe('cai report', () => {
  it('prints the four tables with totals on stdout and nothing on stderr', async () => {
    const result = await runCli(['report', ...LOGS]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      'fixtures/logs/provider.ndjson, fixtures/logs/platform.ndjson: 21 records, 18 used (live space; start of log – end of log)',
    );
    expect(lines[1]).toBe('skipped: 1 duplicates, 1 not accepted, 1 outside the live space');
    expect(result.stdout).toContain('Jobs and first contact (target: within 5 minutes, §8)');
    expect(result.stdout).toMatch(/│ \(total\)\s+│ 6\s+│ 4\s+│ 1 min 0 s\s+│ 6 min 40 s │ 50\.0% \(3\/6\)\s+│/);
    expect(result.stdout).toMatch(/│ BR-001\s+│ 5\s+│ 2 s\s+│ 1 min 30 s │ 1 min 30 s │ 80\.0% \(4\/5\)\s+│/);
  });

  it('--json (or --format json) prints one document with the filter, counts and malformed lines', async () => {
    const viaGlobal = await runCli([
      '--json',
      'report',
      ...LOGS,
      '--provider',
      'acme',
      '--since',
      '2026-11-22T13:06:00+00:00',
    ]);
    const viaFormat = await runCli([
      'report',
      ...LOGS,
      '--provider',
      'acme',
      '--since',
      '2026-11-22T13:06:00Z',
      '--format',
      'json',
    ]);
    expect(viaGlobal.stdout).toBe(viaFormat.stdout);
    const doc = JSON.parse(viaGlobal.stdout);
    expect(doc.filter).toEqual({ since: '2026-11-22T13:06:00.000Z', until: null, provider: 'acme', space: 'live' });
    expect(doc.targets).toEqual({ first_contact_seconds: 300, message_delivery_seconds: 60 });
    expect(doc.total.jobs).toBe(3);
    expect(doc.malformed).toEqual([]);
  });

  it('--format csv writes RFC 4180 rows for a spreadsheet', async () => {
    const result = await runCli(['report', ...LOGS, '--format', 'csv']);
    expect(result.code).toBe(0);
    const rows = result.stdout.split('\r\n');
    expect(rows[0]?.startsWith('branch_code,jobs,contacted,not_contacted,first_contact_median_s')).toBe(true);
    expect(rows[1]?.startsWith('BR-001,3,3,0,120,400,2,0.6667,3,2,3,2,2,1,0,1,1,0,')).toBe(true);
  });

  it('reads stdin with --log -, relative --since against now, and warns about malformed lines by number', async () => {
    const stdin = readFileSync(`${ROOT}fixtures/logs/malformed.ndjson`);
    const result = await runCli(['report', '--log', '-', '--since', '1d', '--json'], {
      stdin,
      now: Date.parse('2026-11-22T20:00:00Z'),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      [
        'warning: (stdin) line 2 skipped: a record cut short (a write that failed: a full disk, a crash): not valid JSON',
        'warning: (stdin) line 4 skipped: missing or invalid "received_at" (ISO 8601 time)',
        'warning: (stdin) line 5 skipped: unsupported record version 2 (expected "v": 1)',
        'warning: (stdin) line 6 skipped: not a JSON object',
        '',
      ].join('\n'),
    );
    const doc = JSON.parse(result.stdout);
    expect(doc.filter.since).toBe('2026-11-21T20:00:00.000Z');
    expect(doc.malformed).toHaveLength(4);
    expect(doc.total.jobs).toBe(1);
  });

  it.each([
    [['report'], 'error: no log to report on', 'hint: pass --log FILE (repeatable; - reads stdin)'],
    [
      ['report', '--log', 'missing.ndjson'],
      'error: log file missing.ndjson does not exist',
      'hint: check the path, or pass - to read from stdin',
    ],
    [
      ['report', ...LOGS, '--log', 'missing.ndjson'],
      'error: log file missing.ndjson does not exist',
      'hint: check the path, or pass - to read from stdin',
    ],
    [
      ['report', ...LOGS, '--log', 'fixtures/logs'],
      'error: log file fixtures/logs is a directory',
      'hint: check the path, or pass - to read from stdin',
    ],
    [
      ['report', '--log', 'x', '--since', '2026-11-02', '--until', '2026-11-01'],
      'error: --since (2026-11-02T00:00:00.000Z) is not before --until (2026-11-01T00:00:00.000Z)',
      'hint: swap them, or widen the window',
    ],
    [
      ['report', '--log', 'x', '--since', '2026-11-01T10:00'],
      "error: option '--since <time>' argument '2026-11-01T10:00' is invalid. expected a date (2026-11-01, read as UTC), a date-time with an offset (2026-11-01T09:00:00+01:00), or a duration ago (24h, 7d).",
      "hint: run 'cai report --help' for its options and examples",
    ],
    ...['99999999999999999999d', '10000000000000s', '36501d'].map((ago): [string[], string, string] => [
      ['report', '--log', 'x', '--until', ago],
      `error: option '--until <time>' argument '${ago}' is invalid. expected a duration ago of at most 36500d (docs/limits.md); an earlier point as a date (2026-11-01).`,
      "hint: run 'cai report --help' for its options and examples",
    ]),
    [
      ['report', '--log', 'x', '--format', 'xml'],
      "error: option '--format <format>' argument 'xml' is invalid. Allowed choices are table, json, csv.",
      "hint: run 'cai report --help' for its options and examples",
    ],
  ])('%j is a usage error', async (argv, error, hint) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${error}\n${hint}\n`);
  });
});
