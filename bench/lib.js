// Small helpers shared by the benchmarks.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/cai.js', import.meta.url));

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Wall time in ms of one spawned process. */
export function timeProcess(args, options = {}) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'], ...options });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`benchmark command failed (${result.status}): ${args.join(' ')}\n${result.stderr}`);
  return elapsed;
}

export function formatRatio(label, value, floor, unit, target) {
  const ratio = value / floor;
  const verdict = target ? ` (target ${target})` : '';
  return `${label}: ${value.toFixed(1)} ${unit} vs floor ${floor.toFixed(1)} ${unit} -> ratio ${ratio.toFixed(2)}${verdict}`;
}
