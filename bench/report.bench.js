// Throughput of `cai report` on a large generated log, against a floor measured in the same run: bare node
// reading the same file line by line with readline and JSON.parse on each line (what any log reader must do).
import { mkdtempSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, loadAverage, median, printRatio, timeProcess } from './lib.js';

const LEADS = Number(process.env.BENCH_REPORT_LEADS ?? 40_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'cai-bench-report-'));
const log = join(dir, 'log.ndjson');

// Each lead: one job, four messages, one appointment or closing event: 6 records, about 450 bytes each.
await new Promise((resolve, reject) => {
  const out = createWriteStream(log);
  out.on('error', reject);
  const start = Date.parse('2026-11-01T08:00:00Z');
  const iso = (ms) => new Date(ms).toISOString();
  const headers = {
    'x-cai-provider': 'acme',
    'x-cai-timestamp': '1795352400',
    'x-cai-signature': `sha256=${'0'.repeat(64)}`,
  };
  for (let i = 0; i < LEADS; i += 1) {
    const lead = `lead_${i}`;
    const t = start + i * 1000;
    const branch = `BR-${String(i % 25).padStart(3, '0')}`;
    const rec = (o) =>
      JSON.stringify({ v: 1, space: 'live', status: 202, verdict: 'accepted', provider_code: 'acme', headers, ...o }) +
      '\n';
    let chunk = rec({
      received_at: iso(t),
      interface: 'A',
      kind: 'job',
      event_id: `job_${i}`,
      lead_id: lead,
      branch_code: branch,
      document: { lead_id: lead, branch_code: branch },
    });
    for (let m = 0; m < 4; m += 1) {
      const at = t + 30_000 + m * 20_000 + (i % 7) * 40_000;
      const document = {
        event: 'conversation.message',
        event_id: `m_${i}_${m}`,
        lead_id: lead,
        direction: m % 2 ? 'inbound' : 'outbound',
        occurred_at: iso(at),
        text: 'Olá, tudo bem? Podemos marcar a consulta?',
      };
      chunk += rec({
        received_at: iso(at + 1500),
        interface: 'B',
        kind: 'event',
        event: document.event,
        event_id: document.event_id,
        lead_id: lead,
        document,
      });
    }
    const last =
      i % 3
        ? { event: 'appointment.booked', branch_code: branch }
        : { event: 'job.closed', outcome: 'no_answer', attempts: 3 };
    const document = { ...last, event_id: `e_${i}`, lead_id: lead, occurred_at: iso(t + 200_000) };
    chunk += rec({
      received_at: iso(t + 201_000),
      interface: 'B',
      kind: 'event',
      event: last.event,
      event_id: document.event_id,
      lead_id: lead,
      document,
    });
    out.write(chunk);
  }
  out.end(resolve);
});

const floorScript = `const rl = require('node:readline').createInterface({ input: require('node:fs').createReadStream(${JSON.stringify(log)}) }); let n = 0; rl.on('line', (l) => { JSON.parse(l); n++; }); rl.on('close', () => {});`;
const floor = [];
const report = [];
// Warm the file-system cache, then alternate the floor and cai so that drift on a shared machine affects both alike.
timeProcess(['-e', floorScript]);
console.log(`load average before: ${loadAverage()}`);
for (let i = 0; i < RUNS; i += 1) {
  floor.push(timeProcess(['-e', floorScript]));
  report.push(timeProcess([BIN, 'report', '--log', log, '--format', 'json']));
}
console.log(`load average after: ${loadAverage()}`);
const records = LEADS * 6;
console.log(
  `report on ${records} records (${LEADS} leads): ${RUNS} runs of each, alternating; medians of wall time; spread: each run against the floor run just before it`,
);
printRatio(`cai report on ${records} records`, {
  value: median(report),
  floor: median(floor),
  unit: 'ms',
  floorName: 'readline + JSON.parse',
  ratios: report.map((time, index) => time / floor[index]),
  target: '≤ 1.3',
});
console.log(`  ${Math.round(records / (median(report) / 1000))} records/s`);
