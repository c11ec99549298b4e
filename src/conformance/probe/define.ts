/**
 * The probe: most receiver checks are one request, valid except for the one thing the check varies, judged by the
 * status of its answer. `defineProbe` is the sugar for them: `send` builds the request (afresh for each run), the
 * gathering sends it, and the judgement compares the status with `expect`.
 *
 *   defineProbe({
 *     id: 'B-ACCEPT-007', interface: 'B', level: 'must', sections: ['§6.3'], tags: ['acceptance', 'lead'],
 *     title: 'an event for an unknown lead_id is accepted',
 *     send: (scope) => ({ body: compact(eventDoc('conversation.message', scope.eventId(), 'unknown-lead')) }),
 *     expect: ACCEPTED,
 *   })
 */
import { defineCheck, failed, notJudged, passed, type CheckMeta, type Outcome, type ReceiverCheck } from '../check.js';
import { describeAnswer, type Exchange } from '../evidence.js';
import { statusMatches, type StatusExpectation } from './expectations.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';

export interface Answered {
  answer: Exchange;
}

export type ProbeSpec = Omit<CheckMeta, 'role' | 'scenarios'> & {
  /** The request, built afresh for each run (fresh event_id, signed at send time unless the recipe says otherwise). */
  send(scope: ProbeScope): RequestRecipe;
  expect: StatusExpectation;
};

export function defineProbe(spec: ProbeSpec): ReceiverCheck<Answered> {
  const { send, expect, ...meta } = spec;
  return defineCheck<Answered>({
    ...meta,
    gather: async (scope) => ({ answer: await scope.send(send(scope)) }),
    judge: ({ answer }) => judgeStatus(answer, expect),
  });
}

/** The status of one answer against what the rule expects; no answer at all (nothing sent) is not judged. */
export function judgeStatus(answer: Exchange | undefined, expectation: StatusExpectation): Outcome {
  if (answer === undefined) return notJudged('no request was sent');
  const actual = describeAnswer(answer);
  return statusMatches(answer, expectation) ? passed(expectation.describe, actual) : failed(expectation.describe, actual, { exchanges: [answer] });
}
