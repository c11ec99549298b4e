// Start-up cost of `cai sign` against bare `node -e 0`, measured in the same run (issue #2: target ≤ 1.6).
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, formatRatio, median, timeProcess } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'cai-bench-'));
const body = join(dir, 'event.json');
writeFileSync(body, '{"event":"job.closed","event_id":"evt_bench","outcome":"no_answer"}');
const env = { ...process.env, CAI_SECRET: 'whsec_bench_secret', NO_COLOR: '1' };
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = createHmac('sha256', env.CAI_SECRET).update(`${timestamp}.`).update(readFileSync(body)).digest('hex');
const verifyArgs = [BIN, 'verify', '--body', body, '--timestamp', timestamp, '--signature', `sha256=${signature}`];

// Warm the file-system cache, then interleave the two so drift affects both alike.
timeProcess(['-e', '0']);
timeProcess([BIN, 'sign', '--body', body], { env });
const floor = [];
const sign = [];
const verify = [];
for (let i = 0; i < RUNS; i += 1) {
  floor.push(timeProcess(['-e', '0']));
  sign.push(timeProcess([BIN, 'sign', '--body', body], { env }));
  verify.push(timeProcess(verifyArgs, { env }));
}
const floorMedian = median(floor);
console.log(`runs: ${RUNS} each, medians of wall time`);
console.log(formatRatio('cai sign  ', median(sign), floorMedian, 'ms', '≤ 1.6'));
console.log(formatRatio('cai verify', median(verify), floorMedian, 'ms', '≤ 1.6'));
