/**
 * The jobs whose events the callback checks judge (./callbacks.ts) and a repeated job's (./repeated-job.ts): each
 * sent once per run on a stage of its own of the callback listener (probe/callbacks.ts), with a callback_url of its
 * own, and changed as its check needs (a lead_id with capitals and accents, the required fields alone, refused
 * first, signed 240 s before it is sent).
 */
import { createHash } from 'node:crypto';
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import type { BriefIntent } from '../../../spec/schemas.js';
import { compact, withPath, type Doc } from '../../probe/bodies.js';
import type { CallbackHarness, JobRequest, JobStage } from '../../probe/callbacks.js';
import { SENDER_RUN_CAPS } from '../../../bounds.js';
import { unconfirmedBreaches, unrepeatedBreaches, worthPlayingAgain } from '../sender/judging.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { CallbackScenarioId } from '../../listen/scenarios.js';
import { WINDOW_MARGIN_SECONDS } from '../../tolerances.js';
import { job, requiredFieldsOf } from './receivers.js';

/** How a job is sent (as JobRequest's), and how it is made. */
type JobOptions = Partial<Pick<JobRequest, 'scenario' | 'twice' | 'together' | 'before'>> & {
  /** Changes the job before it is sent (e.g. its lead_id). */
  change?: (doc: Doc) => Doc;
  /** `returning`: the lead of the run's main job (a contact who comes back: a second job for one lead). */
  lead?: 'returning';
  /** Seconds added to the job's X-CAI-Timestamp (on the provider's clock): a job signed earlier than it is sent. */
  shiftSeconds?: number;
  /** The job's brief.intent (§2.9), when not the sample's. */
  intent?: BriefIntent;
  /** What must have happened before the job is sent (another job's event answered). */
  after?(): Promise<unknown>;
};

/**
 * The lead of the run's main job, and of the job of a contact who comes back (one per run): all digits, with leading
 * zeros and past 2^53, as a platform's database key may well be. §2.2 has it returned unmodified; a provider that
 * reads it as a number (a JSON number, an integer column) sends back other digits.
 */
function sharedLead(scope: ProbeScope): string {
  // The run's id (any text) as 15 decimal digits of its hash: one lead per run, all digits.
  const digits = BigInt(`0x${createHash('sha256').update(scope.session.runId).digest('hex').slice(0, 12)}`);
  return `00${String(digits).padStart(15, '0')}00001`;
}

/**
 * Sends one job with a callback_url of its own and gathers its events; once per run and name, shared by the checks.
 * A job whose events' timing (§7: the waits' growth, Retry-After honoured) cai's own lag left open is sent again as a
 * new job, at most SENDER_RUN_CAPS.timingReplays times, as a sender run plays such a scenario again; so is a job
 * whose events broke a term a provider held up by the busy machine (or a jittered backoff's draw) fakes, judged too
 * few times or while its other events kept it, until as many jobs as judging.ts asks broke it. The last is the
 * evidence, with the first job's breaches it did not repeat as notes.
 */
export function jobStage(scope: ProbeScope, name: string, options: JobOptions = {}): Promise<JobStage | undefined> {
  return scope.session.once(`callback-${name}`, async () => {
    const harness = scope.session.callback;
    if (!harness) return undefined;
    if (options.after) await options.after();
    const first = await gatherJob(scope, harness, name, options);
    const plays = [first];
    for (
      let again = 1;
      again <= SENDER_RUN_CAPS.timingReplays &&
      !scope.session.signal.aborted &&
      worthPlayingAgain(plays.map((play) => harness.evidence([play])));
      again += 1
    ) {
      const replay = await gatherJob(scope, harness, name, options, `${name}-again-${again}`);
      // A job to which no event came (a provider held up by the busy machine) is no better evidence than the one before.
      if (replay.record.attempts.length === 0) break;
      replay.record.replays = again;
      plays.push(replay);
    }
    const stage = plays.at(-1) as JobStage;
    if (stage !== first) {
      const unrepeated = unrepeatedBreaches(harness.evidence([first]), harness.evidence([stage]));
      if (unrepeated.length > 0) stage.record.unrepeated = unrepeated;
      const unconfirmed = unconfirmedBreaches(plays.map((play) => harness.evidence([play])));
      if (unconfirmed.length > 0) stage.record.unconfirmed = unconfirmed;
    }
    return stage;
  });
}

/** The job `name` (its stage named `stageName`: a job sent again keeps its lead, and so what the checks compare). */
function gatherJob(
  scope: ProbeScope,
  harness: CallbackHarness,
  name: string,
  options: JobOptions,
  stageName = name,
): Promise<JobStage> {
  return harness.gather({
    name: stageName,
    scenario: options.scenario ?? 'callbacks',
    build: (callbackUrl) => {
      const sample = job(scope, callbackUrl);
      const doc = options.intent ? { ...sample, brief: { ...(sample.brief as Doc), intent: options.intent } } : sample;
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
}

/** The callback scenarios as the jobs that play them are named (their listener paths, their stages): `answered-503`. */
function jobName(id: CallbackScenarioId): string {
  if (id === 'callbacks') return id;
  return id === 'callback-returning' ? 'returning' : id.replace(/^callback-/, 'answered-');
}

/**
 * §2.9: the intents of the jobs whose conversations go on past their first event, one of each value, so that every
 * intent's conversation is judged (a provider may end each intent otherwise: a booking for one, job.closed for
 * another). The main job keeps the sample's book_appointment; a refused first event may end its conversation there.
 */
const INTENTS: Partial<Record<CallbackScenarioId, BriefIntent>> = {
  'callback-returning': 'pricing_information',
  'callback-503': 'other',
  'callback-5xx': 'service_information',
  'callback-429': 'reschedule',
  'callback-429-date': 'follow_up',
  'callback-reset': 'pricing_information',
};

/** The job that plays a callback scenario (the sender checks' evidence on the callbacks), sent once per run. */
export const scenarioJob = (scope: ProbeScope, id: CallbackScenarioId) => {
  const intent = INTENTS[id];
  return jobStage(scope, jobName(id), {
    scenario: id,
    ...(id === 'callback-returning' ? { lead: 'returning' } : {}),
    ...(intent ? { intent } : {}),
  });
};

/**
 * The scenarios whose first event must be sent again (a 5xx, a 429, a cut connection), then delivered, and how each
 * first event was answered, as a failure names it.
 */
export const FIRST_ANSWER = {
  'callback-503': '503',
  'callback-5xx': 'a 5xx five times',
  'callback-429': '429',
  'callback-429-date': '429 (Retry-After an HTTP-date)',
  'callback-reset': 'a connection reset',
} as const satisfies Partial<Record<CallbackScenarioId, string>>;
export const RETRIED_SCENARIOS = Object.keys(FIRST_ANSWER) as (keyof typeof FIRST_ANSWER)[];

/**
 * A job sent once the platform has refused an event of another job (its first, answered 400): §7's "do not retry"
 * is that event's, so this job's conversation comes as any other's. A provider that stops calling the platform
 * after a refusal (a circuit breaker on the host) sends it nothing. It waits for the main job's conversation, so
 * that a refusal it brings forward cannot silence that one (whose silence A-CB-001 reports first).
 */
export const afterRefusalJob = (scope: ProbeScope) =>
  jobStage(scope, 'after-refusal', {
    after: async () => {
      const harness = scope.session.callback;
      if (!harness) return;
      await mainJob(scope);
      // Started here if no check has started it yet (once per run); its own checks read it as usual.
      scenarioJob(scope, 'callback-400').catch(() => undefined);
      await harness.answeredOne(jobName('callback-400'), scope.session.signal);
    },
  });

/** The one job whose events A-CB-001, -005, -006, -012 and -013 judge. */
export const mainJob = (scope: ProbeScope) => jobStage(scope, 'callbacks');

/**
 * A lead_id the platform may well issue (§2.2: a string), that a provider which lowercases, trims, normalises or
 * cuts identifiers would change: capitals, accented letters (`é` decomposed, as NFD text has it), a slash, a plus,
 * and past 64 characters.
 */
function unusualLeadId(plain: string): string {
  return `Lead/${plain.replace(/^lead-conf-/, '')}-MÜLLER-Jose\u0301+1-${'0123456789'.repeat(6)}`;
}

export const edgeLeadJob = (scope: ProbeScope) =>
  jobStage(scope, 'lead-edge', { change: (doc) => ({ ...doc, lead_id: unusualLeadId(String(doc.lead_id)) }) });

/** The job with §2.2's required fields alone (A-ACCEPT-005's): a provider that reads an optional one without looking. */
export const minimalJob = (scope: ProbeScope) => jobStage(scope, 'minimal', { change: requiredFieldsOf });

/**
 * The job sent first with a field the schema refuses, then signed with a timestamp past the window, then as it is:
 * both refusals must leave no trace (§2.2, §5.5), so the job is new and its conversation starts. A provider that
 * records the event_id before it validates the job, or before it judges the window, takes the valid one for a
 * repeat: its answer may look like any acknowledgment, but no event ever comes.
 */
export const refusedFirstJob = (scope: ProbeScope) =>
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
export const AGED_JOB_SECONDS = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

/**
 * A job signed 240 s before it is sent (a platform's queue may hold it so; §5.5 accepts it): a provider that signs
 * its events with the job's X-CAI-Timestamp instead of the time it sends them shows it at once, where with a fresh
 * job its events would be refused only once the conversation outlasts the window.
 */
export const agedJob = (scope: ProbeScope) => jobStage(scope, 'aged', { shiftSeconds: -AGED_JOB_SECONDS });
