// Batch sending throughput (issue #4): 10 000 small events at concurrency 50 to a bare local HTTP server
// answering 202, against a minimal undici loop on the same server in the same run. Target ratio ≥ 0.6.
// The server runs in its own process so that it does not share an event loop with either client.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, median } from './lib.js';

const COUNT = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONCURRENCY = 50;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECRET = 'whsec_bench_secret';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const SERVER = `
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(202, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
  });
  server.keepAliveTimeout = 30000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (chunk) => resolve({ child, url: `http://127.0.0.1:${String(chunk).trim()}/events` }));
    child.once('error', reject);
  });
}

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

function undiciLoop(url) {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', BARE_LOOP, url, ndjson, String(CONCURRENCY)], { cwd: ROOT, encoding: 'utf8' });
  const elapsed = performance.now() - start;
  if (result.status !== 0 || Number(result.stdout) !== COUNT) throw new Error(`undici loop failed (${result.status}): ${result.stdout} ${result.stderr}`);
  return elapsed;
}

/** The real thing: the built binary, validating, signing each request, checking each answer. */
function caiBatch(url) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [BIN, 'send-event', '--to', url, '--provider', 'acme', '--ndjson', ndjson, '--concurrency', String(CONCURRENCY), '--json', '--no-retry'], {
    env: { ...process.env, CAI_SECRET: SECRET, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`cai send-event exited ${result.status}: ${result.stderr}`);
  const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)).summary;
  if (summary.accepted !== COUNT) throw new Error(`cai: ${summary.accepted} of ${COUNT} accepted`);
  return elapsed;
}

const { child, url } = await startServer();
try {
  // Warm-up (file-system cache, server JIT), then interleave the two so drift affects both alike.
  undiciLoop(url);
  caiBatch(url);
  const floor = [];
  const cai = [];
  for (let run = 0; run < RUNS; run += 1) {
    floor.push(undiciLoop(url));
    cai.push(caiBatch(url));
  }
  const floorRate = (COUNT * 1000) / median(floor);
  const caiRate = (COUNT * 1000) / median(cai);
  console.log(`${COUNT} events, concurrency ${CONCURRENCY}, ${RUNS} runs each, medians of wall time; both run as processes (start-up included); cai validates, signs and checks every answer`);
  console.log(`bare undici loop : ${floorRate.toFixed(0)} req/s`);
  console.log(`cai send-event   : ${caiRate.toFixed(0)} req/s`);
  console.log(`cai send-event --ndjson: ratio ${(caiRate / floorRate).toFixed(2)} of the bare undici loop (target ≥ 0.6)`);
} finally {
  child.kill();
}
