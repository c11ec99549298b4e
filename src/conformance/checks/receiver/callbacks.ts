/**
 * Interface A, §3 step 5: the events the provider sends back to the job's callback_url, judged on what only a
 * provider's callbacks show: that they come at all, carry the job's lead_id unchanged, end the conversation, repeat
 * the lifecycle facts the acknowledgment fixed (§2.3); a repeated job is ./repeated-job.ts's.
 * How each event is signed, shaped and retried is judged by the sender checks (checks/sender), which run on the
 * same events (catalogue.ts). Each job is sent and its events gathered once per run (Session.once), on a stage of
 * its own of the callback listener (probe/callbacks.ts).
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
import { describeAnswer, documentOf, label, ms, type Attempt, type Exchange } from '../../evidence.js';
import { compact, withPath, type Doc } from '../../probe/bodies.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { WINDOW_MARGIN_SECONDS } from '../../tolerances.js';
import { eventTypeOf, type JobStage } from '../../probe/callbacks.js';
import {
  eventObject,
  isEndingEvent,
  jobEventTerms,
  type EventTermId,
  type JobFacts,
} from '../../../spec/model/job-events.js';
import { providerJobIdOf } from '../../../spec/model/answers.js';
import { answerOf, isAccepted, judgeAnswer } from '../../probe/verdict.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { CallbackScenarioId } from '../../listen/scenarios.js';
import { job } from './receivers.js';

const NO_JOB = 'the job was not sent (the run was interrupted)';

interface JobOptions {
  scenario?: CallbackScenarioId;
  /** Changes the job before it is sent (e.g. its lead_id). */
  change?: (doc: Doc) => Doc;
  /** Send the job twice, the second right after the first is acknowledged (a retry whose answer was lost). */
  twice?: boolean;
  /** Send the job this many times at once (a retry racing its first attempt). */
  together?: number;
  /** `returning`: the lead of the run's main job (a contact who comes back: a second job for one lead). */
  lead?: 'returning';
  /** Requests with the job's event_id the provider must refuse, sent before it (JobRequest.before). */
  before?(doc: Doc): Promise<Exchange[]>;
  /** Seconds added to the job's X-CAI-Timestamp (on the provider's clock): a job signed earlier than it is sent. */
  shiftSeconds?: number;
}

/** The lead of the run's main job, and of the job of a contact who comes back (one per run). */
function sharedLead(scope: ProbeScope): string {
  return `lead-conf-${scope.session.runId}-returning`;
}

/** Sends one job with a callback_url of its own and gathers its events; once per run and name, shared by the checks. */
export function jobStage(scope: ProbeScope, name: string, options: JobOptions = {}): Promise<JobStage | undefined> {
  return scope.session.once(`callback-${name}`, async () => {
    const harness = scope.session.callback;
    if (!harness) return undefined;
    return harness.gather({
      name,
      scenario: options.scenario ?? 'callbacks',
      build: (callbackUrl) => {
        const doc = job(scope, callbackUrl);
        const lead = options.lead === 'returning' || name === 'callbacks' ? { lead_id: sharedLead(scope) } : {};
        // The returning contact's job carries an event_id of 120 characters (§2.2 sets no limit on a job's; §8's
        // 120 is the events'): a provider that makes its events' ids from the job's goes past §8's limit.
        const id = options.lead === 'returning' ? { event_id: `${String(doc.event_id)}-`.padEnd(120, 'x') } : {};
        return (options.change ?? ((each) => each))({ ...doc, ...lead, ...id });
      },
      send: (doc) =>
        scope.send({
          body: compact(doc),
          ...(options.shiftSeconds ? { timestamp: { kind: 'now', shiftSeconds: options.shiftSeconds } } : {}),
        }),
      ...(options.twice ? { twice: true } : {}),
      ...(options.together ? { together: options.together } : {}),
      ...(options.before ? { before: options.before } : {}),
      signal: scope.session.signal,
    });
  });
}

/** The one job whose events A-CB-001, -005, -006, -012 and -013 judge. */
const mainJob = (scope: ProbeScope) => jobStage(scope, 'callbacks');

/**
 * A lead_id the platform may well issue (§2.2: a string), that a provider which lowercases, trims, normalises or
 * cuts identifiers would change: capitals, accented letters (`é` decomposed, as NFD text has it), a slash, a plus,
 * and past 64 characters.
 */
function unusualLeadId(plain: string): string {
  return `Lead/${plain.replace(/^lead-conf-/, '')}-MÜLLER-Jose\u0301+1-${'0123456789'.repeat(6)}`;
}

const edgeLeadJob = (scope: ProbeScope) =>
  jobStage(scope, 'lead-edge', { change: (doc) => ({ ...doc, lead_id: unusualLeadId(String(doc.lead_id)) }) });

/** The job with §2.2's required fields alone (A-ACCEPT-005's): a provider that reads an optional one without looking. */
const minimalJob = (scope: ProbeScope) =>
  jobStage(scope, 'minimal', {
    change: (doc) => {
      const contact = doc.contact as Doc;
      return {
        lead_id: doc.lead_id,
        event_id: doc.event_id,
        branch_code: doc.branch_code,
        contact: { name: contact.name, phone_e164: contact.phone_e164 },
        callback_url: doc.callback_url,
      };
    },
  });

/**
 * The job sent first with a field the schema refuses, then signed with a timestamp past the window, then as it is:
 * both refusals must leave no trace (§2.2, §5.5), so the job is new and its conversation starts. A provider that
 * records the event_id before it validates the job, or before it judges the window, takes the valid one for a
 * repeat: its answer may look like any acknowledgment, but no event ever comes.
 */
const refusedFirstJob = (scope: ProbeScope) =>
  jobStage(scope, 'refused-first', {
    before: async (doc) => [
      await scope.send({ body: compact(withPath(doc, 'contact.phone_e164', 34600000000)) }),
      await scope.send({
        body: compact(doc),
        timestamp: { kind: 'now', shiftSeconds: -(SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS) },
      }),
    ],
  });

/** How old the aged job's timestamp is when it is sent: inside the §5.5 window, well clear of its edge. */
const AGED_JOB_SECONDS = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

/**
 * A job signed 240 s before it is sent (a platform's queue may hold it so; §5.5 accepts it): a provider that signs
 * its events with the job's X-CAI-Timestamp instead of the time it sends them shows it at once, where with a fresh
 * job its events would be refused only once the conversation outlasts the window.
 */
const agedJob = (scope: ProbeScope) => jobStage(scope, 'aged', { shiftSeconds: -AGED_JOB_SECONDS });

/** The event of an attempt, when its body is a JSON object. */
function eventOf(attempt: Attempt): Record<string, unknown> | undefined {
  const doc = documentOf(attempt);
  return isObject(doc) ? doc : undefined;
}

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
  if (!stage) return notJudged(NO_JOB);
  if (!stage.job) return notJudged(NO_JOB);
  const accepted = judgeAnswer(stage.job, { level: 'must' });
  if (accepted.verdict !== 'passed' && whenRefused !== undefined)
    return notJudged(`the job was not accepted (${describeAnswer(stage.job)}): ${whenRefused}`);
  if (accepted.verdict !== 'passed')
    return { ...accepted, expected: `${accepted.expected} for the job whose events are judged` };
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
  const count = `${attempts.length} event${attempts.length === 1 ? '' : 's'}`;
  for (const attempt of attempts) {
    const event = eventOf(attempt);
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

/** A check of one job's events: the preamble, then `judge` on the stage. */
function callbackCheck(
  spec: Omit<ReceiverCheckSpec<Staged>, 'gather' | 'judge' | 'interface' | 'needs'> & {
    stage?: (scope: ProbeScope) => Promise<JobStage | undefined>;
    judgesSilence?: boolean;
    /** Why a refused job leaves the check not judged (another check's finding), rather than failed. */
    whenRefused?: string;
    judge(stage: JobStage): Outcome;
  },
): ReceiverCheck<Staged> {
  const { stage: gatherStage = mainJob, judgesSilence, whenRefused, judge, ...meta } = spec;
  return defineCheck<Staged>({
    ...meta,
    interface: 'A',
    needs: 'callback',
    tags: ['callback', ...meta.tags],
    gather: async (scope) => {
      const stage = await gatherStage(scope);
      return (stage ? { stage } : {}) as Staged;
    },
    judge: ({ stage }) => preamble(stage, judgesSilence, whenRefused) ?? judge(stage as JobStage),
  });
}

const leadUnchanged = (stage: JobStage) => judgeEach(stage, 'lead', 'no lead_id was sent');

/** Events came for the job (passed), or the run was interrupted before the first (not judged); none came: undefined. */
function eventsCame(stage: JobStage, expected: string): Outcome | undefined {
  const first = stage.record.attempts[0];
  if (first)
    return passed(
      expected,
      `${stage.record.attempts.length} event(s), the first ${((first.arrivedAt - stage.startedAt) / 1000).toFixed(1)} s after the job`,
    );
  return stage.record.interrupted ? notJudged('interrupted before an event arrived') : undefined;
}

const noEvent = (stage: JobStage) =>
  `no event at ${stage.record.targetUrl} within ${ms(stage.waitedMs)} of the answer to the job ${JSON.stringify(stage.doc.event_id)}`;

/** A job's events must come: the first arrival passes, silence through the wait fails (with `why`, when given). */
const eventsMustCome =
  (expected: string, why = '') =>
  (stage: JobStage): Outcome =>
    eventsCame(stage, expected) ?? failed(expected, `${noEvent(stage)}${why}`);

const arrival = [
  callbackCheck({
    id: 'A-CB-001',
    level: 'must',
    sections: ['§3', '§4.2', '§6'],
    clauses: ['§3-1', '§8-6'],
    tags: [],
    title: "the provider sends events back to the job's callback_url within the callback wait",
    judgesSilence: true,
    judge: eventsMustCome('at least one event after the job was accepted'),
  }),
  callbackCheck({
    id: 'A-CB-015',
    level: 'must',
    sections: ['§2.2', '§5.5', '§3'],
    clauses: ['§2.2-5', '§3-1'],
    tags: ['dedupe'],
    title:
      'a job refused first (for its schema, then for its timestamp) and sent validly next is handled: its events come',
    stage: refusedFirstJob,
    judgesSilence: true,
    judge: (stage) => {
      const expected = 'at least one event for the valid job, as for any new job (a refused one leaves no trace)';
      const accepted = (stage.refused ?? []).filter(isAccepted);
      if (accepted.length > 0)
        return notJudged(
          `a request the provider must refuse was accepted (${describeAnswer(accepted[0] as Exchange)}): see A-SCHEMA and A-AUTH`,
        );
      const refusals = (stage.refused ?? []).map(describeAnswer).join(', then ');
      const came = eventsCame(stage, expected);
      if (came) return came;
      return failed(
        expected,
        `${noEvent(stage)}, refused first (${refusals}): taken for a repeat of a job that was never taken`,
        { exchanges: [...(stage.refused ?? []), ...(stage.job ? [stage.job] : [])] },
      );
    },
  }),
  callbackCheck({
    id: 'A-CB-017',
    level: 'must',
    sections: ['§2.2', '§3', '§4.1'],
    clauses: ['§2.2-1', '§3-1'],
    tags: ['acceptance'],
    title: 'a job with only the required fields is handled too: its events come',
    stage: minimalJob,
    judgesSilence: true,
    judge: eventsMustCome(
      'at least one event for the job of required fields alone, as for any new job (§2.2)',
      ': the optional fields are optional',
    ),
  }),
  callbackCheck({
    id: 'A-CB-018',
    level: 'must',
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
    level: 'must',
    sections: ['§2.2', '§2.4'],
    clauses: ['§2.2-3'],
    tags: [],
    title: "every event carries the job's lead_id unchanged",
    judge: leadUnchanged,
  }),
  callbackCheck({
    id: 'A-CB-006',
    level: 'should',
    sections: ['§3', '§6'],
    clauses: ['§3-1'],
    tags: [],
    title: 'the conversation ends with an appointment or job.closed event within the callback wait',
    judge: (stage) => {
      const ending = stage.record.attempts.map(eventTypeOf).find(isEndingEvent);
      const expected = 'an appointment.* or job.closed event';
      if (ending) return passed(expected, String(ending));
      if (stage.record.interrupted) return notJudged('interrupted before the conversation ended');
      return failed(expected, `only ${stage.record.attempts.length} non-final event(s) within ${ms(stage.waitedMs)}`);
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
    level: 'must',
    sections: ['§2.2', '§2.4'],
    clauses: ['§2.2-3'],
    tags: ['lifecycle', 'lead'],
    title: 'a lead_id with capitals, accents (NFD) and punctuation comes back unchanged',
    stage: edgeLeadJob,
    judge: leadUnchanged,
  }),
];

export const callbacks = { A: [...arrival, ...lifecycle] };
