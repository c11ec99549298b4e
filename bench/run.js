#!/usr/bin/env node
// Runs every bench/*.bench.js in turn (each is a standalone script printing its own ratios), printing their output
// as it comes, then one summary of every row of issue #17's table: the `RATIO` lines the benches print (bench/lib.js
// printRatio), with the spread of the runs, the target and whether it is met, and the machine's load average.
// Ratios compare against a floor measured in the same run, so figures are comparable across machines.
import { readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadAverage, parseRatioLine } from './lib.js';

/** The rows of issue #17, in its order (the mock's two rows as issue 26 set them), then the load rows of issue #26: which RATIO line answers each. */
const ISSUE_ROWS = [
  { row: 'cai sign start-up', test: (r) => /\bsign start-up/.test(r.label) },
  { row: 'cai verify start-up', test: (r) => /\bverify start-up/.test(r.label) },
  { row: 'cai --help start-up', test: (r) => /--help start-up/.test(r.label) },
  { row: 'cai validate event F start-up', test: (r) => /validate event F start-up/.test(r.label) },
  { row: 'validate in process, per event', test: (r) => /validate in process/.test(r.label) },
  { row: 'cai validate --ndjson', test: (r) => /validate --ndjson/.test(r.label) },
  {
    row: 'cai mock platform (default --fsync everysec)',
    test: (r) => /mock platform/.test(r.label) && /^bare node:http$/.test(r.floorName),
  },
  {
    row: 'cai mock platform --fsync always vs least-code durable',
    test: (r) => /--fsync always/.test(r.label) && /durable-receiver/.test(r.floorName),
  },
  {
    row: 'cai send-event --ndjson vs undici',
    test: (r) => /send-event/.test(r.label) && !/autocannon/i.test(r.floorName),
  },
  {
    row: 'cai send-event --ndjson vs autocannon',
    test: (r) => /send-event/.test(r.label) && /autocannon/i.test(r.floorName),
  },
  { row: 'cai report', test: (r) => /\breport\b/.test(r.label) },
  // Issue #26.
  {
    row: 'cai load vs autocannon',
    test: (r) => /^cai load at full speed/.test(r.label) && /autocannon/i.test(r.floorName),
  },
  { row: 'cai load holds a set rate', test: (r) => /^cai load holds a set rate/.test(r.label) },
];

const directory = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.bench.js'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

/** Runs one bench, its stdout passed through and kept; resolves with its exit code and output. */
function runBench(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${directory}${file}`], { stdio: ['inherit', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      output += text;
      process.stdout.write(text);
    });
    child.on('error', () => resolve({ code: 1, output }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const loadBefore = loadAverage();
const started = Date.now();
let failed = 0;
const ratios = [];
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const { code, output } = await runBench(file);
  if (code !== 0) failed += 1;
  for (const line of output.split('\n')) {
    const ratio = parseRatioLine(line);
    if (ratio) ratios.push({ ...ratio, bench: file });
  }
}

const cells = [];
const used = new Set();
for (const { row, test } of ISSUE_ROWS) {
  const found = ratios.filter((ratio) => !used.has(ratio) && test(ratio));
  for (const ratio of found) used.add(ratio);
  if (found.length === 0) {
    if (only.length === 0) cells.push([row, '-', '-', '-', '-', 'not printed', '-']);
    continue;
  }
  for (const ratio of found) cells.push(summaryCells(found.length === 1 ? row : ratio.label, ratio));
}
// Ratios outside issue #17's rows (a bench added later): listed too, after them.
for (const ratio of ratios) if (!used.has(ratio)) cells.push(summaryCells(ratio.label, ratio));

function summaryCells(row, ratio) {
  const spread = ratio.runsMin === undefined ? '-' : `${ratio.runsMin.toFixed(2)}–${ratio.runsMax.toFixed(2)}`;
  return [
    row,
    ratio.ratio.toFixed(2),
    spread,
    ratio.runs === undefined ? '-' : String(ratio.runs),
    ratio.target,
    ratio.met ? 'met' : 'NOT MET',
    ratio.bench,
  ];
}

const head = ['row (issues #17, #26)', 'ratio', 'spread of runs', 'runs', 'target', 'verdict', 'bench'];
const widths = head.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(
  `\n== summary: ratio of the medians against a floor measured in the same run; spread: each run against its own floor`,
);
console.log(line(head));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const row of cells) console.log(line(row));
const notMet = cells.filter((row) => row[5] !== 'met').length;
console.log(
  `load average before: ${loadBefore}, after: ${loadAverage()} (1, 5, 15 min); ${Math.round((Date.now() - started) / 1000)} s; ${cells.length - notMet} of ${cells.length} rows met`,
);
if (failed > 0) console.log(`${failed} bench${failed === 1 ? '' : 'es'} failed`);
process.exitCode = failed === 0 ? 0 : 1;
