/**
 * What a receiver must accept (§4.1, §4.2): every valid document, including unknown fields (§9.2), an unknown
 * lead (§6.3), the longest event_id (§8: 120 characters, counted as code points, so also 120 astral ones), a job
 * with only its required fields (§2.2); and, on Interface A, the acknowledgment that comes back (§2.3).
 * Accepted means any 2xx (§6.5); the status §4.2 names, 202, is B-ACCEPT-009's `should`, and §4.1's 202 for a
 * job is A-ACCEPT-001's `must`.
 */
import { randomBytes } from 'node:crypto';
import { EVENT_TYPES, MAX_EVENT_ID_LENGTH, type EventType } from '../../../spec/constants.js';
import { eventTypeSpec } from '../../../spec/event-types.js';
import type { TermId } from '../../../spec/model/answers.js';
import type { ReceiverCheck } from '../../check.js';
import { astralPadded, compact, eventDoc, withPath } from '../../probe/bodies.js';
import { EDGE_VALUES, EVENT_ENUMERATIONS, JOB_ENUMERATIONS } from '../../probe/mutations-document.js';
import { mutationCheck } from './mutated.js';
import { event, EVENTS_RECEIVER, job, JOBS_RECEIVER, probeOn, requiredFieldsOf, type Receiver } from './receivers.js';

/** The receiver's valid document, its answer judged on `terms` rather than its status alone. */
const answerTo = (receiver: Receiver, id: string, terms: readonly TermId[], meta: Parameters<typeof probeOn>[2]) =>
  probeOn(receiver, id, { ...meta, terms });

/** §6, §2.5–§2.7: the payload section of each event type. */
const payloadSection = (type: EventType): string => eventTypeSpec(type).section;

const eventsAcceptance: ReceiverCheck[] = [
  ...EVENT_TYPES.map((type) =>
    probeOn(EVENTS_RECEIVER, eventTypeSpec(type).acceptCheckId, {
      sections: ['§4.2', '§6', payloadSection(type)],
      clauses: ['§4.2-1', '§6-1', `${payloadSection(type)}-1`],
      tags: ['acceptance', 'events'],
      title: `a valid ${type} event is accepted`,
      send: (scope) => ({ body: compact(event(scope, type)) }),
    }),
  ),
  probeOn(EVENTS_RECEIVER, 'B-ACCEPT-006', {
    sections: ['§9.2'],
    clauses: ['§9.2-1'],
    tags: ['acceptance', 'schema', 'versioning'],
    title: 'unknown fields are ignored (top level, new event fields)',
    send: (scope) => ({
      body: compact({
        ...event(scope),
        x_future_field: 'a field from a later minor version',
        sentiment: { score: 0.8, label: 'positive' },
      }),
    }),
  }),
  probeOn(EVENTS_RECEIVER, 'B-ACCEPT-007', {
    sections: ['§6.3'],
    clauses: ['§6.3-1'],
    tags: ['acceptance', 'lead'],
    title: 'an event for an unknown lead_id is accepted',
    send: (scope) => ({
      body: compact(
        eventDoc('conversation.message', scope.eventId(), `unknown-lead-${randomBytes(8).toString('hex')}`),
      ),
    }),
  }),
  probeOn(EVENTS_RECEIVER, 'B-ACCEPT-008', {
    sections: ['§8', '§6.1', '§2.4'],
    clauses: ['§2.4-2', '§8-2'],
    tags: ['acceptance', 'limits'],
    title: `an event_id of exactly ${MAX_EVENT_ID_LENGTH} characters is accepted`,
    send: (scope) => {
      const id = `${scope.eventId()}-${'x'.repeat(MAX_EVENT_ID_LENGTH)}`.slice(0, MAX_EVENT_ID_LENGTH);
      return { body: compact({ ...event(scope), event_id: id }) };
    },
  }),
  // §4.2 names 202 for an accepted event, but §6.5 tells the sender that any 2xx means accepted: another 2xx
  // loses nothing, so answering it is a warning. Its body is not shown (§4.2), but one labelled JSON is JSON (§2):
  // the event_id ends in non-ASCII characters, so an answer that echoes it with a Content-Length counted in
  // characters rather than bytes arrives cut short (and leaves bytes on a keep-alive connection for the next).
  answerTo(EVENTS_RECEIVER, 'B-ACCEPT-009', ['outcome', 'status', 'json-label'], {
    level: 'should',
    sections: ['§4.2', '§7', '§6.5', '§2'],
    clauses: ['§4.2-5', '§2-1'],
    tags: ['acceptance', 'status'],
    title:
      'an accepted event (its event_id ending in non-ASCII characters) is answered 202 itself, any body labelled JSON being JSON (§6.5 counts any 2xx as accepted)',
    send: (scope) => ({ body: compact({ ...event(scope), event_id: `${scope.eventId()}-é€😀` }) }),
  }),
  probeOn(EVENTS_RECEIVER, 'B-ACCEPT-010', {
    sections: ['§8', '§6.1', '§2.4'],
    clauses: ['§2.4-2', '§8-2'],
    tags: ['acceptance', 'limits'],
    title: `an event_id of ${MAX_EVENT_ID_LENGTH} characters, most outside the BMP (over ${MAX_EVENT_ID_LENGTH} UTF-16 units), is accepted`,
    send: (scope) => ({
      body: compact({ ...event(scope), event_id: astralPadded(`${scope.eventId()}-`, MAX_EVENT_ID_LENGTH) }),
    }),
  }),
];

/** Every value of every enumeration, each in an otherwise valid document (probe/mutations-document.ts). */
const enumerations = {
  B: mutationCheck(EVENTS_RECEIVER, 'B-ACCEPT-011', EVENT_ENUMERATIONS, {
    sections: ['§2.10', '§2.11', '§2.12'],
    tags: ['acceptance', 'schema'],
    title: 'every value of channel, direction, author and outcome is accepted',
  }),
  A: mutationCheck(JOBS_RECEIVER, 'A-ACCEPT-006', JOB_ENUMERATIONS, {
    sections: ['§2.8', '§2.9', '§2.2'],
    tags: ['acceptance', 'schema'],
    title: 'every value of origin.channel and brief.intent is accepted',
    // Each accepted job starts a conversation: the cases run after the callback checks, not among them.
    exclusive: true,
  }),
};

const jobsAcceptance: ReceiverCheck[] = [
  answerTo(JOBS_RECEIVER, 'A-ACCEPT-001', ['outcome', 'status'], {
    sections: ['§4.1', '§2.2'],
    clauses: ['§4.1-1', '§4.1-4'],
    tags: ['acceptance', 'jobs'],
    title: 'a valid contact job is accepted with 202',
  }),
  // §2.3's body: the status and the Content-Type are A-ACCEPT-001's and -003's.
  answerTo(JOBS_RECEIVER, 'A-ACCEPT-002', ['outcome', 'acknowledgment'], {
    sections: ['§2.3', '§4.1', '§2.1'],
    clauses: ['§2.3-1', '§2.3-2'],
    tags: ['acceptance', 'ack'],
    title: 'the acknowledgment is JSON with a string provider_job_id and an E.164 assigned_number_e164',
  }),
  answerTo(JOBS_RECEIVER, 'A-ACCEPT-003', ['outcome', 'json-label'], {
    sections: ['§4.1', '§2'],
    clauses: ['§4.1-4'],
    tags: ['acceptance', 'ack', 'headers'],
    title: 'the acknowledgment is sent with Content-Type: application/json',
  }),
  probeOn(JOBS_RECEIVER, 'A-ACCEPT-004', {
    sections: ['§9.2'],
    clauses: ['§9.2-1'],
    tags: ['acceptance', 'schema', 'versioning'],
    title: 'unknown fields are ignored (top level and inside contact, origin, brief)',
    send: (scope) => {
      let doc = job(scope);
      doc = withPath(doc, 'x_future_field', { nested: true });
      doc = withPath(doc, 'contact.preferred_time', 'mornings');
      doc = withPath(doc, 'origin.utm', { source: 'newsletter' });
      doc = withPath(doc, 'brief.priority', 2);
      return { body: compact(doc) };
    },
  }),
  probeOn(JOBS_RECEIVER, 'A-ACCEPT-005', {
    sections: ['§2.2', '§4.1'],
    clauses: ['§2.2-1'],
    tags: ['acceptance', 'schema'],
    title: 'a job with only the required fields is accepted',
    send: (scope) => ({ body: compact(requiredFieldsOf(job(scope))) }),
  }),
];

/** Valid values at the edge of their type (probe/mutations-document.ts): a receiver stricter than the spec refuses one. */
const edgeValues = mutationCheck(EVENTS_RECEIVER, 'B-ACCEPT-012', EDGE_VALUES, {
  sections: ['§6.3', '§2.4', '§2.6', '§2.7'],
  tags: ['acceptance', 'schema'],
  title:
    'values at the edge of their type are accepted: lead_id "" (an unknown lead, §6.3), text "", a scheduled_at in the past, attempts 0',
});

export const acceptance = {
  B: [...eventsAcceptance, enumerations.B, edgeValues],
  A: [...jobsAcceptance, enumerations.A],
};
