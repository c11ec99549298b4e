// `cai load` (issue #26), two rows, each against a floor measured in the same run on the same bare node:http server
// (a process of its own, answering 202):
// 1. its rate at full speed (a rate no machine reaches, --connections C) against autocannon at the same C connections
//    for the same duration: target ≥ 1.0. Both figures are answers over the run's own time, start-up excluded (cai
//    load's achieved rate is the requests answered over its elapsed time; autocannon's, its 2xx over its duration).
//    cai load makes, signs (HMAC-SHA256, §5) and judges every request; autocannon sends one pre-built body.
// 2. a set rate held: the rate achieved over the rate set (BENCH_LOAD_RATE/s for the duration), target ≥ 0.98, with
//    room enough in flight (HELD_CONNECTIONS: answers as slow as a second, on a machine shared by other jobs) that
//    no arrival finds every connection busy; the row measures the schedule, not the server.
// The two clients alternate run after run, so a neighbour's load on a shared machine skews them alike.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BIN, childrenCpuMs, loadAverage, median, printRatio, startBareServer } from './lib.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SET_RATE = Number(process.env.BENCH_LOAD_RATE ?? 1000);
const HELD_CONNECTIONS = 1000;
const SECRET = 'whsec_bench_secret';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const BODY = JSON.stringify({
  event: 'conversation.message',
  event_id: 'evt_bench_000001',
  lead_id: 'lead_bench',
  channel: 'whatsapp',
  direction: 'outbound',
  author: 'agent',
  text: 'Hello, this is the clinic assistant. You asked about an appointment: would Tuesday at 10:30 suit you?',
  occurred_at: '2026-11-22T13:00:00+00:00',
});

// autocannon at CONNECTIONS connections, one request at a time on each, for SECONDS: its own figure.
const AUTOCANNON = `
  import autocannon from 'autocannon';
  const [url, connections, seconds, body] = process.argv.slice(1);
  const result = await autocannon({ url, connections: Number(connections), pipelining: 1, duration: Number(seconds), method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cai-provider': 'acme' }, body });
  process.stdout.write(JSON.stringify({ ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts, seconds: result.duration }));
`;

/** CPU time (user + system) a request of each client, its start-up included: steadier than rates on a shared machine. */
const cpuPerRequest = { autocannon: [], cai: [] };

/** Runs a client process, noting its CPU time a request (`answered` reads the count from its result). */
function measured(kind, run, answered) {
  const before = childrenCpuMs();
  const result = run();
  const after = childrenCpuMs();
  if (before !== undefined && after !== undefined)
    cpuPerRequest[kind].push(((after - before) * 1000) / answered(result));
  return result;
}

function autocannonRate(url) {
  return measured(
    'autocannon',
    () => autocannonRun(url),
    (rate) => rate * SECONDS,
  );
}

function autocannonRun(url) {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', AUTOCANNON, url, String(CONNECTIONS), String(SECONDS), BODY],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const counts = result.status === 0 ? JSON.parse(result.stdout) : undefined;
  if (!counts || counts.ok === 0 || counts.other !== 0)
    throw new Error(`autocannon failed (${result.status}): ${result.stdout} ${result.stderr}`);
  return counts.ok / counts.seconds;
}

/** The built binary; its report: every request made and signed as it goes out, every answer judged. */
function caiLoad(url, rate, connections) {
  const result = spawnSync(
    process.execPath,
    [
      BIN,
      'load',
      '--to',
      url,
      '--provider',
      'acme',
      '--rate',
      `${rate}/s`,
      '--duration',
      `${SECONDS}s`,
      '--connections',
      String(connections),
      '--json',
    ],
    {
      env: { ...process.env, CAI_SECRET: SECRET, NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`cai load exited ${result.status}: ${result.stderr}`);
  const report = JSON.parse(result.stdout);
  if (report.requests.failed !== 0 || Object.keys(report.statuses).join() !== '202')
    throw new Error(
      `cai load: unexpected answers ${JSON.stringify(report.statuses)} ${JSON.stringify(report.failures)}`,
    );
  return report;
}

const { child, url } = await startBareServer();
try {
  // Warm-up (file-system cache, the server's JIT), then the two in turn, run after run.
  autocannonRate(url);
  caiLoad(url, 100_000, CONNECTIONS);
  const cannon = [];
  const full = [];
  const held = [];
  for (let run = 0; run < RUNS; run += 1) {
    cannon.push(autocannonRate(url));
    const report = measured(
      'cai',
      () => caiLoad(url, 100_000, CONNECTIONS),
      (run) => run.requests.answered,
    );
    full.push(report.requests.answered / (report.elapsedMs / 1000));
    const set = caiLoad(url, SET_RATE, HELD_CONNECTIONS);
    held.push(set.achievedRatePerSecond);
  }
  console.log(
    `${CONNECTIONS} connections, ${SECONDS} s a run, ${RUNS} runs of each (alternating), medians; cai load makes, signs and judges every request; load average ${loadAverage()}`,
  );
  printRatio('cai load at full speed vs autocannon', {
    value: median(full),
    floor: median(cannon),
    unit: 'req/s',
    floorName: 'autocannon',
    ratios: full.map((rate, run) => rate / cannon[run]),
    target: '≥ 1.0',
    digits: 0,
  });
  if (cpuPerRequest.cai.length > 0) {
    const cai = median(cpuPerRequest.cai);
    const cannon = median(cpuPerRequest.autocannon);
    console.log(
      `client CPU a request (start-up included): cai load ${cai.toFixed(0)} µs vs autocannon ${cannon.toFixed(0)} µs -> CPU-bound ratio ${(cannon / cai).toFixed(2)}`,
    );
  }
  printRatio(`cai load holds a set rate (${SET_RATE}/s, ${HELD_CONNECTIONS} connections)`, {
    value: median(held),
    floor: SET_RATE,
    unit: 'req/s',
    floorName: 'the rate set',
    ratios: held.map((rate) => rate / SET_RATE),
    target: '≥ 0.98',
    digits: 1,
  });
} finally {
  child.kill();
}
