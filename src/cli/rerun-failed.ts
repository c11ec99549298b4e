/**
 * `cai conformance run --rerun-failed REPORT.json`: the selection of exactly the checks that failed, warned or were
 * not judged in a report `--json` wrote, of the same interface and role, so a fix is checked on what it fixes.
 */
import { z } from 'zod';
import { usageError } from '../errors.js';
import { readFileInput } from '../input.js';
import type { Io } from '../io.js';
import { describeJsonFailure } from '../spec/json-syntax.js';
import type { InterfaceId } from '../spec/constants.js';

const ReportShape = z.object({
  interface: z.enum(['A', 'B']),
  role: z.enum(['receiver', 'sender']).optional(),
  seed: z.number().int().nonnegative().optional(),
  checks: z.array(z.object({ id: z.string(), verdict: z.string(), replay: z.string().optional() })),
});

const AGAIN = new Set(['failed', 'warning', 'not-judged']);

export interface Rerun {
  interface: InterfaceId;
  role: 'receiver' | 'sender';
  /** The ids to run; empty when every check of the report passed (or was skipped or waived). */
  ids: string[];
  /** The stateful phase's seed, or `SEED:PATH` when one generated conversation failed: the run draws, or replays, it again. */
  seed?: string;
}

export async function readRerun(path: string, io: Io): Promise<Rerun> {
  const text = (await readFileInput(path, io, 'report')).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError('bad_report', `${path} is not JSON (${describeJsonFailure(text)})`, 'pass the file `cai conformance run --json > FILE` wrote');
  }
  const parsed = ReportShape.safeParse(value);
  if (!parsed.success) throw usageError('bad_report', `${path} is not a conformance report: no interface and checks with their verdicts`, 'pass the file `cai conformance run --json > FILE` wrote');
  const report = parsed.data;
  const again = report.checks.filter((check) => AGAIN.has(check.verdict));
  const replays = [...new Set(again.flatMap((check) => (check.replay !== undefined ? [check.replay] : [])))];
  const seed = replays.length === 1 ? replays[0] : report.seed !== undefined ? String(report.seed) : undefined;
  return { interface: report.interface, role: report.role ?? 'receiver', ids: again.map((check) => check.id), ...(seed !== undefined ? { seed } : {}) };
}
