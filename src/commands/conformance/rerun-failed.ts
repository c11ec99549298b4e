/**
 * `cai conformance run --rerun-failed REPORT.json`: the selection of exactly the checks that failed, warned or were
 * not judged in a report `--json` wrote, of the same interface and role, so a fix is checked on what it fixes.
 */
import { z } from 'zod';
import { usageError } from '../../errors.js';
import { readFileInput } from '../../input.js';
import type { Io } from '../../io.js';
import { jsonOrUsageError } from '../../spec/json-text.js';
import type { InterfaceId } from '../../spec/constants.js';
import { CHECK_VERDICTS } from '../../conformance/types.js';
import type { ReportFlags } from './report.js';
import type { CommandContext } from '../common/runner.js';

const ReportShape = z.object({
  interface: z.enum(['A', 'B']),
  role: z.enum(['receiver', 'sender']).optional(),
  seed: z.number().int().nonnegative().optional(),
  checks: z.array(z.object({ id: z.string(), verdict: z.string(), replay: z.string().optional() })),
});

const KNOWN_VERDICTS: ReadonlySet<string> = new Set(CHECK_VERDICTS);

const AGAIN = new Set(['failed', 'warning', 'not-judged']);

export interface Rerun {
  interface: InterfaceId;
  role: 'receiver' | 'sender';
  /** The ids to run; empty when every check of the report passed (or was skipped or waived). */
  ids: string[];
  /**
   * The stateful phase as the report ran it: the one conversation to replay (`SEED:PATH`) when one failed check of
   * the phase names it, else the run's seed (the same conversations drawn again).
   */
  seed?: string;
}

const REPORT_HINT = 'pass the file `cai conformance run --json > FILE` wrote';

export async function readRerun(path: string, io: Io): Promise<Rerun> {
  const text = (await readFileInput(path, io, 'report')).toString('utf8');
  const value = jsonOrUsageError(text, 'bad_report', (failure) => `${path} is not JSON (${failure})`, REPORT_HINT);
  const parsed = ReportShape.safeParse(value);
  // A verdict no report of cai writes (hand-edited, another tool's) is neither passed nor failed: taken for a pass,
  // the checks it marks would never run again and the rerun would go green.
  const unknown = parsed.data?.checks.find((check) => !KNOWN_VERDICTS.has(check.verdict));
  if (!parsed.success || unknown !== undefined)
    throw usageError(
      'bad_report',
      `${path} is not a conformance report: ${unknown === undefined ? 'no interface and checks with their verdicts' : `check ${JSON.stringify(unknown.id)} has the verdict ${JSON.stringify(unknown.verdict)}, which is none of ${CHECK_VERDICTS.join(', ')}`}`,
      REPORT_HINT,
    );
  const report = parsed.data;
  const again = report.checks.filter((check) => AGAIN.has(check.verdict));
  const replays = [...new Set(again.flatMap((check) => (check.replay !== undefined ? [check.replay] : [])))];
  const seed = replays.length === 1 ? replays[0] : report.seed !== undefined ? String(report.seed) : undefined;
  return {
    interface: report.interface,
    role: report.role ?? 'receiver',
    ids: again.map((check) => check.id),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/**
 * Nothing to run again: said the way the run was asked to report. Every file asked for is written from a report
 * of no check (a JUnit suite of no test, a page that says so), and stdout holds the one JSON document of that
 * report with `--json`, else the sentence. Exit 0: nothing failed.
 */
export async function reportNothingToRerun(
  path: string,
  rerun: Rerun,
  run: { target?: string; mock: boolean },
  flags: ReportFlags,
  context: CommandContext,
): Promise<number> {
  const [{ viewOf }, { reportOfNoCheck, writeEachFile }] = await Promise.all([
    import('../../conformance/reporters/index.js'),
    import('./report.js'),
  ]);
  const stopped = { ...run, interface: rerun.interface, role: rerun.role, startedAt: new Date(context.io.now()) };
  const report = await reportOfNoCheck(stopped, { ok: true, durationMs: 0 });
  const view = viewOf(report, flags.failOn, []);
  const [failure] = await writeEachFile(view, flags, context);
  if (failure !== undefined) throw failure;
  if (context.output.json) context.output.printJson(view);
  else context.output.result(`nothing to run again: every check of ${path} passed, was skipped or is waived`);
  return 0;
}
