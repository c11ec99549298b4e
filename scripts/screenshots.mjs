#!/usr/bin/env node
/**
 * `npm run screenshots`: the pictures of the HTML reports in docs/images/, taken from real output of the built
 * binary in headless Chromium, launched as the browser tests launch it (test/helpers/chromium.mjs):
 *   - conformance-report.png: `cai conformance run --mock --break no-dedupe --html`, failures shown, one opened;
 *   - operation-report.png:   `cai report --html` on a made-up two-week log (test/helpers/synthetic-log.mjs);
 *   - inspector.png:          `cai mock platform --ui` after a few requests, a refused signature opened.
 * Run `npm run build` first (npm run screenshots does).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, watchPage } from '../test/helpers/chromium.mjs';
import { syntheticLog } from '../test/helpers/synthetic-log.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const images = join(root, 'docs', 'images');
const work = mkdtempSync(join(tmpdir(), 'cai-screenshots-'));
const MAX_BYTES = 200 * 1024;

function cai(args, expectedCodes = [0], env = {}) {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'cai.js'), ...args], {
    cwd: work,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  if (!expectedCodes.includes(result.status))
    throw new Error(`cai ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
}

const SECRETS = { CAI_SECRET: 'whsec_demo_events_0123456789', ACME_TEST_SECRET: 'whsec_demo_test_0123456789' };

/** `cai mock platform --ui --json` in the background: its child process and the first line (`url`, `ui`). */
function startInspectedMock() {
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'cai.js'),
      'mock',
      'platform',
      '--provider',
      'acme',
      '--test-provider',
      'acme-test',
      '--test-secret-env',
      'ACME_TEST_SECRET',
      '--ui',
      '--json',
    ],
    {
      cwd: work,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...SECRETS },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, ...JSON.parse(out.slice(0, out.indexOf('\n'))) });
    });
    child.on('exit', (code) => reject(new Error(`the mock exited (${code})`)));
  });
}

/** A morning's requests: a conversation, a repeat, a test-space event, a wrong secret, a bad document. */
function sendRequests(url) {
  const send = (args, codes = [0], env = {}) =>
    cai(['send-event', '--to', url, '--provider', 'acme', '--sample', ...args], codes, { ...SECRETS, ...env });
  send(['--set', 'event_id=evt_0001', '--set', 'lead_id=lead-1001', '--set', 'occurred_at=2026-11-23T09:14:02+00:00']);
  send(['--set', 'event_id=evt_0001', '--set', 'lead_id=lead-1001', '--set', 'occurred_at=2026-11-23T09:14:02+00:00']);
  send([
    '--set',
    'event_id=evt_0002',
    '--set',
    'lead_id=lead-1001',
    '--set',
    'direction=inbound',
    '--set',
    'author=contact',
    '--set',
    'text=Yes please, Tuesday morning works.',
    '--set',
    'occurred_at=2026-11-23T09:15:40+00:00',
  ]);
  cai(
    [
      'send-event',
      '--to',
      url,
      '--provider',
      'acme-test',
      '--secret-env',
      'ACME_TEST_SECRET',
      '--sample',
      '--set',
      'event_id=evt_0003',
      '--set',
      'lead_id=lead-2002',
    ],
    [0],
    SECRETS,
  );
  send(['appointment.booked', '--set', 'event_id=evt_0004', '--set', 'lead_id=lead-1001']);
  send(['--set', 'event_id=evt_0005', '--set', 'direction=sideways', '--no-validate'], [1]);
  // Signed with the test credential's secret but sent as the live provider: the diagnosis names it.
  send(['--secret-env', 'ACME_TEST_SECRET', '--set', 'event_id=evt_0006', '--set', 'lead_id=lead-3003'], [1]);
}

async function shoot(browser, file, out, prepare, height) {
  const page = await browser.context.newPage();
  const watched = watchPage(page);
  await page.goto(/^https?:/.test(file) ? file : pathToFileURL(join(work, file)).href);
  await prepare(page);
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1200, height } });
  if (watched.consoleErrors.length > 0 || watched.pageErrors.length > 0)
    throw new Error(`${file}: ${[...watched.consoleErrors, ...watched.pageErrors].join('; ')}`);
  await page.close();
  const bytes = statSync(out).size;
  if (bytes > MAX_BYTES) throw new Error(`${out} is ${bytes} bytes, more than ${MAX_BYTES}: make the clip smaller`);
  console.log(`${out.slice(root.length)}: ${Math.round(bytes / 1024)} KiB`);
}

try {
  cai(
    [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--repro-dir',
      'cai-repro',
      '--html',
      'conformance.html',
    ],
    [1],
  );
  writeFileSync(join(work, 'operation.ndjson'), syntheticLog({ days: 14, jobsPerDay: 14, seed: 5 }));
  cai(['report', '--log', 'operation.ndjson', '--html', 'operation.html']);

  const browser = await launchChromium({ viewport: { width: 1200, height: 900 } });
  try {
    await shoot(
      browser,
      'conformance.html',
      join(images, 'conformance-report.png'),
      async (page) => {
        await page.click('button.card[data-only="failed"]');
        await page.click('#checks details.check[data-v="failed"] > summary');
        await page.evaluate('window.scrollTo(0, 0)');
      },
      1500,
    );
    await shoot(browser, 'operation.html', join(images, 'operation-report.png'), async () => undefined, 900);
    const mock = await startInspectedMock();
    try {
      sendRequests(mock.url);
      await shoot(
        browser,
        mock.ui,
        join(images, 'inspector.png'),
        async (page) => {
          await page.waitForSelector('#rows tr[data-id="7"]');
          await page.click('#rows tr[data-id="7"]');
          await page.waitForSelector('#detail article.request-detail[data-id="7"] .why');
        },
        900,
      );
    } finally {
      mock.child.kill('SIGTERM');
    }
  } finally {
    await browser.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
