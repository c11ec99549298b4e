// Validation throughput (issue #3): events validated per second over a generated NDJSON file, against
// JSON.parse alone over the same lines in the same run; then `cai validate --ndjson` through the built
// binary against a bare node script that only reads and JSON.parses the same file, with peak memory at two
// file sizes to show that streaming keeps memory constant.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, median } from './lib.js';
import { EVENT_TYPES } from '../dist/spec/constants.js';
import { sampleEvent } from '../dist/spec/sample.js';
import { validateBody } from '../dist/spec/validate.js';

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
const lines = readFileSync(small).toString('utf8').split('\n').filter(Boolean).map((line) => Buffer.from(line));
const megabytes = statSync(small).size / 1e6;
console.log(`${lines.length} events, ${megabytes.toFixed(1)} MB, median of ${RUNS} runs`);

function timed(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}
const parseOnly = () => {
  for (const line of lines) JSON.parse(line.toString('utf8'));
};
let invalid = 0;
const validateAll = () => {
  invalid = 0;
  for (const line of lines) if (!validateBody(line).valid) invalid += 1;
};
parseOnly();
validateAll();
const parseTimes = [];
const validateTimes = [];
for (let i = 0; i < RUNS; i += 1) {
  parseTimes.push(timed(parseOnly));
  validateTimes.push(timed(validateAll));
}
const parseRate = lines.length / median(parseTimes);
const validateRate = lines.length / median(validateTimes);
const fmt = (rate) => `${Math.round(rate).toLocaleString('en')} events/s`;
console.log(`in process  JSON.parse alone:          ${fmt(parseRate)}`);
console.log(`in process  validateBody (UTF-8, JSON, schema, warnings): ${fmt(validateRate)} (${invalid} invalid) -> ${(parseRate / validateRate).toFixed(2)}x the time of JSON.parse`);

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
const MAXRSS = "data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))";
function run(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--import', MAXRSS, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  const rss = Number(/maxrss=(\d+)/.exec(result.stderr.toString())?.[1] ?? NaN) / 1024;
  return { seconds, rss };
}
const procRuns = Math.max(3, Math.ceil(RUNS / 2));
const floorRuns = [];
const caiRuns = [];
for (let i = 0; i < procRuns; i += 1) {
  floorRuns.push(run([floorScript, small]));
  caiRuns.push(run([BIN, 'validate', '--ndjson', small]));
}
const floorRate = lines.length / median(floorRuns.map((r) => r.seconds));
const caiRate = lines.length / median(caiRuns.map((r) => r.seconds));
console.log(`process     node readline + JSON.parse: ${fmt(floorRate)}`);
console.log(`process     cai validate --ndjson:      ${fmt(caiRate)} -> ${(floorRate / caiRate).toFixed(2)}x the time of the floor`);

// Constant memory: peak RSS at 1x and 4x the file size.
const large = join(dir, 'events-4x.ndjson');
await generate(large, EVENTS * 4);
const rssSmall = median(caiRuns.map((r) => r.rss));
const rssLarge = run([BIN, 'validate', '--ndjson', large]).rss;
console.log(`memory      cai validate --ndjson peak RSS: ${rssSmall.toFixed(0)} MB at ${megabytes.toFixed(0)} MB, ${rssLarge.toFixed(0)} MB at ${(statSync(large).size / 1e6).toFixed(0)} MB`);
rmSync(dir, { recursive: true, force: true });
