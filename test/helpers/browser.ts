/**
 * Browser tests: one Chromium per test file (`openBrowser` in beforeAll, `close` in afterAll), pages watched for
 * console errors, exceptions and requests. A missing Chromium FAILS the tests with a message saying how to install
 * it; only CAI_SKIP_BROWSER=1 together with a missing Chromium skips them (`describeBrowser`).
 */
import { describe } from 'vitest';
import { pathToFileURL } from 'node:url';
import {
  chromiumMissing,
  launchChromium,
  watchPage,
  type LaunchedChromium,
  type LaunchOptions,
  type WatchedPage,
} from './chromium.mjs';

export type { WatchedPage } from './chromium.mjs';

/** Skipped only when Chromium is truly absent and the environment asks for it. */
export function browserSkipped(): boolean {
  return process.env.CAI_SKIP_BROWSER === '1' && chromiumMissing() !== undefined;
}

/** `describe`, skipped as `browserSkipped` says; the browser tests of a file go in one of these. */
export const describeBrowser: typeof describe.skip = describe.skipIf(browserSkipped()) as typeof describe.skip;

/** Browser starts on a loaded 2-core machine take seconds: the beforeAll that calls `openBrowser` gets this long. */
export const BROWSER_HOOK_TIMEOUT_MS = 90_000;

export function openBrowser(options?: LaunchOptions): Promise<LaunchedChromium> {
  return launchChromium(options);
}

/** A new page of `browser`, watched from before its first request, loaded from `file` (a path) or a URL. */
export async function openPage(browser: LaunchedChromium, target: string): Promise<WatchedPage> {
  const page = await browser.context.newPage();
  const watched = watchPage(page);
  const url = /^[a-z]+:/.test(target) ? target : pathToFileURL(target).href;
  await page.goto(url, { waitUntil: 'load' });
  return watched;
}

/** Requests other than the page's own document (file:// of the report, data: URLs are not requests). */
export function foreignRequests(watched: WatchedPage, ownUrl: string): string[] {
  return watched.requests.filter((url) => url !== ownUrl);
}
