/**
 * `cai mock platform --ui` in headless Chromium: the copy button of the curl line copies the command itself, not the
 * escaped form the page shows (a body with bidi, DEL, C1 and CR characters), and the conversation of every accepted
 * lead opens from the list, `.`, `..`, empty and one of 2 000 CJK characters included.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  BROWSER_HOOK_TIMEOUT_MS,
  describeBrowser,
  openBrowser,
  openPage,
  type WatchedPage,
} from '../helpers/browser.js';
import { waitForCount } from '../helpers/inspector-page.js';
import { startMockProcess, stopAllMockProcesses, type MockProcess } from '../helpers/mock-process.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';

let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
let mock: MockProcess;
let ui: string;
let watched: WatchedPage;

beforeAll(async () => {
  [mock, browser] = await Promise.all([
    startMockProcess(['mock', 'platform', '--provider', 'acme', '--ui', '127.0.0.1:0', '--json'], {
      CAI_SECRET: LIVE_SECRET,
    }),
    openBrowser(),
  ]);
  ui = (JSON.parse(mock.lines[0] as string) as { ui: string }).ui;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui).origin });
  watched = await openPage(browser, ui);
  await watched.page.waitForSelector('#live.on');
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  stopAllMockProcesses();
});

interface ClipboardPage {
  navigator: { clipboard: { readText(): Promise<string> } };
}

describeBrowser('the inspector in Chromium: exact copies, and every lead openable', () => {
  it('copies the curl line as the API gives it, where the page shows its characters escaped', async () => {
    const { page } = watched;
    const text = 'bidi\u202eRLO del\x7f c1\x85 csi\x9b cr\r end';
    expect((await post(mock.url, event({ lead_id: 'lead-copy', text }))).status).toBe(202);
    await page.goto(`${ui}#/requests/1`);
    await page.waitForSelector('#detail article.request-detail[data-id="1"]');
    expect(await page.textContent('pre[id^="cmd-curl-"]')).toContain('\\u202e');
    await page.click('button.copy[data-copy^="cmd-curl-"]');
    await page.waitForFunction(() => {
      const button = (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } } }
      ).document.querySelector('button.copy[data-copy^="cmd-curl-"]');
      return button.textContent === 'copied';
    });
    const copied = await page.evaluate(() => (globalThis as unknown as ClipboardPage).navigator.clipboard.readText());
    const api = (await (await fetch(new URL('/api/requests/1', ui))).json()) as { commands: { curl: string } };
    expect(api.commands.curl).toContain(JSON.stringify(text).slice(1, -1).replace(/\\r/, '\\r'));
    expect(copied).toBe(api.commands.curl);
  });

  it('opens the conversation of `.`, `..`, an empty lead and a lead of 2 000 CJK characters from the list', async () => {
    const { page } = watched;
    const leads = ['.', '..', '', '一'.repeat(2000)];
    for (const lead of leads)
      expect((await post(mock.url, event({ lead_id: lead, text: `to ${lead.length}` }))).status).toBe(202);
    await page.goto(`${ui}#/conversations`);
    await waitForCount(page, '#leads li', leads.length + 1);
    for (const lead of leads) {
      const route = await page.evaluate(
        (wanted) =>
          Array.from(
            (
              globalThis as unknown as {
                document: { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }> };
              }
            ).document.querySelectorAll('#leads li'),
          )
            .find((li) => li.getAttribute('data-lead') === wanted)
            ?.getAttribute('data-route') ?? null,
        lead,
      );
      expect(route, JSON.stringify(lead.slice(0, 3))).not.toBeNull();
      await page.click(`#leads li[data-route="${route}"]`);
      await page.waitForFunction(
        (wanted) =>
          (
            globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
          ).document.querySelector('#detail article.conversation ol.chat .text')?.textContent === wanted,
        `to ${lead.length}`,
      );
      expect(await page.getAttribute(`#leads li[data-route="${route}"]`, 'aria-selected')).toBe('true');
    }
    expect(watched.consoleErrors).toEqual([]);
  });
});
