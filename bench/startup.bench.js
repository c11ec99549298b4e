// Start-up of `cai sign`, `cai verify`, `cai --help` and `cai validate event F` against bare `node -e 0`,
// measured in the same run, interleaved so that drift on a shared machine affects all alike (issue #17).
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, loadAverage, median, printRatio, sum, timeProcess } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const dir = mkdtempSync(join(tmpdir(), 'cai-bench-'));
const body = join(dir, 'event.json');
writeFileSync(
  body,
  JSON.stringify({
    event: 'conversation.message',
    event_id: 'evt_bench',
    lead_id: 'lead_bench',
    channel: 'whatsapp',
    direction: 'outbound',
    author: 'agent',
    text: 'Hello, would Tuesday at 10:30 suit you?',
    occurred_at: '2026-11-22T13:00:00+00:00',
  }),
);
const env = { ...process.env, CAI_SECRET: 'whsec_bench_secret', NO_COLOR: '1' };
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = createHmac('sha256', env.CAI_SECRET).update(`${timestamp}.`).update(readFileSync(body)).digest('hex');

const CASES = [
  { label: 'cai sign start-up', args: [BIN, 'sign', '--body', body], target: '≤ 1.35' },
  {
    label: 'cai verify start-up',
    args: [BIN, 'verify', '--body', body, '--timestamp', timestamp, '--signature', `sha256=${signature}`],
    target: '≤ 1.35',
  },
  { label: 'cai --help start-up', args: [BIN, '--help'], target: '≤ 1.35' },
  { label: 'cai validate event F start-up', args: [BIN, 'validate', 'event', body], target: '≤ 1.35' },
];

// Warm the file-system cache, then interleave the floor and every case so drift affects all alike.
timeProcess(['-e', '0']);
for (const { args } of CASES) timeProcess(args, { env });
const floor = [];
const floorCpu = [];
const times = CASES.map(() => []);
const cpu = CASES.map(() => []);
console.log(`load average before: ${loadAverage()}`);
for (let i = 0; i < RUNS; i += 1) {
  floor.push(timeProcess(['-e', '0'], {}, floorCpu));
  CASES.forEach(({ args }, index) => times[index].push(timeProcess(args, { env }, cpu[index])));
}
console.log(`load average after: ${loadAverage()}`);
console.log(
  `runs: ${RUNS} of each, interleaved; medians of wall time; spread: each run against the floor run just before it`,
);
CASES.forEach(({ label, target }, index) => {
  printRatio(label, {
    value: median(times[index]),
    floor: median(floor),
    unit: 'ms',
    floorName: 'node -e 0',
    ratios: times[index].map((time, run) => time / floor[run]),
    target,
  });
  // CPU time is steadier than wall time on a shared machine (waiting for a core is not counted): a second view.
  if (floorCpu.length === RUNS)
    console.log(
      `  CPU time (user + system, summed over the runs): ${(sum(cpu[index]) / sum(floorCpu)).toFixed(2)}x node -e 0`,
    );
});
rmSync(dir, { recursive: true, force: true });
