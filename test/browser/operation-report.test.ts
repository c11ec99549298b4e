/**
 * `cai report --html` opened in headless Chromium: the charts show the numbers `cai report --json` computes from
 * the same logs (the first-contact histogram against the §8 target, outcomes, activity per day), in total and per
 * branch; no console error; no request but the page itself.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import {
  BROWSER_HOOK_TIMEOUT_MS,
  describeBrowser,
  foreignRequests,
  openBrowser,
  openPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { syntheticLog } from '../helpers/synthetic-log.mjs';
import type { BranchReport, OperationReport } from '../../src/report/aggregate.js';
import { OUTCOMES } from '../../src/spec/constants.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-html-operation-'));
const log = join(dir, 'operation.ndjson');
const file = join(dir, 'report.html');
let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let report: OperationReport;
let watched: WatchedPage;

beforeAll(async () => {
  writeFileSync(log, syntheticLog({ days: 10, jobsPerDay: 9, seed: 11 }));
  const [json, html, launched] = await Promise.all([
    spawnCli(['report', '--log', log, '--json']),
    spawnCli(['report', '--log', log, '--html', file, '--format', 'csv']),
    openBrowser(),
  ]);
  browser = launched;
  expect(html.code).toBe(0);
  expect(html.stderr).toBe(`HTML report written to ${file}\n`);
  expect(html.stdout.split('\r\n')[0]).toMatch(/^branch_code,jobs,/);
  report = JSON.parse(json.stdout) as OperationReport;
  watched = await openPage(launched, file);
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The values the marks of one chart carry, in order, by series. */
async function marks(branch: string, chart: string): Promise<{ label: string; series: string; value: number }[]> {
  return watched.page.$$eval(`figure[data-chart="${chart}"][data-branch="${branch}"] svg rect[data-value]`, (rects) =>
    rects.map((rect) => ({
      label: rect.getAttribute('data-label') ?? '',
      series: rect.getAttribute('data-series') ?? '',
      value: Number(rect.getAttribute('data-value')),
    })),
  );
}

function everyBranch(): BranchReport[] {
  return [report.total, ...report.branches];
}

describeBrowser('the HTML operation report in Chromium', () => {
  it('has the data to chart: several days and branches, contacts on both sides of the target', () => {
    expect(report.branches.length).toBe(3);
    expect(report.total.per_day.length).toBe(10);
    const bins = report.total.first_contact.histogram;
    const target = bins.findIndex((bin) => bin.up_to_seconds === report.targets.first_contact_seconds);
    expect(bins.slice(0, target + 1).reduce((sum, bin) => sum + bin.count, 0)).toBe(
      report.total.first_contact.within_target,
    );
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(report.total.first_contact.contacted);
    expect(report.total.first_contact.within_target).toBeGreaterThan(0);
    expect(report.total.first_contact.contacted).toBeGreaterThan(report.total.first_contact.within_target);
    expect(report.total.first_contact.not_contacted).toBeGreaterThan(0);
  });

  it('charts time to first contact as in --json, with the 5-minute target marked', async () => {
    for (const branch of everyBranch()) {
      const values = (await marks(branch.branch_code, 'first-contact')).map((mark) => mark.value);
      expect(values).toEqual([
        ...branch.first_contact.histogram.map((bin) => bin.count),
        branch.first_contact.not_contacted,
      ]);
    }
    const marker = await watched.page.textContent(
      'figure[data-chart="first-contact"][data-branch="(total)"] text.target',
    );
    expect(marker).toBe('target 5 minutes (§8)');
    const caption = await watched.page.textContent(
      'figure[data-chart="first-contact"][data-branch="(total)"] figcaption',
    );
    expect(caption).toContain(
      `${report.total.first_contact.within_target} of ${report.total.jobs} jobs contacted within 5 minutes`,
    );
  });

  it('charts outcomes as in --json', async () => {
    for (const branch of everyBranch()) {
      const shown = await marks(branch.branch_code, 'outcomes');
      expect(shown.map((mark) => mark.label)).toEqual([...OUTCOMES]);
      expect(shown.map((mark) => mark.value)).toEqual(OUTCOMES.map((outcome) => branch.outcomes[outcome] ?? 0));
    }
  });

  it('charts activity per day as in --json, by kind, empty days included', async () => {
    for (const branch of everyBranch()) {
      const shown = await marks(branch.branch_code, 'per-day');
      const byDay = new Map(branch.per_day.map((day) => [day.day.slice(5), day]));
      for (const mark of shown) {
        const day = byDay.get(mark.label);
        const expected = day ? day[mark.series as 'jobs' | 'messages' | 'appointments' | 'closed'] : 0;
        expect({ ...mark, value: mark.value }).toEqual({ ...mark, value: expected });
      }
      const sum = (key: 'jobs' | 'messages' | 'appointments' | 'closed') =>
        shown.filter((mark) => mark.series === key).reduce((total, mark) => total + mark.value, 0);
      for (const key of ['jobs', 'messages', 'appointments', 'closed'] as const)
        expect(sum(key)).toBe(branch.per_day.reduce((total, day) => total + day[key], 0));
    }
    expect(report.total.per_day.reduce((sum, day) => sum + day.jobs, 0)).toBe(report.total.jobs);
  });

  it('shows the summary cards and the tables, with no console error and no request but the page', async () => {
    const cards = await watched.page.$$eval('section.branch[data-branch="(total)"] .card b', (elements) =>
      elements.map((element) => element.textContent),
    );
    expect(cards[0]).toBe(String(report.total.jobs));
    expect(cards[1]).toBe(`${((report.total.first_contact.within_target_share ?? 0) * 100).toFixed(1)}%`);
    expect(await watched.page.$$eval('table.data', (tables) => tables.length)).toBeGreaterThanOrEqual(4);
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(foreignRequests(watched, pathToFileURL(file).href)).toEqual([]);
  });

  it('shows hostile log content as text: a </script>, an escape sequence and U+2028 in branch codes and a malformed line', async () => {
    const hostile =
      'BR-</script><script>window.__pwned=1</script>\u2028<img src=x onerror="window.__pwned=2">\u001b[31m';
    const log = join(dir, 'hostile.ndjson');
    const page = join(dir, 'hostile.html');
    writeFileSync(
      log,
      `${syntheticLog({ days: 2, jobsPerDay: 4, branches: [hostile, 'BR-001'], seed: 3 })}{"v":1,"</script><script>window.__pwned=3</script>\u2028\n`,
    );
    const result = await spawnCli(['report', '--log', log, '--html', page, '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as OperationReport;
    expect(json.branches.map((branch) => branch.branch_code)).toContain(hostile);
    const opened = await openPage(browser as NonNullable<typeof browser>, page);
    try {
      const codes = await opened.page.$$eval('section.branch', (sections) =>
        sections.map((section) => section.getAttribute('data-branch')),
      );
      expect(codes).toContain(hostile.replace('\u001b', '\u241b'));
      expect(await opened.page.$$('main script, main img')).toEqual([]);
      expect(await opened.page.evaluate('window.__pwned')).toBeUndefined();
      expect(opened.consoleErrors).toEqual([]);
      expect(opened.pageErrors).toEqual([]);
      expect(foreignRequests(opened, pathToFileURL(page).href)).toEqual([]);
    } finally {
      await opened.page.close();
    }
  });
});
