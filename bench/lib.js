// Small helpers shared by the benchmarks.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/cai.js', import.meta.url));

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * CPU time (user + system, ms) used so far by the children this process has waited for, from /proc (Linux; in
 * clock ticks of 10 ms, so only sums over many runs are meaningful); undefined elsewhere. On a shared machine it
 * moves much less than wall time, because waiting for a core is not counted.
 */
export function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime + cstime
  } catch {
    return undefined;
  }
}

/** Wall time in ms of one spawned process; `cpu` (an array), when given, receives its CPU time as well. */
export function timeProcess(args, options = {}, cpu = undefined) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'], ...options });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0 && !options.allowFailure)
    throw new Error(`benchmark command failed (${result.status}): ${args.join(' ')}\n${result.stderr}`);
  const cpuAfter = childrenCpuMs();
  if (cpu && cpuBefore !== undefined && cpuAfter !== undefined) cpu.push(cpuAfter - cpuBefore);
  return elapsed;
}

export const sum = (values) => values.reduce((total, value) => total + value, 0);

/** The machine's load average now, for the record of a run on a shared machine. */
export function loadAverage() {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

export function formatRatio(label, value, floor, unit, target) {
  const ratio = value / floor;
  const verdict = target ? ` (target ${target})` : '';
  return `${label}: ${value.toFixed(1)} ${unit} vs floor ${floor.toFixed(1)} ${unit} -> ratio ${ratio.toFixed(2)}${verdict}`;
}

/** Whether `ratio` meets a target written `≤ 1.3` or `≥ 0.7`. */
export function meets(ratio, target) {
  const [op, limit] = target.split(' ');
  return op === '≤' ? ratio <= Number(limit) : ratio >= Number(limit);
}

/**
 * One line per row of issue #17's table, the same shape in every benchmark so that bench/run.js can collect
 * them into its summary: the measured figure and its floor (medians), the ratio of the medians, the spread of the
 * per-run ratios (each run paired with the floor measured next to it), and the target with its verdict.
 * Time ratios are `value / floor` (lower is better, `≤`); rate ratios too (higher is better, `≥`).
 */
export function printRatio(label, { value, floor, unit, floorName, ratios = [], target, digits = 1 }) {
  const ratio = value / floor;
  const spread =
    ratios.length > 1
      ? ` [runs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}, n=${ratios.length}]`
      : '';
  const verdict = meets(ratio, target) ? 'met' : 'NOT MET';
  console.log(
    `RATIO ${label}: ${value.toFixed(digits)} ${unit} vs ${floorName} ${floor.toFixed(digits)} ${unit} -> ratio ${ratio.toFixed(2)}${spread} (target ${target}: ${verdict})`,
  );
  return ratio;
}

/**
 * A line printed by printRatio, read back (bench/run.js collects them into its summary); undefined for any other
 * line. `runsMin`, `runsMax` and `runs` are there when the line has a spread.
 */
export function parseRatioLine(line) {
  const match =
    /^RATIO (.+?): [\d.]+ (.+?) vs (.+) [\d.]+ \2 -> ratio ([\d.]+)(?: \[runs ([\d.]+)–([\d.]+), n=(\d+)\])? \(target (.+?): (met|NOT MET)\)$/.exec(
      line,
    );
  if (!match) return undefined;
  const [, label, , floorName, ratio, runsMin, runsMax, runs, target, verdict] = match;
  return {
    label,
    floorName,
    ratio: Number(ratio),
    runsMin: runsMin === undefined ? undefined : Number(runsMin),
    runsMax: runsMax === undefined ? undefined : Number(runsMax),
    runs: runs === undefined ? undefined : Number(runs),
    target,
    met: verdict === 'met',
  };
}

/**
 * Starts a server process (node with `args`) and resolves with `{ child, firstLine }` once it prints its first stdout
 * line (its URL, or the mocks' `--json` document); later lines are drained so the pipe never blocks it.
 */
export function startServerProcess(args, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ child, firstLine: buffered.slice(0, newline).trim() });
    };
    child.stdout.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`)));
  });
}

/** Stops a process started by startServerProcess with SIGTERM and resolves once it has exited. */
export function stopProcess(child) {
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** A bare node:http server answering 202 `{"ok":true}` to every POST: the floor the sending benches measure against. */
const BARE_SERVER = `
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(202, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
  });
  server.keepAliveTimeout = 30000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

/** Starts the bare server in a process of its own (it shares no event loop with a client); resolves with it and its URL. */
export function startBareServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (chunk) => resolve({ child, url: `http://127.0.0.1:${String(chunk).trim()}/events` }));
    child.once('error', reject);
  });
}
