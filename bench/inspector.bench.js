// The mocks' inspector at scale: `cai mock platform --ui` through the built binary, filled with 10 000 requests
// (BENCH_INSPECTOR_REQUESTS; 85 % new messages over 500 leads, 5 % each repeats, bad signatures, invalid events),
// then its page opened in headless Chromium (launched as the browser tests launch it). It prints the mock's
// requests per second with the inspector on against the same mock without it (same load, same run), the mock's
// memory with 10 000 requests kept, the page's load time (navigation start to the first rows drawn), its JS heap
// after a GC, and how long a verdict filter, a search in the bodies and the conversations list take, each until
// the next frame. No floor for the page figures; they go to docs/benchmarks.md.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { chromiumMissing, launchChromium, watchPage } from '../test/helpers/chromium.mjs';
import { BIN, median, startServerProcess, stopProcess } from './lib.js';

const REQUESTS = Number(process.env.BENCH_INSPECTOR_REQUESTS ?? 10_000);
// The search step looks for message 4321 (a new message in the generated mix): fewer requests would never show it.
if (!(REQUESTS >= 4322))
  throw new Error('BENCH_INSPECTOR_REQUESTS must be at least 4322: the search step looks for message 4321');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = 32;
const SECRET = 'bench-secret-0123456789abcdef';

/** The platform mock with `--json`: its first line is `{"url": …, "ui": …}`. */
async function startMock(args) {
  const { child, firstLine } = await startServerProcess(
    [BIN, 'mock', 'platform', '--provider', 'bench', '--json', ...args],
    { CAI_SECRET: SECRET },
  );
  return { child, ...JSON.parse(firstLine) };
}

function rss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+([0-9]+) kB/m.exec(status)?.[1]) * 1024;
}

/** Request number i: mostly new messages over 500 leads; every 20th a repeat, a bad signature or an invalid event. */
function requestFor(i, prefix) {
  const kind = i % 20 === 7 ? 'duplicate' : i % 20 === 13 ? 'bad-signature' : i % 20 === 17 ? 'invalid' : 'new';
  const id = kind === 'duplicate' ? `evt_${prefix}_${i - 1}` : `evt_${prefix}_${i}`;
  const body = Buffer.from(
    JSON.stringify({
      event: 'conversation.message',
      event_id: id,
      lead_id: `lead-${i % 500}`,
      provider_job_id: `pj_${i % 500}`,
      channel: 'whatsapp',
      from_number_e164: '+447700900123',
      direction: kind === 'invalid' ? 'sideways' : i % 2 ? 'inbound' : 'outbound',
      author: i % 2 ? 'contact' : 'agent',
      text: `Message ${i}: a chat message of ordinary length, to see how the inspector holds up with many of them.`,
      occurred_at: new Date(Date.UTC(2026, 10, 22, 12, 0, 0) + i * 1000).toISOString().replace('Z', '+00:00'),
    }),
  );
  const timestamp = String(Math.floor(Date.now() / 1000));
  const secret = kind === 'bad-signature' ? 'not-the-secret' : SECRET;
  const signature = 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-cai-provider': 'bench',
      'x-cai-timestamp': timestamp,
      'x-cai-signature': signature,
    },
  };
}

async function load(url, prefix) {
  const dispatcher = new Agent({ connections: CONNECTIONS, pipelining: 1 });
  const requests = Array.from({ length: REQUESTS }, (_, i) => requestFor(i, prefix));
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < requests.length) {
        const { body, headers } = requests[next++];
        const response = await request(url, { method: 'POST', body, headers, dispatcher });
        await response.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await dispatcher.close();
  return REQUESTS / seconds;
}

const untilNextFrame = (body) =>
  `new Promise((done) => { const t = performance.now(); ${body}; const wait = (test) => test() ? requestAnimationFrame(() => setTimeout(() => done(performance.now() - t))) : setTimeout(() => wait(test), 5); wait(WAIT); })`;

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}

const rates = { off: [], on: [] };
const withoutUi = [];
for (let run = 0; run < RUNS; run++) {
  for (const ui of [false, true]) {
    const mock = await startMock(ui ? ['--ui'] : []);
    rates[ui ? 'on' : 'off'].push(await load(mock.url, `r${run}`));
    if (!ui) withoutUi.push(rss(mock.child.pid));
    await stopProcess(mock.child);
  }
}

const mock = await startMock(['--ui']);
const idle = rss(mock.child.pid);
await load(mock.url, 'fill');
const full = rss(mock.child.pid);
const loads = [];
const loadEvents = [];
const heaps = [];
const nodes = [];
const filters = [];
const searches = [];
const conversations = [];
const browser = await launchChromium();
try {
  for (let run = 0; run < RUNS; run++) {
    const tab = await browser.context.newPage();
    const watched = watchPage(tab);
    await tab.goto(mock.ui, { waitUntil: 'load' });
    await tab.waitForFunction(() => document.querySelectorAll('#rows tr').length >= 100);
    loads.push(await tab.evaluate(`performance.now() - performance.getEntriesByType('navigation')[0].startTime`));
    loadEvents.push(
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
    filters.push(
      await tab.evaluate(
        untilNextFrame(
          `const select = document.getElementById('f-verdict'); select.value = 'rejected'; select.dispatchEvent(new Event('change'))`,
        ).replace(
          'WAIT',
          `() => Array.from(document.querySelectorAll('#rows tr')).every((tr) => tr.getAttribute('data-verdict') === 'rejected') && document.querySelectorAll('#rows tr').length > 0`,
        ),
      ),
    );
    searches.push(
      await tab.evaluate(
        untilNextFrame(
          `const select = document.getElementById('f-verdict'); select.value = ''; const box = document.getElementById('f-q'); box.value = 'Message 4321:'; box.dispatchEvent(new Event('input'))`,
        ).replace('WAIT', `() => document.querySelectorAll('#rows tr').length === 1`),
      ),
    );
    conversations.push(
      await tab.evaluate(
        untilNextFrame(`location.hash = '#/conversations'`).replace(
          'WAIT',
          `() => document.querySelectorAll('#leads li').length === 500`,
        ),
      ),
    );
    if (watched.consoleErrors.length + watched.pageErrors.length > 0)
      throw new Error([...watched.consoleErrors, ...watched.pageErrors].join('; '));
    await tab.close();
  }
} finally {
  await browser.close();
  await stopProcess(mock.child);
}
const mib = (value) => (value / 1024 / 1024).toFixed(1);
const off = median(rates.off);
const on = median(rates.on);
console.log(
  `requests: ${REQUESTS} (85 % new over 500 leads, 5 % repeats, 5 % bad signatures, 5 % invalid), ${CONNECTIONS} connections, runs: ${RUNS}, medians`,
);
console.log(`mock req/s: ${on.toFixed(0)} with --ui vs ${off.toFixed(0)} without -> ratio ${(on / off).toFixed(2)}`);
console.log(
  `mock RSS  : ${mib(idle)} MiB idle with --ui, ${mib(full)} MiB with ${REQUESTS} requests kept (without --ui, after the same load: ${mib(median(withoutUi))} MiB)`,
);
console.log(
  `load      : ${median(loads).toFixed(0)} ms (navigation start to the first 100 rows drawn; load event ${median(loadEvents).toFixed(0)} ms)`,
);
console.log(`JS heap   : ${mib(median(heaps))} MiB used after load and a GC; ${median(nodes)} DOM nodes`);
console.log(
  `filter    : ${median(filters).toFixed(0)} ms (verdict = rejected over ${REQUESTS} kept, to the next frame)`,
);
console.log(
  `search    : ${median(searches).toFixed(0)} ms (a text in the bodies, including the 250 ms input debounce, to the next frame)`,
);
console.log(
  `leads     : ${median(conversations).toFixed(0)} ms (the conversations list of 500 leads, to the next frame)`,
);
