/**
 * The checks that probe: one request (defineProbe), or several cases (defineCases): requests that each change one thing of a valid one (probe/mutations.ts), sent one after
 * the other, each judged by the answer the model of the receiver allows for it (src/spec/model), at the check's
 * level. The check passes when every case got an allowed answer, and fails on the first that did not, naming the case
 * in `actual`, so a reader sees which mutation the receiver let through. A case the model cannot decide on this run
 * (a timestamp on the window's edge, by a clock known to the second) is sent once more, and not judged if it is still
 * undecided; a case that cannot be sent on this run is named in a note. A check none of whose cases could be judged
 * is not judged.
 */
import { OPEN_POINTS, type OpenPointRule } from '../../spec/model/latitude.js';
import { defineCheck, failed, notJudged, passed, type CheckMeta } from '../check.js';
import type { Exchange } from '../evidence.js';
import type { CheckLevel } from '../types.js';
import type { Mutation } from './mutations.js';
import type { TermId } from '../../spec/model/answers.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';
import { breachesOfExchange, breachText, expectedOf, judgeAnswer, undecidedWhy } from './verdict.js';
import { plural } from '../../text.js';

/**
 * The probe: most receiver checks are one request, valid except for the one thing the check varies, judged by the
 * answer the model of the receiver allows for it (src/spec/model). `defineProbe` is the sugar for them: `send`
 * builds the request (afresh for each run), the gathering sends it, and the judgement reads the model's
 * expectation at the check's level, on the terms the check is about (its status, by default).
 *
 *   defineProbe({
 *     id: 'B-ACCEPT-007', interface: 'B', level: 'must', sections: ['§6.3'], tags: ['acceptance', 'lead'],
 *     title: 'an event for an unknown lead_id is accepted',
 *     send: (scope) => ({ body: compact(eventDoc('conversation.message', scope.eventId(), 'unknown-lead')) }),
 *   })
 */
export type ProbeSpec = Omit<CheckMeta, 'role' | 'scenarios'> & {
  /** The request, built afresh for each run (fresh event_id, signed at send time unless the recipe says otherwise). */
  send(scope: ProbeScope): RequestRecipe | Promise<RequestRecipe>;
  /** What of the answer the check is about (default: its status). */
  terms?: readonly TermId[];
};

export function defineProbe(spec: ProbeSpec) {
  const { send, terms, ...meta } = spec;
  return defineCheck<{ answer: Exchange }>({
    ...meta,
    gather: async (scope) => ({ answer: await scope.send(await send(scope)) }),
    judge: ({ answer }) => judgeAnswer(answer, { level: meta.level, ...(terms ? { terms } : {}) }),
  });
}

/** One case: a mutation (./mutations.ts), its request built for the run. */
export type ProbeCase = Pick<Mutation, 'name' | 'unjudgeable' | 'aside'> & { send(scope: ProbeScope): RequestRecipe };

/** One case as gathered: its answer, or why it was not sent or not judged. */
interface CaseAnswer {
  name: string;
  answer?: Exchange;
  notSent?: string;
}

export function defineCases(spec: Omit<CheckMeta, 'role' | 'scenarios'> & { cases: readonly ProbeCase[] }) {
  const { cases, ...meta } = spec;
  return defineCheck<{ cases: CaseAnswer[] }>({
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
    judge: ({ cases: gathered }) => judgeCases(cases, gathered, meta.level),
  });
}

/** Why the answer is a refusal one of the case's set-aside questions allows, when it is. */
function setAside(probe: ProbeCase, answer: Exchange): string | undefined {
  const point = answer.expected?.facts.open.find((open) => probe.aside?.includes(open.id));
  if (point === undefined || answer.status === undefined || answer.status < 400) return undefined;
  const rule: OpenPointRule = OPEN_POINTS[point.id];
  const refusals = rule.mayRefuseWith;
  const allowed = refusals === 'any-4xx' ? answer.status < 500 : (refusals ?? []).includes(answer.status);
  return allowed ? `${answer.status}: ${rule.text}` : undefined;
}

/**
 * One case sent, and once more when the model cannot decide on its answer, or when a case meant for one second of
 * the target's clock was answered in a later second of cai's (a busy machine, a slow network: the target may have
 * read it a second off, and the edge it probes went untested). Either twice, it is not judged.
 */
async function sendCase(scope: ProbeScope, probe: ProbeCase): Promise<CaseAnswer> {
  let answer = await scope.send(probe.send(scope));
  const aside = setAside(probe, answer);
  if (aside !== undefined) return { name: probe.name, notSent: aside };
  if (whyNotDecided(answer) === undefined || scope.session.signal.aborted) return { name: probe.name, answer };
  answer = await scope.send(probe.send(scope));
  const still = whyNotDecided(answer);
  return still === undefined ? { name: probe.name, answer } : { name: probe.name, notSent: `${still}, twice` };
}

/** Why this answer decides nothing: the model allows either, or a case sent for one second was answered in a later one. */
function whyNotDecided(answer: Exchange): string | undefined {
  const undecided = undecidedWhy(answer);
  if (undecided !== undefined) return undecided;
  const { request, answeredAtMs } = answer;
  const offItsSecond =
    request.recipe.atSecondFraction !== undefined &&
    Math.floor(answeredAtMs / 1000) > Math.floor(request.sentAtMs / 1000);
  return offItsSecond
    ? 'answered in a later second than it was sent in: the target may have read the timestamp a second off the edge'
    : undefined;
}

const wrong = (answer: Exchange | undefined, level: CheckLevel) =>
  answer !== undefined && breachesOfExchange(answer, { level }).length > 0;

/** The verdict on the cases gathered, in order: the first wrong answer fails the check. */
function judgeCases(cases: readonly ProbeCase[], gathered: readonly CaseAnswer[] | undefined, level: CheckLevel) {
  if (!gathered || gathered.length === 0) return notJudged('no request was sent');
  const first = gathered.find((entry) => wrong(entry.answer, level));
  if (first?.answer !== undefined)
    return failed(
      `${expectedOf(first.answer, { level })} for ${first.name}`,
      `${first.name}: ${breachText(first.answer, breachesOfExchange(first.answer, { level }))}`,
      { exchanges: [first.answer] },
      casesNote(gathered, level),
    );
  const answered = gathered.filter((entry): entry is CaseAnswer & { answer: Exchange } => entry.answer !== undefined);
  if (gathered.length < cases.length)
    return notJudged(`${gathered.length} of ${cases.length} cases sent (interrupted)`);
  if (answered.length === 0) return notJudged(gathered.map((entry) => `${entry.name}: ${entry.notSent}`).join('; '));
  const notes = gathered
    .filter((entry) => entry.notSent !== undefined)
    .map((entry) => `not judged: ${entry.name} (${entry.notSent})`);
  return passed(
    expectedOfAll(answered, level),
    `${plural(answered.length, 'case')}: ${tally(answered.map((entry) => entry.answer))}`,
    notes,
  );
}

/** What every case expected, once per distinct expectation: `401 for each of 6 cases`. */
function expectedOfAll(answered: readonly (CaseAnswer & { answer: Exchange })[], level: CheckLevel): string {
  const kinds = [...new Set(answered.map((entry) => expectedOf(entry.answer, { level })))];
  if (kinds.length === 1)
    return answered.length === 1 ? (kinds[0] as string) : `${kinds[0]} for each of ${answered.length} cases`;
  return kinds
    .map(
      (kind) =>
        `${kind} for ${answered
          .filter((entry) => expectedOf(entry.answer, { level }) === kind)
          .map((entry) => entry.name)
          .join(', ')}`,
    )
    .join('; ');
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

function casesNote(gathered: readonly CaseAnswer[], level: CheckLevel): string[] {
  if (gathered.length < 2) return [];
  const names = gathered.filter((entry) => wrong(entry.answer, level)).map((entry) => entry.name);
  const others = names.length > 1 ? `; also answered wrongly: ${names.slice(1).join('; ')}` : '';
  return [
    `${names.length} of the ${gathered.length} cases (each changing one thing) answered wrongly; the first is shown${others}`,
  ];
}
