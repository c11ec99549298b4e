/**
 * `cai conformance run --html` opened in headless Chromium: the reports of two real runs through the built binary
 * (against the reference receiver, and with a deliberate defect so failures render) show every check with its
 * verdict, a failure opens on its expected/actual, request, answer and repro, the filters and search work, nothing
 * is logged as an error and nothing but the page itself is requested. Then hostile content from a target.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { renderConformanceHtml, type ConformanceView } from '../../src/conformance/reporters/html.js';
import type { SuiteReport } from '../../src/conformance/types.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-html-report-'));
let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;

interface Run {
  file: string;
  report: SuiteReport;
}

async function conformanceRun(name: string, extra: string[]): Promise<Run> {
  const file = join(dir, `${name}.html`);
  const result = await spawnCli([
    'conformance',
    'run',
    '--mock',
    '--interface',
    'B',
    '--json',
    '--html',
    file,
    '--repro-dir',
    join(dir, `${name}-repro`),
    ...extra,
  ]);
  expect(result.stderr).toContain(`HTML report written to ${file}`);
  return { file, report: JSON.parse(result.stdout) as SuiteReport };
}

let passing: Run;
let failing: Run;

beforeAll(async () => {
  [passing, failing, browser] = await Promise.all([
    conformanceRun('passing', []),
    conformanceRun('failing', ['--break', 'no-dedupe']),
    openBrowser(),
  ]);
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Nothing went wrong on the page: no console error, no exception, no request but the report itself. */
function expectQuiet(watched: WatchedPage, file: string): void {
  expect(watched.consoleErrors).toEqual([]);
  expect(watched.pageErrors).toEqual([]);
  expect(foreignRequests(watched, pathToFileURL(file).href)).toEqual([]);
}

async function rows(watched: WatchedPage): Promise<{ id: string; verdict: string; visible: boolean }[]> {
  return watched.page.$$eval('#checks details.check', (elements) =>
    elements.map((element) => ({
      id: element.querySelector('.id')?.textContent ?? '',
      verdict: element.getAttribute('data-v') ?? '',
      visible: !element.hasAttribute('hidden'),
    })),
  );
}

describeBrowser('the HTML conformance report in Chromium', () => {
  it('shows every check of a passing run with its verdict, and the summary', async () => {
    const watched = await openPage(browser!, passing.file);
    const shown = await rows(watched);
    expect(shown.map(({ id, verdict }) => ({ id, verdict }))).toEqual(
      passing.report.checks.map(({ id, verdict }) => ({ id, verdict })),
    );
    expect(shown.every((row) => row.visible)).toBe(true);
    expect(await watched.page.textContent('h1')).toContain('PASSED');
    expect(await watched.page.textContent('header .lead')).toContain(
      `${passing.report.summary.passed} passed, 0 failed`,
    );
    expect(await watched.page.textContent('#shown')).toBe(
      `showing ${passing.report.checks.length} of ${passing.report.checks.length}`,
    );
    expect(await watched.page.textContent('.meta')).toContain(passing.report.target);
    expectQuiet(watched, passing.file);
    await watched.page.close();
  });

  it('opens a failure on its expected and actual answer, the request, the response and the repro command', async () => {
    const failed = failing.report.checks.filter((check) => check.verdict === 'failed');
    expect(failed.filter((check) => check.id.startsWith('B-DEDUP-')).length).toBeGreaterThan(0);
    const watched = await openPage(browser!, failing.file);
    const { page } = watched;
    expect(await page.textContent('h1')).toContain('FAILED');
    expect((await rows(watched)).map(({ id, verdict }) => ({ id, verdict }))).toEqual(
      failing.report.checks.map(({ id, verdict }) => ({ id, verdict })),
    );
    // The fault's own checks, each answered 202 where a repeat was due (a loaded machine may fail another at a timing
    // edge, with another answer: the rows above already show every check as the report holds it).
    for (const check of failed.filter((entry) => entry.id.startsWith('B-DEDUP-'))) {
      const row = page.locator(`#checks details.check[data-v="failed"]`, {
        has: page.locator('.id', { hasText: check.id }),
      });
      expect(await row.locator('.ea').isVisible()).toBe(false);
      await row.locator(':scope > summary').click();
      const ea = row.locator('.ea');
      expect(await ea.isVisible()).toBe(true);
      const text = (await ea.textContent()) ?? '';
      expect(text).toContain(`expected${check.expected}`);
      expect(text).toContain(`actual${check.actual}`);
      expect(await row.locator('pre.cmd').textContent()).toBe(check.repro?.command);
      expect(await row.locator('pre.cmd').isVisible()).toBe(true);
      const heads = await row.locator('pre.head').allTextContents();
      expect(heads[0]).toContain(`POST ${check.exchange?.request.url}`);
      expect(heads[0]).toContain('x-cai-signature: sha256=');
      expect(heads[1]).toMatch(/^HTTP 202\n/);
      expect(await row.locator('pre.body.json').first().textContent()).toContain('"event_id": ');
    }
    expectQuiet(watched, failing.file);
    await page.close();
  });

  it('filters by verdict and by search, and says when nothing matches', async () => {
    const watched = await openPage(browser!, failing.file);
    const { page } = watched;
    const total = failing.report.checks.length;
    const failedIds = failing.report.checks.filter((check) => check.verdict === 'failed').map((check) => check.id);
    const visibleIds = async () => (await rows(watched)).filter((row) => row.visible).map((row) => row.id);

    await page.click('button.card[data-only="failed"]');
    expect(await visibleIds()).toEqual(failedIds);
    expect(await page.textContent('#shown')).toBe(`showing ${failedIds.length} of ${total}`);

    await page.click('button.card[data-only="all"]');
    expect((await visibleIds()).length).toBe(total);
    await page.uncheck('input[name="verdict"][value="passed"]');
    const notPassed = failing.report.checks.filter((check) => check.verdict !== 'passed').map((check) => check.id);
    expect(await visibleIds()).toEqual(notPassed);
    await page.check('input[name="verdict"][value="passed"]');

    const target = failing.report.checks[3]!;
    await page.fill('#search', target.id.toLowerCase());
    await expect.poll(visibleIds).toEqual([target.id]);
    await page.fill('#search', 'no check is called this');
    await expect.poll(visibleIds).toEqual([]);
    expect(await page.isVisible('#none')).toBe(true);
    await page.fill('#search', '');
    await expect.poll(async () => (await visibleIds()).length).toBe(total);

    await page.click('#expand');
    const open = await page.$$eval('#checks details.check[open]', (elements) =>
      elements.map((element) => element.getAttribute('data-v')),
    );
    expect(open).toEqual(failedIds.map(() => 'failed'));
    await page.click('#collapse');
    expect(await page.$$eval('#checks details.check[open]', (elements) => elements.length)).toBe(0);
    expectQuiet(watched, failing.file);
    await page.close();
  });

  it('opens the check named in the address (#check-ID)', async () => {
    const failed = failing.report.checks.find((check) => check.verdict === 'failed')!;
    const watched = await openPage(browser!, `${pathToFileURL(failing.file).href}#check-${failed.id}`);
    expect(await watched.page.$eval(`#check-${failed.id}`, (element) => element.hasAttribute('open'))).toBe(true);
    expect(watched.consoleErrors).toEqual([]);
    await watched.page.close();
  });

  it('follows the dark colour scheme, hides the filters on paper and prints the failures opened', async () => {
    const watched = await openPage(browser!, failing.file);
    const { page } = watched;
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.emulateMedia({ colorScheme: 'dark', media: 'print' });
    expect(await background()).toBe('rgb(255, 255, 255)');
    expect(await page.isVisible('#toolbar')).toBe(false);
    // Printing opens the failures (the report's beforeprint listener runs before this one) and closes them after.
    await page.evaluate(
      "window.addEventListener('beforeprint', () => { window.openWhilePrinting = Array.from(document.querySelectorAll('details.check[open]'), (check) => check.id); })",
    );
    expect((await page.pdf()).length).toBeGreaterThan(0);
    const failedIds = failing.report.checks
      .filter((check) => check.verdict === 'failed')
      .map((check) => `check-${check.id}`);
    expect(await page.evaluate('window.openWhilePrinting')).toEqual(failedIds);
    expect(await page.$$eval('details.check[open]', (elements) => elements.length)).toBe(0);
    await page.close();
  });

  it('filters a thousand checks laid out in chunks: empty chunks hidden, counts right, links open rows in any chunk', async () => {
    const base = passing.report.checks[0]!;
    const checks = Array.from({ length: 1000 }, (_, index) => ({
      ...base,
      id: `B-SYN-${String(index).padStart(4, '0')}`,
      verdict: index % 250 === 7 ? ('failed' as const) : ('passed' as const),
    }));
    const summary = { passed: 996, failed: 4, skipped: 0, warnings: 0, waived: 0, total: 1000 };
    const file = join(dir, 'thousand.html');
    writeFileSync(file, renderConformanceHtml({ ...passing.report, ok: false, summary, checks }));
    const watched = await openPage(browser!, `${pathToFileURL(file).href}#check-B-SYN-0757`);
    const { page } = watched;
    expect(await page.$eval('#check-B-SYN-0757', (element) => element.hasAttribute('open'))).toBe(true);
    const chunkStates = () =>
      page.$$eval('#checks > .chunk', (chunks) =>
        chunks.map((chunk) =>
          chunk.hasAttribute('hidden') ? 'hidden' : chunk.querySelectorAll('details.check:not([hidden])').length,
        ),
      );
    expect(await chunkStates()).toEqual(Array.from({ length: 10 }, () => 100));
    await page.click('button.card[data-only="failed"]');
    expect(await chunkStates()).toEqual([1, 'hidden', 1, 'hidden', 'hidden', 1, 'hidden', 1, 'hidden', 'hidden']);
    expect(await page.textContent('#shown')).toBe('showing 4 of 1000');
    expect((await rows(watched)).filter((row) => row.visible).map((row) => row.id)).toEqual([
      'B-SYN-0007',
      'B-SYN-0257',
      'B-SYN-0507',
      'B-SYN-0757',
    ]);
    expectQuiet(watched, file);
    await page.close();
  });

  it('shows what a hostile target sent as text: no markup of its runs, no script, no request', async () => {
    const hostile =
      '</script><script>alert(1)</script><img src="http://203.0.113.9/x.png" onerror="alert(2)">"\'&\u0000\u001b[31m\ud800';
    const base = failing.report.checks.find((check) => check.verdict === 'failed')!;
    const report: ConformanceView & { role: string; listener: string } = {
      ...failing.report,
      target: `http://203.0.113.9/events?q=${hostile}`,
      role: 'sender',
      listener: hostile,
      checks: [
        {
          ...base,
          title: hostile,
          actual: hostile,
          notes: [hostile],
          sent: { body: hostile },
          exchange: {
            request: {
              method: 'POST',
              url: `http://203.0.113.9/${hostile}`,
              headers: { 'x-evil': hostile },
              body: { bytes: 60, text: `{"a":"${hostile.replace(/["\\]/g, '')}"}` },
            },
            response: {
              status: 202,
              headers: { 'content-type': 'text/html' },
              body: { bytes: hostile.length, text: hostile },
            },
            latencyMs: 3,
          },
        } as ConformanceView['checks'][number],
      ],
    } as ConformanceView & { role: string; listener: string };
    const file = join(dir, 'hostile.html');
    writeFileSync(file, renderConformanceHtml(report));
    const watched = await openPage(browser!, file);
    const { page } = watched;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.click('#checks details > summary');
    expect(await page.$$eval('img', (elements) => elements.length)).toBe(0);
    expect(await page.$$eval('script', (elements) => elements.length)).toBe(1);
    expect(await page.textContent('#checks .title')).toBe(
      hostile.replace('\u0000', '\u2400').replace('\u001b', '\u241b').replace('\ud800', '\ufffd'),
    );
    expect(await page.textContent('.meta')).toContain('sender');
    expect(await page.textContent('#checks .detail')).toContain('"sent"');
    expect(dialogs).toEqual([]);
    expectQuiet(watched, file);
    // Every byte is written as UTF-8 text (the lone surrogate replaced, not encoded).
    expect(readFileSync(file, 'utf8')).not.toContain('\ud800');
    await page.close();
  });
});
