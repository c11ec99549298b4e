/**
 * Interface A, §3 step 5: the events the provider sends back to the job's callback_url, judged on what only a
 * provider's callbacks show: that they come at all, carry the job's lead_id unchanged, end the conversation, repeat
 * the lifecycle facts the acknowledgment fixed (§2.3); a repeated job is ./repeated-job.ts's.
 * How each event is signed, shaped and retried is judged by the sender checks (checks/sender), which run on the
 * same events (catalogue.ts). Each job is sent and its events gathered once per run (Session.once), on a stage of
 * its own of the callback listener (probe/callbacks.ts; the jobs are ./callback-jobs.ts).
 */
import { isE164 } from '../../../spec/formats.js';
import { isObject } from '../../../spec/json.js';
import {
  defineCheck,
  failed,
  notJudged,
  passed,
  type Outcome,
  type ReceiverCheck,
  type ReceiverCheckSpec,
} from '../../check.js';
import { describeAnswer, documentOf, label, ms, type Exchange } from '../../evidence.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { eventTypeOf, type JobStage } from '../../probe/callbacks.js';
import {
  eventObject,
  isEndingEvent,
  jobEventTerms,
  type EventTermId,
  type JobFacts,
} from '../../../spec/model/job-events.js';
import { providerJobIdOf } from '../../../spec/model/answers.js';
import { heard } from '../../../spec/model/sender.js';
import { answerOf, isAccepted, judgeAnswer } from '../../probe/verdict.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { CheckLevel } from '../../types.js';
import {
  AGED_JOB_SECONDS,
  afterRefusalJob,
  agedJob,
  edgeLeadJob,
  FIRST_ANSWER,
  mainJob,
  minimalJob,
  RETRIED_SCENARIOS,
  refusedFirstJob,
  scenarioJob,
} from './callback-jobs.js';
import { plural } from '../../../text.js';
import { formatDuration } from '../../../duration.js';

interface Staged {
  stage: JobStage;
}

/**
 * What every callback check says first: no stage (not gathered), the job not accepted (the events judged never
 * started), or no event at all (the arrival check's finding, not this one's). Undefined when there are events.
 */
export function preamble(
  stage: JobStage | undefined,
  judgesSilence = false,
  whenRefused?: string,
): Outcome | undefined {
  if (!stage?.job) return notJudged('the job was not sent (the run was interrupted)');
  const accepted = judgeAnswer(stage.job, { level: 'must' });
  if (accepted.verdict !== 'passed')
    return whenRefused !== undefined
      ? notJudged(`the job was not accepted (${describeAnswer(stage.job)}): ${whenRefused}`)
      : { ...accepted, expected: `${accepted.expected} for the job whose events are judged` };
  if (stage.record.attempts.length > 0 || judgesSilence) return undefined;
  return notJudged(
    stage.record.interrupted ? 'interrupted before an event arrived' : 'no event arrived (see A-CB-001)',
  );
}

/** What the job and its acknowledgment fixed, as the model of the provider reads them (src/spec/model/job-events.ts). */
function jobFactsOf(stage: JobStage): JobFacts {
  const ack = stage.job ? eventObject(documentOf({ body: stage.job.body, cut: false })) : undefined;
  const assigned = ack?.assigned_number_e164;
  return {
    leadId: stage.leadId,
    ...(stage.job ? { providerJobId: providerJobIdOf(answerOf(stage.job)) } : {}),
    ...(typeof assigned === 'string' && isE164(assigned) ? { assignedNumber: assigned } : {}),
  };
}

/** Every event of the job judged by one term of the model: passes, fails on the first event that breaks it, or is not judged. */
function judgeEach(stage: JobStage, id: EventTermId, missing: string): Outcome {
  const term = jobEventTerms(jobFactsOf(stage)).find((each) => each.id === id);
  if (term === undefined) return notJudged(missing);
  const { attempts } = stage.record;
  const count = plural(attempts.length, 'event');
  for (const attempt of attempts) {
    const doc = documentOf(attempt);
    const event = isObject(doc) ? doc : undefined;
    const problem = term.breach(event);
    if (problem === undefined) continue;
    const received = attempt.body.toString('utf8');
    const excerpt = received.length > 300 ? `${received.slice(0, 300)}…` : received;
    return failed(
      term.expected,
      `${label(attempt)} of ${count} (${String(event?.event ?? '?')}): ${problem}`,
      { attempts: [attempt] },
      [`the event as received: ${excerpt}`],
    );
  }
  return passed(term.expected, `${count}, all as expected`);
}

/** A check of one job's events: the preamble, then `judge` on the stage (and on what `more` gathered beside it). */
function callbackCheck<More extends object = object>(
  spec: Omit<ReceiverCheckSpec<Staged>, 'gather' | 'judge' | 'interface' | 'needs' | 'level' | 'tags'> & {
    /** `must` unless it says otherwise; the tags after `callback`. */
    level?: CheckLevel;
    tags?: readonly string[];
    stage?: (scope: ProbeScope) => Promise<JobStage | undefined>;
    /** Other jobs' stages the check reads, gathered beside its own. */
    more?: (scope: ProbeScope) => Promise<More>;
    judgesSilence?: boolean;
    /** Why a refused job leaves the check not judged (another check's finding), rather than failed. */
    whenRefused?: string;
    judge(stage: JobStage, more: Partial<More>): Outcome;
  },
): ReceiverCheck<Staged & Partial<More>> {
  const { stage: gatherStage = mainJob, more, judgesSilence, whenRefused, judge, ...meta } = spec;
  return defineCheck<Staged & Partial<More>>({
    level: 'must',
    ...meta,
    interface: 'A',
    needs: 'callback',
    tags: ['callback', ...(meta.tags ?? [])],
    gather: async (scope) => {
      const [stage, others] = await Promise.all([gatherStage(scope), more?.(scope)]);
      return { ...(stage ? { stage } : {}), ...others } as Staged & Partial<More>;
    },
    judge: ({ stage, ...others }) =>
      preamble(stage, judgesSilence, whenRefused) ?? judge(stage as JobStage, others as Partial<More>),
  });
}

const leadUnchanged = (stage: JobStage) => judgeEach(stage, 'lead', 'no lead_id was sent');

/** §3 step 5: the conversation's events end with its result, an appointment or a closing outcome. */
function endsConversation(stage: JobStage): Outcome {
  const ending = stage.record.attempts.map(eventTypeOf).find(isEndingEvent);
  const expected = 'an appointment.* or job.closed event';
  if (ending) return passed(expected, String(ending));
  if (stage.record.interrupted) return notJudged('interrupted before the conversation ended');
  return failed(expected, `only ${stage.record.attempts.length} non-final event(s) within ${ms(stage.waitedMs)}`);
}

/** The job's first event was sent again until it was accepted (any 2xx): its delivery is over. */
function firstDelivered(stage: JobStage): boolean {
  const first = stage.record.attempts[0];
  if (first === undefined) return false;
  return stage.record.attempts.some((attempt) => attempt.key === first.key && heard(attempt) === 'accepted');
}

/**
 * A job's events must come: the first arrival passes, the run interrupted before it is not judged, silence through
 * the wait fails (with `why`, when given, and the exchanges `shown`).
 */
function eventsMustCome(stage: JobStage, expected: string, why = '', shown?: { exchanges: Exchange[] }): Outcome {
  const first = stage.record.attempts[0];
  if (first)
    return passed(
      expected,
      `${stage.record.attempts.length} event(s), the first ${formatDuration(first.arrivedAt - stage.startedAt)} after the job`,
    );
  if (stage.record.interrupted) return notJudged('interrupted before an event arrived');
  const noEvent = `no event at ${stage.record.targetUrl} within ${ms(stage.waitedMs)} of the answer to the job ${JSON.stringify(stage.doc.event_id)}`;
  return failed(expected, `${noEvent}${why}`, shown);
}

const arrival = [
  callbackCheck<{ later: JobStage | undefined }>({
    id: 'A-CB-001',
    sections: ['§3', '§4.2', '§6', '§7'],
    clauses: ['§3-1', '§8-6'],
    title:
      "the provider sends events back to the job's callback_url within the callback wait, also for a job sent after the platform refused an event of another (400)",
    more: async (scope) => ({ later: await afterRefusalJob(scope) }),
    judgesSilence: true,
    judge: (stage, { later }) => {
      const main = eventsMustCome(stage, 'at least one event after the job was accepted');
      if (main.verdict !== 'passed' || later === undefined || preamble(later, true) !== undefined) return main;
      // §7: "do not retry" is the refused event's client action; every other job is still the provider's to handle.
      return eventsMustCome(
        later,
        'at least one event after each job was accepted, also for a job sent after the platform refused an event of another job with 400 (§7: that event is not sent again, nothing more)',
        ', sent after the first event of another job was answered 400: the provider stopped calling back once one event was refused',
      );
    },
  }),
  callbackCheck({
    id: 'A-CB-015',
    sections: ['§2.2', '§5.5', '§3'],
    clauses: ['§2.2-5', '§3-1'],
    tags: ['dedupe'],
    title:
      'a job refused first (for its schema, then for its timestamp) and sent validly next is handled: its events come',
    stage: refusedFirstJob,
    judgesSilence: true,
    judge: (stage) => {
      const refused = stage.refused ?? [];
      const accepted = refused.find(isAccepted);
      if (accepted)
        return notJudged(
          `a request the provider must refuse was accepted (${describeAnswer(accepted)}): see A-SCHEMA and A-AUTH`,
        );
      return eventsMustCome(
        stage,
        'at least one event for the valid job, as for any new job (a refused one leaves no trace)',
        `, refused first (${refused.map(describeAnswer).join(', then ')}): taken for a repeat of a job that was never taken`,
        { exchanges: [...refused, ...(stage.job ? [stage.job] : [])] },
      );
    },
  }),
  callbackCheck({
    id: 'A-CB-017',
    sections: ['§2.2', '§3', '§4.1'],
    clauses: ['§2.2-1', '§3-1'],
    tags: ['acceptance'],
    title: 'a job with only the required fields is handled too: its events come',
    stage: minimalJob,
    judgesSilence: true,
    judge: (stage) =>
      eventsMustCome(
        stage,
        'at least one event for the job of required fields alone, as for any new job (§2.2)',
        ': the optional fields are optional',
      ),
  }),
  callbackCheck({
    id: 'A-CB-018',
    sections: ['§5.4', '§5.5'],
    clauses: ['§5.5-1'],
    tags: ['signature'],
    title: "events are signed with the time they are sent, not with the job's X-CAI-Timestamp",
    stage: agedJob,
    whenRefused: `a job ${AGED_JOB_SECONDS} s old is inside the window (see A-AUTH-012)`,
    judge: (stage) => {
      const jobTimestamp = stage.job?.request.headers[Headers.timestamp];
      const { attempts } = stage.record;
      const expected = `each event signed when it is sent, not at the job's timestamp (${AGED_JOB_SECONDS} s old when the job was sent)`;
      const reused = attempts.find((attempt) => attempt.headers[Headers.timestamp] === jobTimestamp);
      if (reused === undefined)
        return passed(expected, `${attempts.length} event(s), none with the job's X-CAI-Timestamp ${jobTimestamp}`);
      return failed(
        expected,
        `${label(reused)} of ${attempts.length} carries X-CAI-Timestamp ${jobTimestamp}, the job's own: the events of a conversation longer than ${SIGNATURE_WINDOW_SECONDS - AGED_JOB_SECONDS} s would be outside the ${SIGNATURE_WINDOW_SECONDS} s window and refused 401 (§5.5)`,
        { attempts: [reused] },
      );
    },
  }),
  callbackCheck({
    id: 'A-CB-005',
    sections: ['§2.2', '§2.4'],
    clauses: ['§2.2-3'],
    title: "every event carries the job's lead_id unchanged",
    judge: leadUnchanged,
  }),
  callbackCheck<{ retried: JobStage[] }>({
    id: 'A-CB-006',
    level: 'should',
    sections: ['§3', '§6', '§7'],
    clauses: ['§3-1'],
    title:
      'the conversation ends with an appointment or job.closed event within the callback wait, also where an event needed a retry',
    more: async (scope) => ({
      retried: (await Promise.all(RETRIED_SCENARIOS.map((id) => scenarioJob(scope, id)))).filter(
        (each): each is JobStage => each !== undefined,
      ),
    }),
    judge: (stage, { retried = [] }) => {
      const main = endsConversation(stage);
      if (main.verdict !== 'passed') return main;
      const ended = [main.actual];
      for (const each of retried) {
        // A job not taken, no event, or a first event never delivered: the arrival and retry checks' findings.
        if (preamble(each) !== undefined || !firstDelivered(each)) continue;
        const outcome = endsConversation(each);
        if (outcome.verdict === 'passed') {
          ended.push(outcome.actual);
          continue;
        }
        if (outcome.verdict !== 'failed') return outcome;
        const answered = FIRST_ANSWER[each.record.scenario.id as (typeof RETRIED_SCENARIOS)[number]];
        return failed(
          `${outcome.expected}, also in a conversation whose first event needed a retry (§7: the retry delivers it; the conversation goes on)`,
          `job ${JSON.stringify(each.doc.event_id)}, its first event answered ${answered ?? 'for a retry'} and then delivered: ${outcome.actual}`,
        );
      }
      return passed(main.expected, ended.join('; '));
    },
  }),
];

/**
 * The lifecycle as the acknowledgment fixed it. §2.4 leaves each field's presence to the event type, so only the
 * events that carry the field are judged; and the spec does not say in so many words that they must repeat the
 * acknowledgment's values (the envelope calls provider_job_id "the Provider's own identifier", from_number_e164
 * "origin number"), so these are `should`.
 */
const lifecycle = [
  callbackCheck({
    id: 'A-CB-012',
    level: 'should',
    sections: ['§2.3', '§2.4', '§2.5'],
    clauses: ['§2.3-1'],
    tags: ['lifecycle'],
    title: 'events that carry provider_job_id carry the one the acknowledgment gave',
    judge: (stage) =>
      judgeEach(stage, 'provider-job-id', 'the acknowledgment has no string provider_job_id (see A-ACCEPT-002)'),
  }),
  callbackCheck({
    id: 'A-CB-013',
    level: 'should',
    sections: ['§2.3', '§3', '§2.4', '§2.5'],
    clauses: ['§2.3-2'],
    tags: ['lifecycle'],
    title: 'outbound messages come from the assigned_number_e164 the acknowledgment gave',
    judge: (stage) =>
      judgeEach(stage, 'from-number', 'the acknowledgment has no E.164 assigned_number_e164 (see A-ACCEPT-002)'),
  }),
  callbackCheck({
    id: 'A-CB-016',
    level: 'should',
    sections: ['§6', '§2.7'],
    clauses: ['§6-2'],
    tags: ['lifecycle'],
    title: 'job.closed comes only when handling ends without an appointment (none booked, or the booking cancelled)',
    judge: (stage) => {
      // §6.6 leaves the order open: the conversation's events are read as a whole, not in their order of arrival.
      const types = stage.record.attempts.map(eventTypeOf);
      const expected = 'no job.closed beside an appointment that stands';
      const booked = types.some((type) => type === 'appointment.booked' || type === 'appointment.rescheduled');
      if (!types.includes('job.closed') || !booked)
        return passed(expected, `events: ${[...new Set(types)].join(', ')}`);
      if (types.includes('appointment.cancelled'))
        return passed(expected, 'the appointment was cancelled, then closed');
      return failed(expected, 'job.closed sent for a conversation that booked an appointment and never cancelled it');
    },
  }),
  callbackCheck({
    id: 'A-CB-014',
    sections: ['§2.2', '§2.4'],
    clauses: ['§2.2-3'],
    tags: ['lifecycle', 'lead'],
    title: 'a lead_id with capitals, accents (NFD) and punctuation comes back unchanged',
    stage: edgeLeadJob,
    judge: leadUnchanged,
  }),
];

export const callbacks = { A: [...arrival, ...lifecycle] };
