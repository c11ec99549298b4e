// The figures of the wild zoo's receivers (docs/conformance.md, "Tested against implementations that are not ours"):
// each program of test/zoo/wild run through the built binary in a default run, once per seed, a few at once.
//
//   node test/zoo/measure.mjs [--seeds 10] [--first-seed 1000] [--only TEXT] [--kind broken|correct] [--parallel 3]
//
// Prints a line per program (how many seeds caught a broken one, or left a correct one clean) and the totals; a line
// per run on stderr as it ends. A run that ends without a report (a usage error, a crash) is counted apart, never
// as a catch.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { A_PROVIDER, A_SOURCE, B_PROVIDER, catalogue } from './wild/catalogue.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '10' },
    'first-seed': { type: 'string', default: '1000' },
    only: { type: 'string', default: '' },
    kind: { type: 'string' },
    parallel: { type: 'string', default: '3' },
  },
});
const seeds = Number(values.seeds);
const entries = catalogue.filter(
  (entry) => entry.id.includes(values.only) && (values.kind === undefined || entry.kind === values.kind),
);
/** Warnings the spec supports for a correct program's choice (§6.5 against §4.2's 202). */
const TOLERATED = new Set(['B-ACCEPT-009']);

function start(entry) {
  return new Promise((resolve, reject) => {
    const [command, ...args] = entry.command;
    const child = spawn(command === 'node' ? process.execPath : command, args, {
      cwd: ROOT,
      env: { ...process.env, ...entry.env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ url: line.trim(), child }));
    child.once('exit', (code) => reject(new Error(`${entry.id} exited ${code}`)));
  });
}

function cai(argv, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'cai.js'), '--json', 'conformance', 'run', ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err = (err + chunk).slice(-2000)));
    child.once('exit', (code) => resolve({ out, err, code }));
  });
}

async function judge(entry, seed) {
  const program = await start(entry);
  try {
    const argv =
      entry.interface === 'B'
        ? [
            '--interface',
            'B',
            '--to',
            program.url,
            '--provider',
            B_PROVIDER,
            '--include',
            'origin',
            '--source-address',
            '127.0.0.2',
          ]
        : [
            '--interface',
            'A',
            '--to',
            program.url,
            '--source',
            A_SOURCE,
            '--provider',
            A_PROVIDER,
            '--branch-code',
            'madrid-centro',
            '--callback-secret-env',
            'CAI_CALLBACK_SECRET',
            '--callback-wait',
            '15s',
          ];
    const run = await cai([...argv, '--seed', String(seed)], entry.env);
    let report;
    try {
      report = JSON.parse(run.out);
    } catch {}
    // A run that ended without a report (exit 2 or 3, a crash) is neither a catch nor a clean run: it is counted apart.
    if (!Array.isArray(report?.checks)) {
      const lines = run.err.trim().split('\n');
      throw new Error(`exit ${run.code}: ${report?.error?.message ?? lines[lines.length - 1] ?? ''}`);
    }
    const flagged = report.checks
      .filter((check) => check.verdict === 'failed' || check.verdict === 'warning')
      .map((check) => check.id);
    return report.diagnosis ? [...flagged, 'diagnosis'] : flagged;
  } finally {
    program.child.kill('SIGTERM');
  }
}

const jobs = entries.flatMap((entry) =>
  Array.from({ length: seeds }, (_, index) => ({ entry, seed: Number(values['first-seed']) + index })),
);
const tally = new Map(entries.map((entry) => [entry.id, { entry, good: 0, runs: 0, errors: 0, seen: new Set() }]));
let next = 0;
await Promise.all(
  Array.from({ length: Number(values.parallel) }, async () => {
    while (next < jobs.length) {
      const { entry, seed } = jobs[next++];
      const row = tally.get(entry.id);
      const flagged = await judge(entry, seed).catch((error) => error);
      if (flagged instanceof Error) {
        row.errors += 1;
        process.stderr.write(`ERROR  ${entry.id} seed ${seed}  ${flagged.message}\n`);
        continue;
      }
      row.runs += 1;
      const relevant = entry.kind === 'broken' ? flagged : flagged.filter((id) => !TOLERATED.has(id));
      const good = entry.kind === 'broken' ? relevant.length > 0 : relevant.length === 0;
      if (good) row.good += 1;
      for (const id of relevant) row.seen.add(id);
      // A line per run as it ends, on stderr: a long measurement shows its figures so far.
      process.stderr.write(
        `${good ? (entry.kind === 'broken' ? 'caught' : 'clean ') : entry.kind === 'broken' ? 'MISSED' : 'FLAGGED'} ${entry.id} seed ${seed}  ${relevant.join(' ')}\n`,
      );
    }
  }),
);
for (const { entry, good, runs, errors, seen } of tally.values()) {
  console.log(
    `${entry.kind === 'broken' ? 'caught' : 'clean '} ${good}/${runs}  ${entry.id} [${entry.relation}]  ${[...seen].join(' ')}${errors ? `  (${errors} run(s) ended without a report)` : ''}`,
  );
}
for (const kind of ['broken', 'correct']) {
  const rows = [...tally.values()].filter((row) => row.entry.kind === kind);
  const all = rows.filter((row) => row.good === row.runs).length;
  console.log(
    `${kind}: ${all}/${rows.length} ${kind === 'broken' ? 'caught on every seed' : 'clean on every seed'}; ${rows.reduce((sum, row) => sum + row.good, 0)}/${rows.reduce((sum, row) => sum + row.runs, 0)} runs; ${rows.reduce((sum, row) => sum + row.errors, 0)} run(s) without a report`,
  );
}
