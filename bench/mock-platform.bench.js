// Requests per second of `cai mock platform` (verify, validate, dedupe, the --log, a printed line per request)
// against two floors measured in the same run, each server in turn in every round:
// - a bare node:http server answering 202: `cai mock platform` in its default mode (`--fsync everysec`: each 202
//   once its record is written to the log, the log synced every second) reaches ≥ 0.7 of it (issues #17, 26);
// - bench/durable-receiver.mjs, the least code doing the same durable work with each 202 after its record is on
//   disk (HMAC, JSON.parse, the compiled schema check, a Map, the O_DSYNC group-commit log): `cai mock platform
//   --fsync always`, which promises the same, reaches ≥ 0.9 of it (issue 26).
// Also printed, for the record: the least-code receiver against bare (what the synced write costs on this machine,
// whatever the code), and the same least code acknowledging once written (`everysec`) against bare.
// BENCH_MOCK_NODE_ARGS passes node flags to the mocks only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
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
    headers: {
      'content-type': 'application/json',
      'x-cai-provider': 'bench',
      'x-cai-timestamp': timestamp,
      'x-cai-signature': signature,
    },
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
  return {
    ...run,
    cpuUsPerRequest:
      before === undefined || after === undefined ? undefined : ((after - before) * 1000) / Math.max(1, run.done),
  };
}

function prepare(prefix, count) {
  return Array.from({ length: count }, (_, index) => signedRequest(index, prefix));
}

/** The servers of a round, in the order they run. */
const SERVERS = [
  { key: 'bare', name: 'bare node:http' },
  { key: 'floor', name: 'bench/durable-receiver.mjs' },
  { key: 'floorEverysec', name: 'bench/durable-receiver.mjs --fsync everysec' },
  { key: 'mock', name: 'cai mock platform' },
  { key: 'mockAlways', name: 'cai mock platform --fsync always' },
];

async function startServers(dir) {
  const mockArgs = (log, fsync) => [
    ...(process.env.BENCH_MOCK_NODE_ARGS ?? '').split(' ').filter(Boolean),
    BIN,
    'mock',
    'platform',
    '--provider',
    'bench',
    '--secret-env',
    'BENCH_SECRET',
    '--log',
    join(dir, log),
    ...(fsync ? ['--fsync', fsync] : []),
  ];
  const secret = { BENCH_SECRET: SECRET };
  return {
    bare: await startServer(['-e', BARE_SERVER]),
    floor: await startServer([DURABLE_FLOOR, join(dir, 'floor.ndjson')], secret),
    floorEverysec: await startServer(
      [DURABLE_FLOOR, join(dir, 'floor-everysec.ndjson'), '--fsync', 'everysec'],
      secret,
    ),
    // The default mode: no --fsync given.
    mock: await startServer(mockArgs('events.ndjson'), secret),
    mockAlways: await startServer(mockArgs('events-always.ndjson', 'always'), secret),
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cai-bench-mock-'));
  const servers = await startServers(dir);
  try {
    const perRound = Math.min(MAX_REQUESTS_PER_ROUND, Math.ceil((ROUND_MS / 1000) * 40_000));
    // Warm-up: JIT and connections on both sides.
    for (const { key } of SERVERS)
      await load(servers[key].url, prepare(`w${key}${randomBytes(3).toString('hex')}`, 3000), 500);
    const rates = Object.fromEntries(SERVERS.map(({ key }) => [key, []]));
    const cpu = Object.fromEntries(SERVERS.map(({ key }) => [key, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const runs = {};
      for (const { key } of SERVERS)
        runs[key] = await measure(servers[key], prepare(`${key}${round}_${randomBytes(3).toString('hex')}`, perRound));
      const failed = SERVERS.filter(({ key }) => runs[key].failed > 0);
      if (failed.length > 0)
        throw new Error(
          `non-202 answers: ${failed.map(({ key, name }) => `${name} ${JSON.stringify([...runs[key].statuses])}`).join(', ')}`,
        );
      for (const { key } of SERVERS) {
        rates[key].push(runs[key].perSecond);
        if (runs[key].cpuUsPerRequest !== undefined) cpu[key].push(runs[key].cpuUsPerRequest);
      }
    }
    const perRoundRatio = (value, floor) => rates[value].map((rate, i) => rate / rates[floor][i]);
    const ratios = perRoundRatio('mock', 'bare');
    console.log(
      `load: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${ROUND_MS} ms per server, in turn; per-round ratios of the mock to bare ${ratios.map((r) => r.toFixed(2)).join(' ')}; load average ${loadAverage()}`,
    );
    console.log(
      `req/s (medians): ${SERVERS.map(({ key, name }) => `${name} ${median(rates[key]).toFixed(0)}`).join(', ')}`,
    );
    if (cpu.mock.length > 0)
      console.log(
        `server CPU per request (medians): ${SERVERS.map(({ key, name }) => `${name} ${median(cpu[key]).toFixed(0)} µs`).join(', ')}`,
      );
    console.log(
      `for the record: the least code vs bare, each 202 once on disk ${(median(rates.floor) / median(rates.bare)).toFixed(2)}, once written ${(median(rates.floorEverysec) / median(rates.bare)).toFixed(2)}`,
    );
    printRatio('cai mock platform (default --fsync everysec: verify, validate, dedupe, the log written)', {
      value: median(rates.mock),
      floor: median(rates.bare),
      unit: 'req/s',
      floorName: 'bare node:http',
      ratios,
      target: '≥ 0.7',
      digits: 0,
    });
    printRatio('cai mock platform --fsync always, against the least code doing its durable work', {
      value: median(rates.mockAlways),
      floor: median(rates.floor),
      unit: 'req/s',
      floorName: 'bench/durable-receiver.mjs',
      ratios: perRoundRatio('mockAlways', 'floor'),
      target: '≥ 0.9',
      digits: 0,
    });
  } finally {
    await Promise.all(SERVERS.map(({ key }) => stopProcess(servers[key].child)));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
