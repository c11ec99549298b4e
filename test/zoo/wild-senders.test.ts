/**
 * The wild senders (test/zoo/wild-senders: a Node and a Python sender written from the spec alone, README there):
 * each of its 37 broken runs is caught (a check fails or warns) and each of its 20 correct runs passes with no
 * failure and no warning, by a default sender run (`--role sender --trigger …`: every check, the stateful phase on).
 * `--wait 20s --observe 1s`, as the zoo's other sender runs: a sender that gives up is seen 20 s after its first
 * attempt, not 60. Each broken one's fault is shown apart from cai by `witness.mjs`.
 *
 * Ten seeds, spread over the suite: the n-th sender runs with the (n mod 10)-th, so that a run of the conformance step
 * stays within minutes (a default sender run takes 15 to 60 s, most of it waiting on the sender's backoff).
 * WILD_SEEDS_EACH=10 runs every sender with every seed (about ten times as long). The figures (caught per relation,
 * the checks that caught each, run times) are logged at the end and written to $WILD_RESULTS (default:
 * cai-wild-senders.json in the temp dir); WILD_JOBS sets the runs at once (6; ten took the file 195 s
 * instead of 307 s, but beside npm test in CI its timing checks then met late timers more often).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { CATALOGUE, type WildSender } from './wild-senders/catalogue.mjs';

const SEEDS = Array.from({ length: 10 }, (_, index) => 1_000 + 7_919 * index);
const EACH = Math.max(1, Math.min(SEEDS.length, Number(process.env.WILD_SEEDS_EACH ?? 1)));
vi.setConfig({ maxConcurrency: Number(process.env.WILD_JOBS ?? 6), testTimeout: 600_000 });

const SECRET = 'wild-senders-secret-0123456789';
// The interpreter itself, not a version manager's shim in front of it.
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const reproRoot = mkdtempSync(join(tmpdir(), 'cai-wild-senders-'));

interface Check {
  id: string;
  verdict: string;
  actual: string;
}
interface Report {
  ok: boolean;
  seed?: number;
  checks: Check[];
}

const identityOf = (sender: WildSender) => (sender.interface === 'B' ? 'acme' : 'platform-eu');
const quote = (part: string) => `'${part.replace(/'/g, `'\\''`)}'`;

/** The trigger: the catalogue's command with its interpreter, and the identity appended. */
function triggerOf(sender: WildSender): string {
  const [program, ...args] = sender.command as [string, ...string[]];
  const interpreter = program === 'node' ? process.execPath : program === 'python3' ? PYTHON : program;
  return [interpreter, ...args, '--identity', identityOf(sender)].map(quote).join(' ');
}

interface Run {
  sender: WildSender;
  seed: number;
  ms: number;
  flagged: string[];
  code: number;
}
const runs: Run[] = [];

async function judge(sender: WildSender, seed: number): Promise<{ report: Report; code: number }> {
  const identity = sender.interface === 'B' ? ['--provider', identityOf(sender)] : ['--source', identityOf(sender)];
  const argv = [
    '--json',
    'conformance',
    'run',
    '--interface',
    sender.interface,
    '--role',
    'sender',
    ...identity,
    '--trigger',
    triggerOf(sender),
    '--wait',
    '20s',
    '--observe',
    '1s',
    '--seed',
    String(seed),
    '--repro-dir',
    join(reproRoot, `${sender.id}-${seed}`),
  ];
  const started = performance.now();
  const result = await spawnCli(argv, { env: { CAI_SECRET: SECRET } });
  if ((result.code !== 0 && result.code !== 1) || !result.stdout.startsWith('{'))
    throw new Error(`cai exited ${result.code}:\n${result.stdout.slice(0, 2000)}\n${result.stderr}`);
  const report = JSON.parse(result.stdout) as Report;
  runs.push({
    sender,
    seed,
    ms: performance.now() - started,
    flagged: report.checks
      .filter((check) => check.verdict === 'failed' || check.verdict === 'warning')
      .map((check) => check.id),
    code: result.code,
  });
  return { report, code: result.code };
}

const flaggedOf = (report: Report) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning');
const explain = (checks: readonly Check[]) =>
  checks.map((check) => `${check.id} ${check.verdict}: ${check.actual}`).join('\n');

const seedsOf = (index: number) => Array.from({ length: EACH }, (_, k) => SEEDS[(index + k) % SEEDS.length] as number);
const cases = CATALOGUE.flatMap((sender, index) =>
  seedsOf(index).map((seed) => ({ id: sender.id, kind: sender.kind, relation: sender.relation, sender, seed })),
);

it.concurrent.each(cases)('$kind $id ($relation), seed $seed', async ({ sender, seed }) => {
  let { report, code } = await judge(sender, seed);
  // A loaded machine may leave the timing check that shows a fault undecided (cai's own lag: not judged, neither
  // passed nor failed), as sender-self-test.test.ts allows for: seen once, in a CI run with twice the usual load, a
  // sender that retries a cut connection at once went uncaught. A broken sender not caught is played once more, with
  // the same seed; caught in neither run, it fails.
  if (sender.kind === 'broken' && flaggedOf(report).length === 0) ({ report, code } = await judge(sender, seed));
  expect(report.seed).toBe(seed);
  const flagged = flaggedOf(report);
  if (sender.kind === 'broken') {
    expect(flagged.length, `not caught: ${sender.description}`).toBeGreaterThan(0);
  } else {
    expect(flagged, explain(flagged)).toEqual([]);
    expect(code).toBe(0);
  }
});

afterAll(() => {
  rmSync(reproRoot, { recursive: true, force: true });
  const seconds = runs.map((run) => run.ms / 1000).sort((a, b) => a - b);
  const at = (q: number) => (seconds[Math.min(seconds.length - 1, Math.floor(q * seconds.length))] ?? 0).toFixed(1);
  const senders = (kind: WildSender['kind']) => CATALOGUE.filter((sender) => sender.kind === kind);
  const caughtIn = (sender: WildSender) => runs.filter((run) => run.sender === sender && run.flagged.length > 0).length;
  const passedIn = (sender: WildSender) =>
    runs.filter((run) => run.sender === sender && run.flagged.length === 0 && run.code === 0).length;
  const byRelation = [...new Set(CATALOGUE.map((sender) => sender.relation))].sort().map((relation) => {
    const broken = senders('broken').filter((sender) => sender.relation === relation);
    const caught = broken.filter((sender) => caughtIn(sender) === EACH).length;
    return `${relation} ${caught}/${broken.length}`;
  });
  const figures = {
    seeds: SEEDS,
    seedsEach: EACH,
    broken: {
      caughtInEverySeed: senders('broken').filter((sender) => caughtIn(sender) === EACH).length,
      total: senders('broken').length,
      byRelation,
    },
    correct: {
      passedInEverySeed: senders('correct').filter((sender) => passedIn(sender) === EACH).length,
      total: senders('correct').length,
    },
    seconds: {
      runs: runs.length,
      min: at(0),
      median: at(0.5),
      p90: at(0.9),
      max: at(1),
      sum: seconds.reduce((sum, value) => sum + value, 0).toFixed(0),
    },
    caughtBy: Object.fromEntries(
      senders('broken').map((sender) => [
        sender.id,
        [...new Set(runs.filter((run) => run.sender === sender).flatMap((run) => run.flagged))].sort(),
      ]),
    ),
    failedCorrect: Object.fromEntries(
      senders('correct').flatMap((sender) => {
        const flagged = runs.filter((run) => run.sender === sender && run.flagged.length > 0);
        return flagged.length > 0
          ? [[sender.id, flagged.map((run) => `seed ${run.seed}: ${run.flagged.join(' ')}`)]]
          : [];
      }),
    ),
  };
  const file = process.env.WILD_RESULTS ?? join(tmpdir(), 'cai-wild-senders.json');
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(
    `wild senders, ${EACH} seed${EACH === 1 ? '' : 's'} each of ${SEEDS.length}: broken caught in every seed ${figures.broken.caughtInEverySeed}/${figures.broken.total} (${byRelation.join(', ')}); ` +
      `correct passing in every seed ${figures.correct.passedInEverySeed}/${figures.correct.total}; a run ${figures.seconds.min}–${figures.seconds.max} s (median ${figures.seconds.median}); all in ${file}`,
  );
});
