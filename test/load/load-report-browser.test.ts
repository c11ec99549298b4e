/**
 * `cai load --html` opened in headless Chromium: the rate and latency charts show, window by window, the numbers
 * `--json` prints in the same run; the thresholds ✓/✗ as judged; no console error; no request but the page itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
import type { LoadReport } from '../../src/load/report.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-html-load-'));
const file = join(dir, 'load.html');
let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let report: LoadReport;
let watched: WatchedPage;

beforeAll(async () => {
  const [result, launched] = await Promise.all([
    spawnCli([
      'load',
      '--mock',
      '--rate',
      '25/s',
      '--duration',
      '3s',
      '--repeat',
      '10%',
      '--threshold',
      'http_req_duration: p(99)<10000',
      '--threshold',
      'http_reqs: count > 1000000',
      '--html',
      file,
      '--json',
    ]),
    openBrowser(),
  ]);
  browser = launched;
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    new RegExp(`HTML report written to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n$`),
  );
  report = JSON.parse(result.stdout) as LoadReport;
  watched = await openPage(launched, file);
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describeBrowser('the HTML load report in Chromium', () => {
  it('charts the requests a second per window, by answer, as in --json', async () => {
    const marks = await watched.page.$$eval('figure[data-chart="rate"] svg rect[data-value]', (rects) =>
      rects.map((rect) => ({
        label: rect.getAttribute('data-label'),
        series: rect.getAttribute('data-series'),
        value: Number(rect.getAttribute('data-value')),
      })),
    );
    const { windows, windowMs } = report.timeline;
    expect(windows.length).toBeGreaterThanOrEqual(3);
    const shown2xx = marks.filter((mark) => mark.series === '2xx').map((mark) => mark.value);
    expect(shown2xx).toEqual(windows.map((window) => Math.round((window.answers['2xx'] * 1000 * 10) / windowMs) / 10));
    expect(marks.filter((mark) => mark.series === '2xx').map((mark) => mark.label)).toEqual(
      windows.map((window) => `${window.startMs / 1000}s`),
    );
    expect(shown2xx.reduce((sum, value) => sum + value, 0) * (windowMs / 1000)).toBeCloseTo(
      report.statuses['202'] ?? 0,
      5,
    );
  });

  it('charts p50, p90 and p99 per window, as in --json', async () => {
    const points = await watched.page.$$eval('figure[data-chart="latency"] svg circle[data-value]', (circles) =>
      circles.map((circle) => ({
        window: circle.getAttribute('data-window'),
        series: circle.getAttribute('data-series'),
        value: Number(circle.getAttribute('data-value')),
      })),
    );
    const answered = report.timeline.windows.filter((window) => window.latencyMs !== null);
    for (const series of ['p50', 'p90', 'p99'] as const) {
      expect(points.filter((point) => point.series === series).map((point) => point.value)).toEqual(
        answered.map((window) => window.latencyMs?.[series]),
      );
    }
    expect(
      await watched.page.$$eval('figure[data-chart="latency"] svg polyline', (lines) => lines.length),
    ).toBeGreaterThanOrEqual(3);
  });

  it('lists the thresholds ✓/✗ as judged, the cards and tables, with no console error and no request but the page', async () => {
    const shown = await watched.page.$$eval('ul.thresholds li', (items) =>
      items.map((item) => [item.querySelector('code')?.textContent, item.getAttribute('data-ok')]),
    );
    expect(shown).toEqual(report.thresholds.map((verdict) => [verdict.expression, String(verdict.ok)]));
    expect(shown).toEqual([
      ['http_req_duration: p(99)<10000', 'true'],
      ['http_reqs: count > 1000000', 'false'],
    ]);
    expect(await watched.page.textContent('.cards .card b')).toBe(String(report.requests.sent));
    const statuses = await watched.page.$$eval('table[data-table="statuses"] tbody tr', (rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
    );
    expect(statuses).toEqual(Object.entries(report.statuses).map(([status, count]) => [status, String(count)]));
    expect(await watched.page.$$('main script, main img')).toEqual([]);
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(foreignRequests(watched, pathToFileURL(file).href)).toEqual([]);
  });
});
