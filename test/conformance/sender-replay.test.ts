/**
 * The sender's stateful phase finds, shrinks and replays a breach that only a drawn conversation shows, through the
 * built binary: the fixture's `final-only-first` (test/fixtures/broken-sender.mjs, written without cai's code) takes a
 * 400, 401 or 413 as final only as the first answer, so no scenario and none of the fixed conversations (which end in
 * acceptances) catch it; a drawn conversation that asks for a retry and then refuses does. Its seed and path
 * (`replay`) play that conversation again, with `--seed S:PATH` and with the reproduction script, and fail it again;
 * the same path against a correct sender passes.
 *
 * The phase is sized by its count (`--generate 12`, a budget far past it): which conversations are drawn depends on
 * the seed alone, never on how busy the machine is. Shrinking has 20 s of its own; on a busy machine it may stop
 * sooner, so the replay is asked to continue the path it was given, not to equal the shortest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { SuiteReport } from '../../src/conformance/types.js';
import { ROOT, spawnCli, spawnProcess } from '../helpers/cli.js';

const SECRET = 'sender-replay-secret-0123456789';
const SEED = 1;
const dir = mkdtempSync(join(tmpdir(), 'cai-sender-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (fault: string) =>
  `'${process.execPath}' '${join(ROOT, 'test', 'fixtures', 'broken-sender.mjs')}' --interface B --identity acme --fault ${fault}`;

async function run(fault: string, seed: string, ...more: string[]): Promise<SuiteReport> {
  const result = await spawnCli(
    [
      ...'--json conformance run --interface B --role sender --provider acme --wait 8s --observe 1s'.split(' '),
      ...['--trigger', fixture(fault), '--seed', seed, ...more],
    ],
    { env: { CAI_SECRET: SECRET } },
  );
  if (result.code !== 0 && result.code !== 1) throw new Error(`cai exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as SuiteReport;
}

const checkOf = (report: SuiteReport, id: string) => {
  const check = report.checks.find((entry) => entry.id === id);
  if (check === undefined) throw new Error(`no ${id} in the report`);
  return check;
};
const failed = (report: SuiteReport) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);

it('a breach only a drawn conversation shows is shrunk, and its seed and path replay it', async () => {
  const first = await run('final-only-first', String(SEED), '--generate', '12', '--budget', '10m', '--repro-dir', dir);
  // Only the relation of final answers: every scenario passes (a refusal as the first answer ends the delivery).
  expect(failed(first)).toEqual(['BS-STATE-001']);
  const found = checkOf(first, 'BS-STATE-001');
  // A retry asked for (5xx, 429 or a cut), then a refusal, retried all the same.
  expect(found.actual).toMatch(/then (400|401|413): retried/);
  expect(found.replay).toMatch(new RegExp(`^${SEED}:\\d+(:\\d+)*$`));
  const replay = found.replay as string;
  expect(found.notes.join('\n')).toContain(`replay it with the seed ${replay}`);

  // The path alone, the relation's check alone: the same conversation, the same breach, nothing drawn.
  const again = await run('final-only-first', replay, '--only', 'BS-STATE-001');
  const replayed = checkOf(again, 'BS-STATE-001');
  expect(replayed.verdict).toBe('failed');
  expect(String(replayed.replay).startsWith(replay)).toBe(true);
  // The same answers (the times between attempts are the sender's own); shrunk further only where the first run's
  // shrinking ran out of time.
  const answers = (actual: string) => actual.split(': retried')[0];
  if (replayed.replay === replay) expect(answers(replayed.actual)).toBe(answers(found.actual));
  else expect(replayed.actual).toMatch(/then (400|401|413): retried/);
  expect(replayed.notes.join('\n')).toContain(`replayed one conversation (${replay})`);

  // The reproduction script runs that replay, and says so by its exit status.
  const script = found.repro?.script;
  expect(found.repro?.command).toContain(`--seed ${replay}`);
  const scripted = await spawnProcess('sh', [script as string], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CAI_SECRET: SECRET },
  });
  expect(scripted.code, scripted.stdout + scripted.stderr).toBe(1);

  // The same conversation against a correct sender: the relation holds, so the replay judges rather than repeats.
  const correct = await run('none', replay, '--only', 'BS-STATE-001');
  expect(checkOf(correct, 'BS-STATE-001').verdict).toBe('passed');
  expect(checkOf(correct, 'BS-STATE-001').notes.join('\n')).toContain(`replayed one conversation (${replay})`);
}, 300_000);
