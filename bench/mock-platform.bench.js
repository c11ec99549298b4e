// Requests per second of `cai mock platform` (verify, validate, dedupe, durable fsynced log, a printed line per
// request) against a bare node:http server answering 202, with the same in-repo load generator in the same run.
// Target: ratio ≥ 0.7 (issue #17; ≥ 0.5 in issue 5). A second floor, bench/durable-receiver.mjs, does the same
// durable work in the least code (HMAC, JSON.parse, the compiled schema check, a Map, the O_DSYNC group-commit log):
// its ratio to bare node:http is what the work itself costs on this machine, and the mock's ratio to it is what
// cai's own code costs on top (target ≥ 0.8, ours). BENCH_MOCK_NODE_ARGS passes node flags to the mock only
// (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under this load).
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { BIN, loadAverage, median, printRatio, startServerProcess, stopProcess } from './lib.js';

// Group commit turns concurrency into batch size: 64 connections is a moderate load for an events endpoint.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 1500);
// The servers alternate within each round, so a neighbour's load on a shared machine skews both sides of a pair
// alike; the ratio printed is that of the median rates, with the spread of the per-round ratios (the `load:` line
// also gives their median).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MAX_REQUESTS_PER_ROUND = 200_000;
const SECRET = 'bench-secret-0123456789abcdef';
const DURABLE_FLOOR = fileURLToPath(new URL('./durable-receiver.mjs', import.meta.url));

const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(202, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
});
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port + '/events'));
`;

/** Starts a server process and resolves with the URL it prints first. */
async function startServer(args, env = {}) {
  const { child, firstLine } = await startServerProcess(args, env);
  return { child, url: firstLine };
}

/** A signed, valid, unique conversation.message, as a provider would send it (signing is outside the timing). */
function signedRequest(index, prefix) {
  const body = Buffer.from(
    JSON.stringify({
      event: 'conversation.message',
      event_id: `evt_${prefix}_${index}`,
      lead_id: `lead-${index % 500}`,
      provider_job_id: 'pj_bench',
      channel: 'whatsapp',
      from_number_e164: '+447700900123',
      direction: index % 2 ? 'inbound' : 'outbound',
      author: index % 2 ? 'contact' : 'agent',
      text: 'Hello, this is a benchmark message of ordinary length for a chat conversation.',
      occurred_at: '2026-11-22T13:00:00+00:00',
    }),
  );
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = 'sha256=' + createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex');
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-cai-provider': 'bench', 'x-cai-timestamp': timestamp, 'x-cai-signature': signature },
  };
}

/** N keep-alive connections, each sending one request after another, for at most ROUND_MS or the prepared count. */
async function load(url, requests, durationMs) {
  const dispatcher = new Agent({ connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 10_000 });
  let next = 0;
  let done = 0;
  let failed = 0;
  const statuses = new Map();
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline && next < requests.length) {
      const { body, headers } = requests[next++];
      try {
        const response = await request(url, { method: 'POST', headers, body, dispatcher });
        await response.body.dump();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (response.statusCode === 202) done += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = performance.now() - started;
  await dispatcher.close();
  return { perSecond: (done / elapsed) * 1000, done, failed, statuses };
}

/** CPU time (ms) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

/** Runs the load and adds the server's CPU time per answered request (µs): steadier than req/s on a busy machine. */
async function measure(server, requests) {
  const before = cpuMs(server.child.pid);
  const run = await load(server.url, requests, ROUND_MS);
  const after = cpuMs(server.child.pid);
  return { ...run, cpuUsPerRequest: before === undefined || after === undefined ? undefined : ((after - before) * 1000) / Math.max(1, run.done) };
}

function prepare(prefix, count) {
  return Array.from({ length: count }, (_, index) => signedRequest(index, prefix));
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cai-bench-mock-'));
  const bare = await startServer(['-e', BARE_SERVER]);
  const durable = await startServer([DURABLE_FLOOR, join(dir, 'floor.ndjson')], { BENCH_SECRET: SECRET });
  const mock = await startServer(
    [...(process.env.BENCH_MOCK_NODE_ARGS ?? '').split(' ').filter(Boolean), BIN, 'mock', 'platform', '--provider', 'bench', '--secret-env', 'BENCH_SECRET', '--log', join(dir, 'events.ndjson')],
    { BENCH_SECRET: SECRET },
  );
  try {
    const perRound = Math.min(MAX_REQUESTS_PER_ROUND, Math.ceil((ROUND_MS / 1000) * 40_000));
    // Warm-up: JIT and connections on both sides.
    await load(bare.url, prepare(`wb${randomBytes(3).toString('hex')}`, 3000), 500);
    await load(durable.url, prepare(`wd${randomBytes(3).toString('hex')}`, 3000), 500);
    await load(mock.url, prepare(`wm${randomBytes(3).toString('hex')}`, 3000), 500);
    const bareRates = [];
    const mockRates = [];
    const durableRates = [];
    const ratios = [];
    const durableRatios = [];
    const mockToDurable = [];
    const bareCpu = [];
    const mockCpu = [];
    const durableCpu = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const bareRun = await measure(bare, prepare(`b${round}`, perRound));
      const durableRun = await measure(durable, prepare(`d${round}_${randomBytes(3).toString('hex')}`, perRound));
      const mockRun = await measure(mock, prepare(`m${round}_${randomBytes(3).toString('hex')}`, perRound));
      if (mockRun.failed > 0 || bareRun.failed > 0 || durableRun.failed > 0) {
        const statuses = (run) => JSON.stringify([...run.statuses]);
        throw new Error(`non-202 answers: mock ${statuses(mockRun)}, least-code floor ${statuses(durableRun)}, bare ${statuses(bareRun)}`);
      }
      bareRates.push(bareRun.perSecond);
      mockRates.push(mockRun.perSecond);
      durableRates.push(durableRun.perSecond);
      ratios.push(mockRun.perSecond / bareRun.perSecond);
      durableRatios.push(durableRun.perSecond / bareRun.perSecond);
      mockToDurable.push(mockRun.perSecond / durableRun.perSecond);
      if (bareRun.cpuUsPerRequest !== undefined && mockRun.cpuUsPerRequest !== undefined) {
        bareCpu.push(bareRun.cpuUsPerRequest);
        mockCpu.push(mockRun.cpuUsPerRequest);
        if (durableRun.cpuUsPerRequest !== undefined) durableCpu.push(durableRun.cpuUsPerRequest);
      }
    }
    console.log(
      `load: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${ROUND_MS} ms per server, alternating; per-round ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}; median of them ${median(ratios).toFixed(2)}; load average ${loadAverage()}`,
    );
    if (mockCpu.length > 0) {
      const bareUs = median(bareCpu);
      const mockUs = median(mockCpu);
      const floorUs = durableCpu.length > 0 ? `, least-code floor ${median(durableCpu).toFixed(0)} µs` : '';
      console.log(`server CPU per request: mock ${mockUs.toFixed(0)} µs vs bare ${bareUs.toFixed(0)} µs -> CPU-bound ratio ${(bareUs / mockUs).toFixed(2)}${floorUs}`);
    }
    printRatio('cai mock platform (verify, validate, dedupe, synced log)', {
      value: median(mockRates),
      floor: median(bareRates),
      unit: 'req/s',
      floorName: 'bare node:http',
      ratios,
      target: '≥ 0.7',
      digits: 0,
    });
    printRatio('the same durable work in the least code (bench/durable-receiver.mjs)', {
      value: median(durableRates),
      floor: median(bareRates),
      unit: 'req/s',
      floorName: 'bare node:http',
      ratios: durableRatios,
      target: '≥ 0.7',
      digits: 0,
    });
    printRatio('cai mock platform, against the least code doing its durable work', {
      value: median(mockRates),
      floor: median(durableRates),
      unit: 'req/s',
      floorName: 'bench/durable-receiver.mjs',
      ratios: mockToDurable,
      target: '≥ 0.8',
      digits: 0,
    });
  } finally {
    await Promise.all([stopProcess(bare.child), stopProcess(durable.child), stopProcess(mock.child)]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
