// A real full disk for a mock: run inside `unshare -rm` (a user and mount namespace of its own, no root needed)
// with a small tmpfs mounted on DIR, this starts `cai ARGS…` there and obeys lines on stdin, answering each on
// stdout (the mock's own stdout is passed through, its first line being its URL):
//   fill          → writes DIR/filler until the tmpfs is full (ENOSPC); answers `filled BYTES`
//   free          → removes it; answers `freed`
//   stop OUT      → SIGTERM to the mock, waits, copies DIR/events.ndjson to OUT (outside the tmpfs); answers `stopped CODE`
// Usage: node full-disk.mjs DIR BIN ARGS…
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, openSync, rmSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const [dir, bin, ...args] = process.argv.slice(2);
const mock = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
mock.stdout.pipe(process.stdout, { end: false });
const exited = new Promise((resolve) => mock.on('close', (code) => resolve(code)));
const answer = (text) => process.stdout.write(`${text}\n`);

function fill() {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(4096);
  let bytes = 0;
  try {
    for (;;) bytes += writeSync(fd, block);
  } catch (error) {
    if (error.code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return bytes;
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, target] = line.split(' ');
  if (command === 'fill') answer(`filled ${fill()}`);
  else if (command === 'free') {
    rmSync(join(dir, 'filler'), { force: true });
    answer('freed');
  } else if (command === 'stop') {
    mock.kill('SIGTERM');
    const code = await exited;
    copyFileSync(join(dir, 'events.ndjson'), target);
    answer(`stopped ${code}`);
    break;
  }
}
