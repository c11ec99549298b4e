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
import type { TermId } from '../../spec/model/answers.js';
import { defineCheck, type CheckMeta } from '../check.js';
import type { Exchange } from '../evidence.js';
import type { RequestRecipe } from './recipe.js';
import type { ProbeScope } from './scope.js';
import { judgeAnswer } from './verdict.js';

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
