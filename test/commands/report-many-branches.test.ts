/**
 * `cai report` on a log naming many branches (the mock accepts any branch_code when it has no catalogue): the
 * terminal table is drawn in time linear in its rows, and the `--html` page charts the MAX_CHARTED_BRANCHES
 * busiest branches only (about 10 KB of SVG each) while its tables keep every branch. Before, 5 000 branches made
 * a 54 MB page, and 20 000 a table that had not ended after minutes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CHARTED_BRANCHES } from '../../src/commands/report/html-report.js';
import { recordLine } from '../../src/mock/log.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-report-branches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An appointment.booked record as the platform mock writes it, for branch `BR-<branch>`. */
const booked = (branch: number, id: string) =>
  recordLine(
    {
      v: 1,
      received_at: '2026-12-05T10:00:00.000Z',
      space: 'live',
      interface: 'B',
      kind: 'event',
      status: 202,
      verdict: 'accepted',
      provider_code: 'acme',
      event_id: id,
      event: 'appointment.booked',
      headers: {},
    },
    Buffer.from(
      JSON.stringify({
        event: 'appointment.booked',
        event_id: id,
        lead_id: `L${id}`,
        branch_code: `BR-${branch}`,
        scheduled_at: '2026-12-07T10:30:00+00:00',
        occurred_at: '2026-12-05T10:00:00+00:00',
      }),
    ),
  );

describe('cai report over many branches', () => {
  it('charts the busiest branches only, and keeps every branch in the tables', async () => {
    const branches = MAX_CHARTED_BRANCHES + 50;
    // No jobs in this log: the branches tie, and the first in the report's order are charted.
    const lines = Array.from({ length: branches }, (_, branch) => booked(branch, `e${branch}`));
    const path = join(dir, 'many.ndjson');
    writeFileSync(path, lines.join(''));
    const page = join(dir, 'many.html');
    const result = await runCli(['report', '--log', path, '--html', page]);
    expect(result.code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html.match(/<section class="branch" data-branch="BR-/g)).toHaveLength(MAX_CHARTED_BRANCHES);
    expect(html).toContain(`The ${MAX_CHARTED_BRANCHES} branches with the most jobs; the 50 others are in the tables`);
    expect(html).toContain('data-branch="BR-0"');
    for (let branch = 0; branch < branches; branch += 1) expect(html).toContain(`<td>BR-${branch}</td>`);
    // The terminal table: every branch, one table.
    for (let branch = 0; branch < branches; branch += 1) expect(result.stdout).toMatch(new RegExp(`│ BR-${branch} `));
  });
});
