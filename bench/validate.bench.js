// Validation throughput (issue #3): events validated per second over a generated NDJSON file, against
// JSON.parse alone over the same lines in the same run; then `cai validate --ndjson` through the built
// binary against a bare node script that only reads and JSON.parses the same file, with peak memory at two
// file sizes to show that streaming keeps memory constant.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, loadAverage, median, printRatio } from './lib.js';
import { EVENT_TYPES } from '../dist/spec/constants.js';
import { sampleEvent } from '../dist/spec/sample.js';
import { FAST_VALIDATORS } from '../dist/spec/fast-validate.generated.js';
import { validateBody, validateDocument } from '../dist/spec/validate.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'cai-bench-validate-'));

async function generate(path, count) {
  const out = createWriteStream(path);
  for (let i = 0; i < count; i += 1) {
    const event = sampleEvent(EVENT_TYPES[i % EVENT_TYPES.length], { leadId: `lead_${i % 5000}` });
    // 1 in 100 broken, as a real capture would have a few.
    if (i % 100 === 99) event.from_number_e164 = '0612345678';
    if (!out.write(JSON.stringify(event) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const small = join(dir, 'events.ndjson');
await generate(small, EVENTS);
const lines = readFileSync(small)
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => Buffer.from(line));
const megabytes = statSync(small).size / 1e6;
console.log(`${lines.length} events, ${megabytes.toFixed(1)} MB; load average ${loadAverage()}`);

function timed(fn, from, to) {
  const start = process.hrtime.bigint();
  fn(from, to);
  return Number(process.hrtime.bigint() - start) / 1e9;
}
const parseOnly = (from, to) => {
  for (let i = from; i < to; i += 1) JSON.parse(lines[i].toString('utf8'));
};
let invalid = 0;
const validateAll = (from, to) => {
  for (let i = from; i < to; i += 1) if (!validateBody(lines[i]).valid) invalid += 1;
};
// Warm-up, then rounds of 10 000 lines, the floor and validateBody alternating over the same slice, so that a
// neighbour's load or a garbage collection skews both sides of a pair alike; the ratio is that of the median
// times, with the spread of the per-pair ratios.
parseOnly(0, lines.length);
validateAll(0, lines.length);
const SLICE = 10_000;
const parseTimes = [];
const validateTimes = [];
invalid = 0;
for (let round = 0; round < RUNS * (lines.length / SLICE); round += 1) {
  const from = (round * SLICE) % lines.length;
  const to = Math.min(lines.length, from + SLICE);
  parseTimes.push(timed(parseOnly, from, to) / (to - from));
  validateTimes.push(timed(validateAll, from, to) / (to - from));
}
const parseRate = 1 / median(parseTimes);
const validateRate = 1 / median(validateTimes);
const fmt = (rate) => `${Math.round(rate).toLocaleString('en')} events/s`;
console.log(
  `in process: ${parseTimes.length} rounds of ${SLICE} lines, each validateBody round paired with a JSON.parse round over the same lines (${invalid / RUNS} invalid a pass)`,
);
printRatio('validate in process, per event (UTF-8, JSON, schema, warnings)', {
  value: validateRate,
  floor: parseRate,
  unit: 'events/s',
  floorName: 'JSON.parse alone',
  ratios: validateTimes.map((time, index) => parseTimes[index] / time),
  target: '≥ 0.7',
  digits: 0,
});

// Where the time over JSON.parse goes, after the ratio (so as not to change its pairing): per event, JSON.parse
// alone, then with each further layer of validateBody, the steps taking turns on each slice (order reversed every
// other slice), and apart the broken 1 in 100 (zod gives their issues) against the valid line before each. CPU
// time of this process rather than wall time: on a shared machine it moves less with the neighbours' load.
function cpuTimed(fn, from, to) {
  const start = process.cpuUsage();
  fn(from, to);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}
let sink = 0; // what the steps compute, kept so that none is dropped
const steps = {
  'JSON.parse': parseOnly,
  '+ compiled validator': (from, to) => {
    for (let i = from; i < to; i += 1) {
      const value = JSON.parse(lines[i].toString('utf8'));
      const fast = FAST_VALIDATORS[value.event];
      if (fast?.(value)) sink += 1;
    }
  },
  '+ the rest of validateDocument': (from, to) => {
    for (let i = from; i < to; i += 1) if (validateDocument(JSON.parse(lines[i].toString('utf8'))).valid) sink += 1;
  },
  '+ validateBody around it': validateAll,
};
const stepTimes = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
const BREAKDOWN_ROUNDS = 8 * RUNS;
for (let round = 0; round < BREAKDOWN_ROUNDS; round += 1) {
  const from = (round * SLICE) % lines.length;
  const to = Math.min(lines.length, from + SLICE);
  const order = Object.entries(steps);
  if (round % 2 === 1) order.reverse();
  for (const [name, fn] of order) stepTimes[name].push(cpuTimed(fn, from, to) / (to - from));
}
// The broken lines (1 in 100), and for each the valid line before it.
const brokenAt = [];
for (let i = 1; i < lines.length; i += 1) if (!validateBody(lines[i]).valid) brokenAt.push(i);
const brokenTimes = [];
const besideTimes = [];
for (let round = 0; round < BREAKDOWN_ROUNDS && brokenAt.length > 0; round += 1) {
  brokenTimes.push(cpuTimed(() => brokenAt.forEach((i) => validateBody(lines[i])), 0, 0) / brokenAt.length);
  besideTimes.push(cpuTimed(() => brokenAt.forEach((i) => validateBody(lines[i - 1])), 0, 0) / brokenAt.length);
}
const ns = (seconds) => `${Math.round(seconds * 1e9)} ns`;
const layers = Object.entries(stepTimes).map(([name, times], index, all) => {
  const added = index === 0 ? median(times) : median(times) - median(all[index - 1][1]);
  return `${name} ${ns(added)}`;
});
const broken =
  brokenAt.length > 0
    ? `; validateBody of a broken line ${ns(median(brokenTimes))}, of the valid line before it ${ns(median(besideTimes))} (${brokenAt.length} broken)`
    : '';
console.log(
  `breakdown, CPU time per event, medians of ${BREAKDOWN_ROUNDS} rounds of ${SLICE} lines: ${layers.join(', ')}${broken}`,
);

// Through processes: the binary streams the file; the floor is a bare node script reading + parsing it.
const floorScript = join(dir, 'parse-only.mjs');
writeFileSync(
  floorScript,
  `import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
let n = 0;
for await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity })) { if (line) { JSON.parse(line); n += 1; } }
`,
);
const MAXRSS =
  "data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))";
function run(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', MAXRSS, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const rss = Number(/maxrss=(\d+)/.exec(result.stderr.toString())?.[1] ?? NaN) / 1024;
  return { seconds, rss };
}
const procRuns = Math.max(3, RUNS);
const floorRuns = [];
const caiRuns = [];
for (let i = 0; i < procRuns; i += 1) {
  floorRuns.push(run([floorScript, small]));
  caiRuns.push(run([BIN, 'validate', '--ndjson', small]));
}
console.log(`through processes: ${procRuns} runs of each, alternating; start-up included`);
printRatio(`cai validate --ndjson, ${lines.length} events`, {
  value: lines.length / median(caiRuns.map((r) => r.seconds)),
  floor: lines.length / median(floorRuns.map((r) => r.seconds)),
  unit: 'events/s',
  floorName: 'node readline + JSON.parse',
  ratios: caiRuns.map((r, index) => floorRuns[index].seconds / r.seconds),
  target: '≥ 0.8',
  digits: 0,
});

// Constant memory: peak RSS at 1x and 4x the file size.
const large = join(dir, 'events-4x.ndjson');
await generate(large, EVENTS * 4);
const rssSmall = median(caiRuns.map((r) => r.rss));
const rssLarge = run([BIN, 'validate', '--ndjson', large]).rss;
console.log(
  `memory      cai validate --ndjson peak RSS: ${rssSmall.toFixed(0)} MB at ${megabytes.toFixed(0)} MB, ${rssLarge.toFixed(0)} MB at ${(statSync(large).size / 1e6).toFixed(0)} MB`,
);
rmSync(dir, { recursive: true, force: true });
