/**
 * How cai's tests and scripts start a browser: Debian's `chromium` driven by playwright-core, headless, with a
 * fresh profile, and with every background connection Chromium would make on its own switched off (the machine's
 * network is closed, and a page under test must be the only thing that could ask for anything). Plain JavaScript
 * so that scripts/screenshots.mjs and bench/ use the very same launch as the tests (test/helpers/browser.ts).
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_PATH = process.env.CAI_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why Chromium cannot be started (not there, not executable), or undefined when it can. */
export function chromiumMissing() {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return undefined;
  } catch {
    return `Chromium is not installed at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium' (as .ci/run does), point CAI_CHROMIUM at another build, or set CAI_SKIP_BROWSER=1 to skip the browser tests`;
  }
}

/**
 * Starts Chromium with a profile of its own (removed by `close`). `options`: viewport size, colour scheme, and
 * `deviceScaleFactor`. One per test file; pages come from `context.newPage()`.
 */
export async function launchChromium(options = {}) {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), 'cai-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      // playwright passes the profile as --user-data-dir itself.
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1280, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
      deviceScaleFactor: options.deviceScaleFactor ?? 1,
      timeout: 60_000,
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Records what a page does that a test forbids: console errors, uncaught exceptions, and every request it makes
 * (the page's own file:// load included, so a test can check that nothing else was asked for).
 */
export function watchPage(page) {
  const watched = { page, consoleErrors: [], pageErrors: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watched.pageErrors.push(error.message));
  page.on('request', (request) => watched.requests.push(request.url()));
  return watched;
}
