// Batch sending throughput (issue #17): 20 000 small events at concurrency 50 to a bare local HTTP server
// answering 202, against two floors measured in the same run on the same server with the same bodies: a minimal
// undici loop over pre-built bodies (target ≥ 0.85) and autocannon at the same concurrency (target ≥ 0.6).
// The server runs in its own process so that it does not share an event loop with any client; each of the three
// clients runs as a process of its own, start-up included, and they alternate run by run so that a neighbour's
// load on a shared machine skews them alike.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, loadAverage, median, printRatio, startBareServer } from './lib.js';

const COUNT = Number(process.env.BENCH_EVENTS ?? 20_000);
const CONCURRENCY = 50;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECRET = 'whsec_bench_secret';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const events = Array.from({ length: COUNT }, (_, i) =>
  JSON.stringify({
    event: 'conversation.message',
    event_id: `evt_bench_${String(i).padStart(6, '0')}`,
    lead_id: 'lead_bench',
    channel: 'whatsapp',
    direction: 'outbound',
    author: 'agent',
    text: 'Hello, would Tuesday at 10:30 suit you?',
    occurred_at: '2026-11-22T13:00:00+00:00',
  }),
);
const dir = mkdtempSync(join(tmpdir(), 'cai-send-bench-'));
const ndjson = join(dir, 'events.ndjson');
writeFileSync(ndjson, events.join('\n') + '\n');

// The floor: a bare undici pool, 50 workers, pre-built bodies, a fixed header set, no signing, no checks.
// It runs as its own process, as autocannon would, so both sides pay a process start and an undici import.
const BARE_LOOP = `
  import { Agent, request } from 'undici';
  import { readFileSync } from 'node:fs';
  const [url, file, concurrency] = process.argv.slice(1);
  const bodies = readFileSync(file, 'utf8').trim().split('\\n').map((line) => Buffer.from(line));
  const dispatcher = new Agent({ connections: Number(concurrency) });
  let next = 0;
  let accepted = 0;
  await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const response = await request(url, { method: 'POST', dispatcher, body, headers: { 'content-type': 'application/json', 'x-cai-provider': 'acme' } });
      await response.body.arrayBuffer();
      if (response.statusCode === 202) accepted += 1;
    }
  }));
  await dispatcher.close();
  process.stdout.write(String(accepted));
`;

// The second floor: autocannon (a load generator on its own HTTP/1.1 client), the same connections, bodies and
// header set, one request per connection at a time, stopping after COUNT answers.
const AUTOCANNON = `
  import autocannon from 'autocannon';
  import { readFileSync } from 'node:fs';
  const [url, file, concurrency, count] = process.argv.slice(1);
  const bodies = readFileSync(file, 'utf8').trim().split('\\n').map((line) => Buffer.from(line));
  let next = 0;
  const result = await autocannon({
    url,
    connections: Number(concurrency),
    pipelining: 1,
    amount: Number(count),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cai-provider': 'acme' },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
  });
  process.stdout.write(JSON.stringify({ ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts, seconds: result.duration }));
`;

/** autocannon's own figure of each run (its requests over its duration: start-up excluded), for the record. */
const cannonOwnRates = [];

function autocannonRun(url) {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', AUTOCANNON, url, ndjson, String(CONCURRENCY), String(COUNT)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const elapsed = performance.now() - start;
  const counts = result.status === 0 ? JSON.parse(result.stdout) : undefined;
  if (!counts || counts.ok < COUNT || counts.other !== 0)
    throw new Error(`autocannon failed (${result.status}): ${result.stdout} ${result.stderr}`);
  cannonOwnRates.push(counts.ok / counts.seconds);
  return elapsed;
}

function undiciLoop(url) {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', BARE_LOOP, url, ndjson, String(CONCURRENCY)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const elapsed = performance.now() - start;
  if (result.status !== 0 || Number(result.stdout) !== COUNT)
    throw new Error(`undici loop failed (${result.status}): ${result.stdout} ${result.stderr}`);
  return elapsed;
}

/** The real thing: the built binary, validating, signing each request, checking each answer. */
function caiBatch(url) {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      BIN,
      'send-event',
      '--to',
      url,
      '--provider',
      'acme',
      '--ndjson',
      ndjson,
      '--concurrency',
      String(CONCURRENCY),
      '--json',
      '--no-retry',
    ],
    {
      env: { ...process.env, CAI_SECRET: SECRET, NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
    },
  );
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`cai send-event exited ${result.status}: ${result.stderr}`);
  const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)).summary;
  if (summary.accepted !== COUNT) throw new Error(`cai: ${summary.accepted} of ${COUNT} accepted`);
  return elapsed;
}

const { child, url } = await startBareServer();
try {
  // Warm-up (file-system cache, server JIT), then the three in turn, run after run, so drift affects all alike.
  undiciLoop(url);
  autocannonRun(url);
  caiBatch(url);
  const undici = [];
  const cannon = [];
  const cai = [];
  for (let run = 0; run < RUNS; run += 1) {
    undici.push(undiciLoop(url));
    cannon.push(autocannonRun(url));
    cai.push(caiBatch(url));
  }
  const rate = (ms) => (COUNT * 1000) / ms;
  // Rates: the ratio is cai's rate over the floor's, so each run's ratio is the floor's time over cai's.
  const ratios = (floor) => floor.map((ms, run) => ms / cai[run]);
  console.log(
    `${COUNT} events, concurrency ${CONCURRENCY}, ${RUNS} runs of each (alternating), medians of wall time; every client runs as a process (start-up included); cai validates, signs and checks every answer; load average ${loadAverage()}`,
  );
  const caiRate = rate(median(cai));
  printRatio('cai send-event --ndjson vs a bare undici loop', {
    value: caiRate,
    floor: rate(median(undici)),
    unit: 'req/s',
    floorName: 'undici loop',
    ratios: ratios(undici),
    target: '≥ 0.85',
    digits: 0,
  });
  console.log(
    `autocannon's own figure (its duration, start-up excluded): ${median(cannonOwnRates).toFixed(0)} req/s; the ratio below uses its process's wall time like the other two`,
  );
  printRatio('cai send-event --ndjson vs autocannon', {
    value: caiRate,
    floor: rate(median(cannon)),
    unit: 'req/s',
    floorName: 'autocannon',
    ratios: ratios(cannon),
    target: '≥ 0.6',
    digits: 0,
  });
} finally {
  child.kill();
}
