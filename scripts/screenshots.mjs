#!/usr/bin/env node
/**
 * `npm run screenshots`: the pictures of the HTML reports in docs/images/, taken from real output of the built
 * binary in headless Chromium, launched as the browser tests launch it (test/helpers/chromium.mjs):
 *   - conformance-report.png: `cai conformance run --mock --break no-dedupe --html`, failures shown, one opened;
 *   - operation-report.png:   `cai report --html` on a made-up two-week log (test/helpers/synthetic-log.mjs).
 * Run `npm run build` first (npm run screenshots does).
 */
import { spawnSync } from 'node:child_process';
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

function cai(args, expectedCodes = [0]) {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'cai.js'), ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1' }, encoding: 'utf8' });
  if (!expectedCodes.includes(result.status)) throw new Error(`cai ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
}

async function shoot(browser, file, out, prepare, height) {
  const page = await browser.context.newPage();
  const watched = watchPage(page);
  await page.goto(pathToFileURL(join(work, file)).href);
  await prepare(page);
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1200, height } });
  if (watched.consoleErrors.length > 0 || watched.pageErrors.length > 0) throw new Error(`${file}: ${[...watched.consoleErrors, ...watched.pageErrors].join('; ')}`);
  await page.close();
  const bytes = statSync(out).size;
  if (bytes > MAX_BYTES) throw new Error(`${out} is ${bytes} bytes, more than ${MAX_BYTES}: make the clip smaller`);
  console.log(`${out.slice(root.length)}: ${Math.round(bytes / 1024)} KiB`);
}

try {
  cai(['conformance', 'run', '--mock', '--interface', 'B', '--break', 'no-dedupe', '--repro-dir', 'cai-repro', '--html', 'conformance.html'], [1]);
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
  } finally {
    await browser.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
