#!/usr/bin/env node
// Runs every bench/*.bench.js in turn (each is a standalone script printing its own ratios).
// Ratios compare against a floor measured in the same run, so figures are comparable across machines.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const directory = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.bench.js'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const result = spawnSync(process.execPath, [`${directory}${file}`], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exitCode = failed === 0 ? 0 : 1;
