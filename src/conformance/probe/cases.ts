/**
 * A check of several cases: requests that each change one thing of a valid one (probe/mutations.ts), sent one after
 * the other, each judged by the status of its answer. The check passes when every case got the answer its rule
 * demands, and fails on the first that did not, naming the case in `actual`, so a reader sees which mutation the
 * receiver let through. A case that cannot be judged on this run (say, the clocks do not agree to the second) is
 * not sent and is named in a note; a check none of whose cases could be judged is not judged.
 */
import { defineCheck, failed, notJudged, passed, type CheckMeta, type ReceiverCheck } from '../check.js';
import { describeAnswer, type Exchange } from '../evidence.js';
import { statusMatches, type StatusExpectation } from './expectations.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';

export interface ProbeCase {
  /** What the case changes, as a failure names it: `the hex digest in upper case`. */
  name: string;
  send(scope: ProbeScope): RequestRecipe;
  expect: StatusExpectation;
  /** Why the case cannot be judged on this run, when it cannot: it is then not sent. */
  unjudgeable?(scope: ProbeScope): string | undefined;
  /**
   * Why a wrong answer may not be the target's doing (say, it came too late to be sure which second the target's
   * clock read): the case is then sent once more, and not judged if the second answer is as doubtful.
   */
  doubtful?(answer: Exchange): string | undefined;
  /** Why a wrong answer is not this check's to judge (another rule allows it, or another check judges it). */
  excused?(answer: Exchange): string | undefined;
}

/** One case as gathered: its answer, or why it was not sent. */
export interface CaseAnswer {
  name: string;
  answer?: Exchange;
  notSent?: string;
}

export interface CasesEvidence {
  cases: CaseAnswer[];
}

export type CasesSpec = Omit<CheckMeta, 'role' | 'scenarios'> & { cases: readonly ProbeCase[] };

export function defineCases(spec: CasesSpec): ReceiverCheck<CasesEvidence> {
  const { cases, ...meta } = spec;
  return defineCheck<CasesEvidence>({
    ...meta,
    gather: async (scope) => {
      const gathered: CaseAnswer[] = [];
      for (const probe of cases) {
        if (scope.session.signal.aborted) break;
        const reason = probe.unjudgeable?.(scope);
        gathered.push(reason !== undefined ? { name: probe.name, notSent: reason } : await sendCase(scope, probe));
      }
      return { cases: gathered };
    },
    judge: ({ cases: gathered }) => judgeCases(cases, gathered),
  });
}

/** One case sent, and once more when a wrong answer is doubtful; a second doubtful wrong answer is not judged. */
async function sendCase(scope: ProbeScope, probe: ProbeCase): Promise<CaseAnswer> {
  let answer = await scope.send(probe.send(scope));
  if (statusMatches(answer, probe.expect)) return { name: probe.name, answer };
  const excuse = probe.excused?.(answer);
  if (excuse !== undefined) return { name: probe.name, notSent: excuse };
  if (probe.doubtful?.(answer) === undefined || scope.session.signal.aborted) return { name: probe.name, answer };
  answer = await scope.send(probe.send(scope));
  const doubt = statusMatches(answer, probe.expect) ? undefined : probe.doubtful(answer);
  return doubt === undefined ? { name: probe.name, answer } : { name: probe.name, notSent: `${doubt}, twice` };
}

/** The verdict on the cases gathered, in order: the first wrong answer fails the check. */
export function judgeCases(cases: readonly ProbeCase[], gathered: readonly CaseAnswer[] | undefined) {
  if (!gathered || gathered.length === 0) return notJudged('no request was sent');
  for (const [index, entry] of gathered.entries()) {
    const probe = cases[index] as ProbeCase;
    if (entry.answer === undefined || statusMatches(entry.answer, probe.expect)) continue;
    return failed(`${probe.expect.describe} for ${entry.name}`, `${entry.name}: ${describeAnswer(entry.answer)}`, { exchanges: [entry.answer] }, casesNote(cases, gathered));
  }
  const answered = gathered.filter((entry): entry is CaseAnswer & { answer: Exchange } => entry.answer !== undefined);
  if (gathered.length < cases.length) return notJudged(`${gathered.length} of ${cases.length} cases sent (interrupted)`);
  if (answered.length === 0) return notJudged(gathered.map((entry) => `${entry.name}: ${entry.notSent}`).join('; '));
  const notes = gathered.filter((entry) => entry.notSent !== undefined).map((entry) => `not judged: ${entry.name} (${entry.notSent})`);
  return passed(expectedOf(cases), `${answered.length} case${answered.length === 1 ? '' : 's'}: ${tally(answered.map((entry) => entry.answer))}`, notes);
}

/** What every case expects, once per distinct expectation: `401 (rejected: authentication) for each of 6 cases`. */
function expectedOf(cases: readonly ProbeCase[]): string {
  const kinds = [...new Set(cases.map((probe) => probe.expect.describe))];
  if (kinds.length === 1) return cases.length === 1 ? (kinds[0] as string) : `${kinds[0]} for each of ${cases.length} cases`;
  return kinds.map((kind) => `${kind} for ${cases.filter((probe) => probe.expect.describe === kind).map((probe) => probe.name).join(', ')}`).join('; ');
}

/** The answers' statuses counted: `401 ×5, 400 ×1`. */
function tally(answers: readonly Exchange[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const key = answer.status === undefined ? 'no answer' : String(answer.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([status, count]) => `${status} ×${count}`).join(', ');
}

function casesNote(cases: readonly ProbeCase[], gathered: readonly CaseAnswer[]): string[] {
  if (cases.length < 2) return [];
  const wrong = gathered.filter((entry, index) => entry.answer !== undefined && !statusMatches(entry.answer, (cases[index] as ProbeCase).expect)).map((entry) => entry.name);
  const others = wrong.length > 1 ? `; also answered wrongly: ${wrong.slice(1).join('; ')}` : '';
  return [`${wrong.length} of the ${cases.length} cases (each changing one thing) answered wrongly; the first is shown${others}`];
}
