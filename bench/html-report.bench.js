// The HTML conformance report at scale: a synthesised run of 10 000 checks (BENCH_HTML_CHECKS), rendered by the
// pure renderer, then opened in headless Chromium (launched as the browser tests launch it). It prints the file's
// size, the render time, the load time (navigation start to the load event), the JS heap after load, and how long
// a verdict filter and a search take on every row. No ratio: a page has no floor to compare with; the figures go
// to docs/benchmarks.md.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderConformanceHtml } from '../dist/index.js';
import { chromiumMissing, launchChromium, watchPage } from '../test/helpers/chromium.mjs';
import { median } from './lib.js';

const CHECKS = Number(process.env.BENCH_HTML_CHECKS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** Mostly passing, 7 % failing with their request and answer, some warnings and skips: a plausible big run. */
function synthesise(count) {
  const verdicts = (i) => (i % 100 < 7 ? 'failed' : i % 100 < 8 ? 'warning' : i % 100 < 10 ? 'skipped' : 'passed');
  const checks = Array.from({ length: count }, (_, i) => {
    const verdict = verdicts(i);
    const id = `B-SYN-${String(i).padStart(5, '0')}`;
    const body = JSON.stringify({
      event: 'conversation.message',
      event_id: `cai-conf-${i}`,
      lead_id: `lead-${i}`,
      occurred_at: '2026-11-23T10:00:00Z',
      direction: 'outbound',
      channel: 'whatsapp',
      text: 'Olá! Podemos marcar a consulta para amanhã?',
    });
    const failing = verdict === 'failed' || verdict === 'warning';
    return {
      id,
      interface: 'B',
      title: `synthetic check number ${i}: a repeat of an event_id is answered 202 {"ok":true,"duplicate":true}`,
      sections: ['§6.1', '§2.13'],
      section: '§6.1',
      level: verdict === 'warning' ? 'should' : 'must',
      tags: ['dedupe', 'synthetic'],
      optional: false,
      verdict,
      expected: verdict === 'skipped' ? '-' : '202 {"ok":true,"duplicate":true}',
      actual:
        verdict === 'skipped'
          ? 'optional: run it with --include all'
          : failing
            ? '202 {"ok":true}'
            : '202 {"ok":true,"duplicate":true}',
      durationMs: 40 + (i % 200),
      notes: [],
      requests: 2,
      rateLimitedRetries: 0,
      ...(failing
        ? {
            repro: {
              command: `cai send-event --to http://127.0.0.1:40000/events --provider acme --secret-env CAI_SECRET --body cai-repro/${id}.body --no-validate --no-retry`,
              bodyFile: `cai-repro/${id}.body`,
            },
            exchange: {
              request: {
                method: 'POST',
                url: 'http://127.0.0.1:40000/events',
                headers: {
                  'content-type': 'application/json',
                  'x-cai-provider': 'acme',
                  'x-cai-timestamp': '1795457330',
                  'x-cai-signature': `sha256=${'a'.repeat(64)}`,
                },
                body: { bytes: body.length, text: body },
              },
              response: {
                status: 202,
                headers: {
                  'content-type': 'application/json',
                  'content-length': '11',
                  date: 'Mon, 23 Nov 2026 10:00:00 GMT',
                },
                body: { bytes: 11, text: '{"ok":true}' },
              },
              latencyMs: 3,
            },
          }
        : {}),
    };
  });
  const count$ = (verdict) => checks.filter((check) => check.verdict === verdict).length;
  const summary = {
    passed: count$('passed'),
    failed: count$('failed'),
    skipped: count$('skipped'),
    warnings: count$('warning'),
    waived: 0,
    total: count,
  };
  return {
    ok: false,
    target: 'http://127.0.0.1:40000/events',
    interface: 'B',
    mock: true,
    startedAt: '2026-11-23T10:00:00.000Z',
    durationMs: 60_000,
    probeStatus: 401,
    clock: { offsetSeconds: 0, dateHeader: 'Mon, 23 Nov 2026 10:00:00 GMT' },
    summary,
    checks,
    waivers: [],
    failOn: 'must',
  };
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'cai-bench-html-'));
try {
  const report = synthesise(CHECKS);
  const renders = [];
  let page = '';
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    page = renderConformanceHtml(report, { generator: 'cai bench' });
    renders.push(performance.now() - start);
  }
  const file = join(dir, 'report.html');
  writeFileSync(file, page);
  const bytes = statSync(file).size;

  const loads = [];
  const heaps = [];
  const nodes = [];
  const filters = [];
  const searches = [];
  const browser = await launchChromium();
  try {
    for (let run = 0; run < RUNS; run++) {
      const tab = await browser.context.newPage();
      const watched = watchPage(tab);
      await tab.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      loads.push(
        await tab.evaluate(
          `(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; })()`,
        ),
      );
      const cdp = await browser.context.newCDPSession(tab);
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('Performance.enable');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const metric = (name) => metrics.find((entry) => entry.name === name).value;
      heaps.push(metric('JSHeapUsedSize'));
      nodes.push(metric('Nodes'));
      // A verdict filter and a search over every row, each until the next frame is drawn.
      filters.push(
        await tab.evaluate(
          `new Promise((done) => { const t = performance.now(); document.querySelector('button.card[data-only="failed"]').click(); requestAnimationFrame(() => setTimeout(() => done(performance.now() - t))); })`,
        ),
      );
      searches.push(
        await tab.evaluate(
          `new Promise((done) => { document.querySelector('button.card[data-only="all"]').click(); const box = document.getElementById('search'); const t = performance.now(); box.value = 'b-syn-0999'; box.dispatchEvent(new Event('input')); const wait = () => document.getElementById('shown').textContent.startsWith('showing 10 ') ? requestAnimationFrame(() => setTimeout(() => done(performance.now() - t))) : setTimeout(wait, 5); wait(); })`,
        ),
      );
      if (watched.consoleErrors.length + watched.pageErrors.length > 0)
        throw new Error([...watched.consoleErrors, ...watched.pageErrors].join('; '));
      await tab.close();
    }
  } finally {
    await browser.close();
  }
  const mib = (value) => (value / 1024 / 1024).toFixed(1);
  console.log(
    `checks: ${CHECKS} (${report.summary.failed} failed and ${report.summary.warnings} warnings with request and answer), runs: ${RUNS}, medians`,
  );
  console.log(`file size : ${mib(bytes)} MiB (${Math.round(bytes / CHECKS)} bytes a check)`);
  console.log(`render    : ${median(renders).toFixed(0)} ms (renderConformanceHtml in Node)`);
  console.log(
    `load      : ${median(loads).toFixed(0)} ms (navigation start to load event end, Chromium ${process.env.CAI_CHROMIUM ?? '/usr/bin/chromium'})`,
  );
  console.log(`JS heap   : ${mib(median(heaps))} MiB used after load and a GC; ${median(nodes)} DOM nodes`);
  console.log(`filter    : ${median(filters).toFixed(0)} ms (show only failed, to the next frame)`);
  console.log(
    `search    : ${median(searches).toFixed(0)} ms (type an id prefix, including the input debounce, to the next frame)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
