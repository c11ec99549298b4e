/**
 * Interface A: the provider's event sender under the answers of §7, which the provider is the client of. Three
 * jobs, each on its own listener path, whose first event the listener answers on purpose: 503 (retry with
 * backoff: the same event_id again, signed for the moment it arrives), 429 with `Retry-After` (again, not
 * before), 400 (never again, watched for a window the same provider's 503 redelivery measures). Every other
 * request is answered 202, so each conversation goes on.
 */
import type { CallbackRequest } from '../callback-listener.js';
import { eventIdOf } from '../../mock/request.js';
import type { CheckScope } from '../define.js';
import { fail, pass, skip } from '../outcomes.js';
import {
  CALLBACK_RETRY_AFTER_SECONDS,
  NOT_RETRIED_FALLBACK_MS,
  NOT_RETRIED_MARGIN_MS,
  NOT_RETRIED_MIN_MS,
  RETRY_AFTER_TOLERANCE_MS,
} from '../settings.js';
import type { CheckOutcome } from '../types.js';
import { callbackCheck, failOnEvent, gatherJob, gatherMore, seconds, signatureProblem, type JobEvents } from './callback-evidence.js';

type Scripted = 503 | 429 | 400;

interface Redelivery {
  events: JobEvents;
  /** The first event, answered with the scripted status. */
  first: CallbackRequest;
  eventId: string;
  /** Later requests with the same event_id. */
  again: CallbackRequest[];
  /** How long redeliveries were watched for after the scripted answer (the 400 job). */
  watchedMs?: number;
}

const HEADERS: Record<Scripted, Record<string, string> | undefined> = {
  503: undefined,
  429: { 'Retry-After': String(CALLBACK_RETRY_AFTER_SECONDS) },
  400: undefined,
};

function redeliveries(requests: readonly CallbackRequest[]): { first?: CallbackRequest; eventId?: string; again: CallbackRequest[] } {
  const first = requests[0];
  const eventId = first ? eventIdOf(first.body) : undefined;
  if (!first || eventId === undefined) return { first, eventId, again: [] };
  return { first, eventId, again: requests.slice(1).filter((request) => eventIdOf(request.body) === eventId) };
}

/**
 * The job whose first event is answered `status`; for 503 and 429, its events until the redelivery arrives (or
 * --callback-wait ends); for 400, until the first arrives, then for the watch window.
 */
function scriptedJob(scope: CheckScope, status: Scripted): Promise<Redelivery | JobEvents | undefined> {
  return scope.session.once(`callback-${status}`, async () => {
    const script = (_body: Buffer, index: number) => (index === 0 ? { status, headers: HEADERS[status] } : undefined);
    const until = status === 400 ? (requests: readonly CallbackRequest[]) => requests.length > 0 : (requests: readonly CallbackRequest[]) => redeliveries(requests).again.length > 0;
    let events = await gatherJob(scope, { name: `answered-${status}`, script, until });
    if (!events) return undefined;
    let watchedMs: number | undefined;
    if (status === 400 && events.requests.length > 0) {
      watchedMs = await notRetriedWindow(scope);
      const first = events.requests[0] as CallbackRequest;
      events = await gatherMore(scope, events, first.answeredAt + watchedMs - Date.now());
      watchedMs = Math.min(watchedMs, events.startedAt + scope.session.callbackWaitMs - first.answeredAt);
    }
    const found = redeliveries(events.requests);
    if (!found.first || found.eventId === undefined) return events;
    return { events, first: found.first, eventId: found.eventId, again: found.again, ...(watchedMs !== undefined ? { watchedMs } : {}) };
  });
}

/** §7 on 400: how long to watch for a redelivery (settings.ts: from the same provider's 503 redelivery). */
async function notRetriedWindow(scope: CheckScope): Promise<number> {
  const after503 = await scriptedJob(scope, 503);
  const gap = after503 && 'again' in after503 && after503.again[0] ? after503.again[0].arrivedAt - after503.first.answeredAt : undefined;
  const window = gap === undefined ? NOT_RETRIED_FALLBACK_MS : Math.max(NOT_RETRIED_MIN_MS, 2 * gap + NOT_RETRIED_MARGIN_MS);
  return Math.min(window, scope.session.callbackWaitMs);
}

interface RetryCheck {
  id: string;
  title: string;
  sections: readonly string[];
  status: Scripted;
  judge(found: Redelivery, scope: CheckScope): CheckOutcome;
}

/** The job's events, for callbackCheck's common verdicts (no listener, job not accepted, nothing arrived). */
async function eventsOf(scope: CheckScope, status: Scripted): Promise<JobEvents | undefined> {
  const result = await scriptedJob(scope, status);
  return result && 'again' in result ? result.events : result;
}

function retryCheck(spec: RetryCheck) {
  return callbackCheck({
    id: spec.id, title: spec.title, sections: spec.sections, level: 'must', tags: ['retry'],
    evidence: (scope) => eventsOf(scope, spec.status),
    judge: async (_evidence, scope) => {
      // The same memoised evidence, with what the script found in it.
      const result = await scriptedJob(scope, spec.status);
      return result && 'again' in result ? spec.judge(result, scope) : skip('no event with an event_id arrived (see A-CB-001, A-CB-004)');
    },
  });
}

/** The redelivery of an event answered `status`: expected again with the same event_id within --callback-wait. */
function deliveredAgain(found: Redelivery, scope: CheckScope, rule: string): CheckOutcome {
  const expected = `${found.eventId} delivered again within ${seconds(scope.session.callbackWaitMs)} s (${rule})`;
  const again = found.again[0];
  if (!again) {
    const others = found.events.requests.length - 1;
    return fail(expected, `not delivered again within ${seconds(found.events.waitedMs)} s${others > 0 ? `; ${others} other event(s) arrived` : ''}`);
  }
  return pass(expected, `delivered again ${again.arrivedAt - found.first.answeredAt} ms after the answer`);
}

export const callbackRetries = [
  retryCheck({
    id: 'A-CB-007',
    title: 'an event answered 503 is delivered again, with the same event_id, within --callback-wait',
    sections: ['§7', '§8', '§6.1', '§2.4'],
    status: 503,
    judge: (found, scope) => deliveredAgain(found, scope, '§7: 5xx is retried with backoff'),
  }),
  callbackCheck({
    id: 'A-CB-008',
    title: 'a redelivered event is signed over its own bytes, valid when it arrives',
    sections: ['§5.2', '§5.5', '§7'],
    level: 'must',
    tags: ['retry', 'signature'],
    evidence: (scope) => eventsOf(scope, 503),
    judge: async (_evidence, scope) => {
      const jobs = await Promise.all([scriptedJob(scope, 503), scriptedJob(scope, 429)]);
      const found = jobs.filter((job): job is Redelivery => job !== undefined && 'again' in job && job.again.length > 0);
      if (found.length === 0) return skip('no event was delivered again (see A-CB-007, A-CB-009)');
      const expected = 'a valid X-CAI-Signature over the redelivered bytes, inside the window when it arrives';
      for (const job of found) {
        // A first attempt that is not validly signed is A-CB-002's finding, not a fault of the retry.
        if (signatureProblem(job.first, scope) !== undefined) return skip('the first attempt is not validly signed either (see A-CB-002)');
        for (const again of job.again) {
          const problem = signatureProblem(again, scope);
          if (problem) return failOnEvent(expected, `the redelivery of ${job.eventId} (after ${job.first.status}): ${problem}`, again);
        }
      }
      const count = found.reduce((sum, job) => sum + job.again.length, 0);
      return pass(expected, `${count} redelivery(ies), each validly signed`);
    },
  }),
  retryCheck({
    id: 'A-CB-009',
    title: `an event answered 429 with Retry-After: ${CALLBACK_RETRY_AFTER_SECONDS} is delivered again within --callback-wait`,
    sections: ['§7', '§6.1'],
    status: 429,
    judge: (found, scope) => deliveredAgain(found, scope, '§7: 429 is retried after Retry-After'),
  }),
  retryCheck({
    id: 'A-CB-010',
    title: `an event answered 429 with Retry-After: ${CALLBACK_RETRY_AFTER_SECONDS} is not delivered again sooner`,
    sections: ['§7'],
    status: 429,
    judge: (found) => {
      const again = found.again[0];
      if (!again) return skip('not delivered again (see A-CB-009)');
      const gap = again.arrivedAt - found.first.answeredAt;
      const wanted = CALLBACK_RETRY_AFTER_SECONDS * 1000;
      const expected = `at least ${wanted} ms between the 429 and the redelivery (${RETRY_AFTER_TOLERANCE_MS} ms allowed for timers)`;
      return gap >= wanted - RETRY_AFTER_TOLERANCE_MS ? pass(expected, `${gap} ms`) : failOnEvent(expected, `delivered again after ${gap} ms`, again);
    },
  }),
  retryCheck({
    id: 'A-CB-011',
    title: 'an event answered 400 is not delivered again',
    sections: ['§7'],
    status: 400,
    judge: (found) => {
      const watched = found.watchedMs ?? 0;
      const expected = `no redelivery of ${found.eventId} (watched ${watched} ms: twice the 503 redelivery gap + ${NOT_RETRIED_MARGIN_MS} ms, at least ${NOT_RETRIED_MIN_MS} ms)`;
      const again = found.again[0];
      if (again) return failOnEvent(expected, `delivered again ${again.arrivedAt - found.first.answeredAt} ms after the 400`, again);
      return pass(expected, 'not delivered again');
    },
  }),
];
