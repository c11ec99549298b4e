/**
 * `cai mock platform --ui` in headless Chromium with a lead_id that holds a lone surrogate (valid JSON, no UTF-8
 * form): the Conversations list renders, the lead opens from the list and from its request's link, and stays
 * selected; no console error.
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
  watched = await openPage(browser, ui);
  await watched.page.waitForSelector('#live.on');
}, BROWSER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  stopAllMockProcesses();
});

describeBrowser('the inspector and a lead_id with a lone surrogate, in Chromium', () => {
  it('lists the lead, opens its conversation from the list and from the request, and keeps it selected', async () => {
    const { page } = watched;
    expect((await post(mock.url, event({ lead_id: 'L\ud800x', text: 'lone' }))).status).toBe(202);
    expect((await post(mock.url, event({ lead_id: 'lead-plain', text: 'plain' }))).status).toBe(202);
    await page.click('.tabs a[data-tab="conversations"]');
    await waitForCount(page, '#leads li', 2);
    const lone = page.locator('#leads li[data-route$="/L%uD800x"]');
    await lone.click();
    await page.waitForSelector('#detail article.conversation');
    expect(page.url()).toBe(`${ui}#/conversations/live/L%uD800x`);
    expect(await page.textContent('#detail ol.chat .text')).toBe('lone');
    expect(await lone.getAttribute('aria-selected')).toBe('true');

    await page.goto(`${ui}#/requests/1`);
    await page.waitForSelector('#detail article.request-detail[data-id="1"]');
    await page.click('#detail a[href^="#/conversations/"]');
    await page.waitForSelector('#detail article.conversation');
    expect(page.url()).toBe(`${ui}#/conversations/live/L%uD800x`);
    expect(await page.textContent('#detail ol.chat .text')).toBe('lone');
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
  });
});
