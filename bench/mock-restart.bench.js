// Restart of `cai mock platform` on a large log (issue 14): the time until it is ready and its peak memory
// with 1 000 000 records in the log, against a bare readline over the same file in the same run; the memory of
// the mock per event reloaded, against a bare Map of the same event_ids; and the dedupe memory per event as the
// mock fills it while running (each event_id from JSON.parse of its body, claimed), at 13- and 110-character ids
// (issue 24), against a Map of the same strings. Memory is the JS heap and the buffers outside it (the dedupe
// table keeps its ids in Buffers), after GC.
// Sizes: BENCH_RESTART_RECORDS (default 1 000 000), BENCH_RUNS (default 3), BENCH_DEDUPE_EVENTS (default 300 000).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRatio, median } from './lib.js';

const RECORDS = Number(process.env.BENCH_RESTART_RECORDS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const MiB = 1024 * 1024;
const ID_WIDTH = 28;
const DEDUPE_EVENTS = Number(process.env.BENCH_DEDUPE_EVENTS ?? 300_000);
const eventId = (index) => `evt_${index.toString(16).padStart(ID_WIDTH - 4, '0')}`;

/** The log as the platform mock writes it (its own recordLine), one line per accepted conversation.message. */
async function writeLog(path) {
  const { recordLine } = await import(join(DIST, 'mock/log.js'));
  const placeholder = '@'.repeat(ID_WIDTH);
  const headers = {
    'x-cai-provider': 'bench',
    'x-cai-timestamp': '1795355720',
    'x-cai-signature': `sha256=${'0'.repeat(64)}`,
    'content-type': 'application/json',
  };
  const body = `{"event":"conversation.message","event_id":"${placeholder}","lead_id":"lead-1","provider_job_id":"pj_bench","channel":"whatsapp","from_number_e164":"+447700900123","direction":"outbound","author":"agent","text":"Hello, this is a benchmark message of ordinary length for a chat conversation.","occurred_at":"2026-11-22T13:00:00+00:00"}`;
  const head = {
    v: 1,
    received_at: '2026-11-22T13:00:00.000Z',
    space: 'live',
    interface: 'B',
    kind: 'event',
    status: 202,
    verdict: 'accepted',
    provider_code: 'bench',
    event_id: placeholder,
    event: 'conversation.message',
    lead_id: 'lead-1',
    headers,
  };
  const parts = recordLine(head, Buffer.from(body)).split(placeholder);
  const fd = openSync(path, 'w');
  let bytes = 0;
  for (let start = 0; start < RECORDS; start += 20_000) {
    const lines = [];
    for (let index = start; index < Math.min(RECORDS, start + 20_000); index += 1)
      lines.push(parts.join(eventId(index)));
    bytes += writeSync(fd, lines.join(''));
  }
  closeSync(fd);
  return bytes;
}

/** Runs `script` in a fresh node (with --expose-gc) and returns the JSON it prints last. */
function measure(script) {
  const result = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  if (result.status !== 0) throw new Error(`benchmark step failed (${result.status}):\n${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1));
}

const peak = `Math.round(process.resourceUsage().maxRSS * 1024)`;

const floorScript = (log) => `
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
const started = performance.now();
let lines = 0;
for await (const line of createInterface({ input: createReadStream(${JSON.stringify(log)}), crlfDelay: Infinity })) lines += line.length > 0 ? 1 : 0;
console.log(JSON.stringify({ ms: performance.now() - started, peak: ${peak}, lines }));`;

const restartScript = (log) => `
const { startMockPlatform } = await import(${JSON.stringify(join(DIST, 'index.js'))});
const started = performance.now();
const mock = await startMockPlatform({ providerCode: 'bench', secrets: ['bench-secret-0123456789'], logFile: ${JSON.stringify(log)}, keepRecords: false });
const ms = performance.now() - started;
console.log(JSON.stringify({ ms, peak: ${peak}, reloaded: mock.reloaded }));
await mock.close();`;

// Heap growth, garbage collected, from a mock on an empty log to a mock on the big one (the schemas and the
// server are loaded in both); the floor is a bare Map of the same ids, decoded from bytes as the mock does.
const memoryScript = (log, empty) => `
const { startMockPlatform } = await import(${JSON.stringify(join(DIST, 'index.js'))});
const heap = () => { globalThis.gc(); globalThis.gc(); const { heapUsed, arrayBuffers } = process.memoryUsage(); return heapUsed + arrayBuffers; };
const options = { providerCode: 'bench', secrets: ['bench-secret-0123456789'], keepRecords: false };
const warm = await startMockPlatform({ ...options, logFile: ${JSON.stringify(empty)} });
await new Promise((resolve) => setTimeout(resolve, 200));
await warm.close();
const before = heap();
const mock = await startMockPlatform({ ...options, logFile: ${JSON.stringify(log)} });
const mockBytes = (heap() - before) / mock.reloaded;
await mock.close();
const baseline = heap();
const ids = new Map();
for (let index = 0; index < ${RECORDS}; index += 1) ids.set(Buffer.from('evt_' + index.toString(16).padStart(${ID_WIDTH - 4}, '0')).toString('latin1'), true);
const mapBytes = (heap() - baseline) / ids.size;
console.log(JSON.stringify({ mockBytes, mapBytes, events: mock.reloaded }));`;

// The dedupe index as a running mock fills it: ids of \`length\` ASCII characters, each from JSON.parse of a body,
// claimed as the pipeline claims them; the floor is a Map of the same strings (what the index was before issue 24).
const dedupeScript = (length) => `
const { DedupeIndex } = await import(${JSON.stringify(join(DIST, 'mock/dedupe.js'))});
const heap = () => { globalThis.gc(); globalThis.gc(); const { heapUsed, arrayBuffers } = process.memoryUsage(); return heapUsed + arrayBuffers; };
const idOf = (index) => JSON.parse(Buffer.from(JSON.stringify({ event: 'job.closed', event_id: ('evt_' + index.toString(36) + '_').padEnd(${length}, 'x') })).toString('utf8')).event_id;
let before = heap();
const index = new DedupeIndex();
for (let i = 0; i < ${DEDUPE_EVENTS}; i += 1) await index.claim(idOf(i), async () => true);
const indexBytes = (heap() - before) / index.size;
before = heap();
const map = new Map();
for (let i = 0; i < ${DEDUPE_EVENTS}; i += 1) map.set(idOf(i), true);
const mapBytes = (heap() - before) / map.size;
// Both still referenced here, so neither is collected while the other is measured.
console.log(JSON.stringify({ indexBytes, mapBytes, events: [index.size, map.size] }));`;

const dir = mkdtempSync(join(tmpdir(), 'cai-bench-restart-'));
try {
  const log = join(dir, 'events.ndjson');
  const bytes = await writeLog(log);
  const empty = join(dir, 'empty.ndjson');
  const floors = [];
  const restarts = [];
  measure(floorScript(log));
  for (let run = 0; run < RUNS; run += 1) {
    floors.push(measure(floorScript(log)));
    restarts.push(measure(restartScript(log)));
    if (restarts.at(-1).reloaded !== RECORDS)
      throw new Error(`reloaded ${restarts.at(-1).reloaded} of ${RECORDS} records`);
  }
  const memory = measure(memoryScript(log, empty));
  console.log(
    `restart on a log of ${RECORDS} records (${(bytes / MiB).toFixed(0)} MiB), medians of ${RUNS} runs; floor: bare readline over the same file`,
  );
  console.log(
    formatRatio('time until ready', median(restarts.map((r) => r.ms)), median(floors.map((r) => r.ms)), 'ms'),
  );
  console.log(
    formatRatio('peak RSS', median(restarts.map((r) => r.peak)) / MiB, median(floors.map((r) => r.peak)) / MiB, 'MiB'),
  );
  console.log(
    `memory of the mock per event reloaded, heap and buffers after GC over ${memory.events} events; floor: a bare Map of the same event_ids`,
  );
  console.log(formatRatio('mock memory per event reloaded', memory.mockBytes, memory.mapBytes, 'bytes'));
  console.log(
    `dedupe memory per event as a running mock fills it, ${DEDUPE_EVENTS} events; floor: a Map of the same event_ids`,
  );
  for (const length of [13, 110]) {
    const dedupe = measure(dedupeScript(length));
    console.log(
      formatRatio(`dedupe index per event, ${length}-character ids`, dedupe.indexBytes, dedupe.mapBytes, 'bytes'),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
