/**
 * `cai report --html` on logs whose `received_at` is a valid date far from now: a record outside the years 0000 to
 * 9999 (Date.parse reads expanded years such as +275760) is skipped with a warning that says so, and dates centuries
 * apart chart in at most 92 columns. Before, one record at the earliest date JavaScript has was an internal error
 * (exit 4), year -5000 beside 2026 overflowed the stack, and year 1 beside 2026 took 42 s and 1.6 GB for a 172 MB page.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordLine } from '../../src/mock/log.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-report-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A record as the platform mock writes it (recordLine), with only its received_at chosen. */
const record = (receivedAt: string, id: string) =>
  recordLine(
    {
      v: 1,
      received_at: receivedAt,
      space: 'live',
      interface: 'B',
      kind: 'event',
      status: 202,
      verdict: 'accepted',
      provider_code: 'acme',
      event_id: id,
      event: 'conversation.message',
      headers: {},
    },
    Buffer.from(JSON.stringify({ event: 'conversation.message', event_id: id, lead_id: 'L1', direction: 'outbound' })),
  );

function log(name: string, times: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, times.map((time, index) => record(time, `e${index}`)).join(''));
  return path;
}

describe('cai report --html on extreme dates', () => {
  it.each([['-271821-04-20T00:00:00.000Z'], ['+275760-09-13T00:00:00.000Z'], ['-005000-01-01T00:00:00.000Z']])(
    '%s beside 2026: that line skipped as outside the years 0000 to 9999, the rest reported',
    async (extreme) => {
      const path = log(`extreme${extreme.slice(0, 7)}.ndjson`, [extreme, '2026-12-02T00:00:00.000Z']);
      const html = `${path}.html`;
      const result = await runCli(['report', '--log', path, '--html', html, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('line 1 skipped: "received_at" is outside the years 0000 to 9999');
      expect(result.stderr).not.toMatch(/cut short|internal error/);
      expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);
    },
  );

  it('year 1 beside 2026: a page of at most 92 columns per branch, a few hundred KB', async () => {
    const path = log('centuries.ndjson', ['0001-01-01T00:00:00.000Z', '2026-12-02T00:00:00.000Z']);
    const html = `${path}.html`;
    const result = await runCli(['report', '--log', path, '--html', html]);
    expect(result.code, result.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Activity per ');
    expect(page).toMatch(/weeks from Monday/);
    expect(statSync(html).size).toBeLessThan(1_000_000);
  });
});
