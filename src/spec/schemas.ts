/**
 * The records of the interface (§2), defined once with zod 4. `cai validate`, the mock receivers, the
 * senders and `cai schema` (JSON Schema / OpenAPI) all use these.
 *
 * Rules of construction, so that the emitted JSON Schema means exactly what these schemas mean:
 * - every check is a type, an enum, a literal, `minLength`/`minimum`, or a `pattern` (src/spec/formats.ts);
 *   no `.refine()`, which JSON Schema cannot express;
 * - objects are loose: §9.2 "receivers ignore fields they do not recognise", so unknown fields are valid;
 * - optional fields are plain `.optional()` (`.partial()` where all are): `null` is not a string, so `"text": null`
 *   is invalid (omit the field instead). The spec is silent on null; refusing it keeps every receiver safe.
 * - identifiers (`lead_id`, `event_id`, `branch_code`, `provider_job_id`) are non-empty strings, but for an event's
 *   `lead_id`: §6.3 accepts one the platform does not recognise, and "" is a string (§2.4) it does not.
 * What a type usually carries but the spec does not require ("not shown") is a warning, computed in
 * validate.ts, never a schema rule.
 */
import * as z from 'zod';
import {
  AUTHORS,
  BRIEF_INTENTS,
  DIRECTIONS,
  EVENT_CHANNELS,
  EVENT_TYPES,
  ORIGIN_CHANNELS,
  OUTCOMES,
} from './constants.js';
import {
  DATE_TIME_PATTERN,
  E164_PATTERN,
  EVENT_ID_PATTERN,
  HTTP_URL_PATTERN,
  LANGUAGE_TAG_PATTERN,
} from './formats.js';

/** §2.1 formats. */
export const PhoneE164 = z.string().regex(E164_PATTERN).describe('E.164 telephone number (§2.1)');
export type PhoneE164 = z.infer<typeof PhoneE164>;
export const DateTimeWithOffset = z
  .string()
  .regex(DATE_TIME_PATTERN)
  .describe('ISO 8601 date-time with time-zone offset (§2.1)');
export type DateTimeWithOffset = z.infer<typeof DateTimeWithOffset>;
export const LanguageTag = z.string().regex(LANGUAGE_TAG_PATTERN).describe('BCP 47 language tag (§2.1)');
export type LanguageTag = z.infer<typeof LanguageTag>;
const Identifier = z.string().min(1);

/** §2.8–2.12 enumerations. */
export const OriginChannel = z.enum(ORIGIN_CHANNELS);
export const BriefIntent = z.enum(BRIEF_INTENTS);
export type BriefIntent = z.infer<typeof BriefIntent>;
export const EventChannel = z.enum(EVENT_CHANNELS);
export const Direction = z.enum(DIRECTIONS);
export const Author = z.enum(AUTHORS);
export const Outcome = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof Outcome>;
export const EventTypeSchema = z.enum(EVENT_TYPES);

/** §2.2 contact job: the Interface A request body. */
export const Contact = z.looseObject({
  name: z.string().describe('Name as declared by the contact'),
  phone_e164: PhoneE164,
  email: z.string().optional(),
  language: LanguageTag.optional(),
});
export type Contact = z.infer<typeof Contact>;

/** §2.2: every field of origin and brief is optional. */
export const Origin = z
  .looseObject({ channel: OriginChannel, source: z.string(), campaign: z.string(), captured_at: DateTimeWithOffset })
  .partial();
export type Origin = z.infer<typeof Origin>;

export const Brief = z.looseObject({ intent: BriefIntent, notes: z.string() }).partial();
export type Brief = z.infer<typeof Brief>;

export const ContactJob = z
  .looseObject({
    lead_id: Identifier.describe('Identifier of the contact on the platform; returned unmodified on every event'),
    // §2.2: unique per job. The 120-character limit of §8 is stated for Interface B events only.
    event_id: Identifier.describe('Unique per job; a repeated value must be ignored by the Provider'),
    branch_code: Identifier.describe('Destination unit; the catalog is issued per deployment'),
    city: z.string().optional(),
    contact: Contact,
    origin: Origin.optional(),
    brief: Brief.optional(),
    callback_url: z.string().regex(HTTP_URL_PATTERN).describe('Destination of the Interface B events'),
  })
  .describe('Contact job, Interface A request body (§2.2)');
export type ContactJob = z.infer<typeof ContactJob>;

/**
 * §2.3 job acknowledgment: the Interface A 202 body. The spec lists both fields without marking either
 * optional (unlike §2.2 and §2.4), so both are required.
 */
export const JobAck = z
  .looseObject({
    provider_job_id: Identifier.describe("The Provider's identifier of the job"),
    assigned_number_e164: PhoneE164.describe('E.164 origin number assigned to this contact'),
  })
  .describe('Job acknowledgment, Interface A response body (§2.3)');
export type JobAck = z.infer<typeof JobAck>;

/** §2.13: `{ok: true, duplicate: true}`, with status 202, when the event_id was already received. */
export const DuplicateAck = z
  .looseObject({ ok: z.literal(true), duplicate: z.literal(true) })
  .describe('Duplicate acknowledgment, Interface B 202 body for a repeated event_id (§2.13)');
export type DuplicateAck = z.infer<typeof DuplicateAck>;

/** §2.4 envelope fields, on every event. */
const envelopeShape = {
  event: EventTypeSchema,
  event_id: z.string().regex(EVENT_ID_PATTERN).describe('Unique event identifier, at most 120 characters (§8)'),
  // §2.4 types it "string" and §6.3 accepts a lead_id the platform does not recognise: "" is one, not a schema error.
  lead_id: z.string().optional(),
  provider_job_id: Identifier.optional(),
  channel: EventChannel.optional(),
  from_number_e164: PhoneE164.optional(),
  direction: Direction.optional(),
  author: Author.optional(),
  text: z.string().optional(),
  occurred_at: DateTimeWithOffset.optional(),
};

/** An event whose type is not known yet: the envelope only (used to report envelope errors of any event). */
export const EventEnvelope = z.looseObject(envelopeShape).describe('Event envelope, all Interface B events (§2.4)');
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** §2.5 */
export const ConversationMessageEvent = z
  .looseObject({ ...envelopeShape, event: z.literal('conversation.message') })
  .describe('conversation.message event (§2.5)');
export type ConversationMessageEvent = z.infer<typeof ConversationMessageEvent>;

/** §2.6: the allowed values of `service` are "not shown beyond it being a string". */
const appointmentShape = {
  ...envelopeShape,
  branch_code: Identifier.optional(),
  scheduled_at: DateTimeWithOffset.optional(),
  service: z.string().optional(),
  notes: z.string().optional(),
};
export const AppointmentBookedEvent = z
  .looseObject({ ...appointmentShape, event: z.literal('appointment.booked') })
  .describe('appointment.booked event (§2.6)');
export type AppointmentBookedEvent = z.infer<typeof AppointmentBookedEvent>;
export const AppointmentRescheduledEvent = z
  .looseObject({ ...appointmentShape, event: z.literal('appointment.rescheduled') })
  .describe('appointment.rescheduled event (§2.6)');
export type AppointmentRescheduledEvent = z.infer<typeof AppointmentRescheduledEvent>;
export const AppointmentCancelledEvent = z
  .looseObject({ ...appointmentShape, event: z.literal('appointment.cancelled') })
  .describe('appointment.cancelled event (§2.6)');
export type AppointmentCancelledEvent = z.infer<typeof AppointmentCancelledEvent>;

/** §2.7: `attempts` is the number of attempts made, so a whole number of 0 or more. */
export const JobClosedEvent = z
  .looseObject({
    ...envelopeShape,
    event: z.literal('job.closed'),
    outcome: Outcome.optional(),
    attempts: z.int().min(0).optional(),
  })
  .describe('job.closed event (§2.7)');
export type JobClosedEvent = z.infer<typeof JobClosedEvent>;

/** Any Interface B event (§2.4–2.7, §6), discriminated by `event`. */
export const Event = z
  .discriminatedUnion('event', [
    ConversationMessageEvent,
    AppointmentBookedEvent,
    AppointmentRescheduledEvent,
    AppointmentCancelledEvent,
    JobClosedEvent,
  ])
  .describe('Interface B event (§2.4–2.7)');
export type Event = z.infer<typeof Event>;

/** The schema of each event type (§6). */
export const EventSchemas = {
  'conversation.message': ConversationMessageEvent,
  'appointment.booked': AppointmentBookedEvent,
  'appointment.rescheduled': AppointmentRescheduledEvent,
  'appointment.cancelled': AppointmentCancelledEvent,
  'job.closed': JobClosedEvent,
} as const satisfies Record<(typeof EVENT_TYPES)[number], z.ZodType>;

/** A branch catalog (§1, §2.2): the file given to `--catalog`. */
export const Branch = z.looseObject({ branch_code: Identifier, name: z.string() });
export type Branch = z.infer<typeof Branch>;
export const BranchCatalog = z.array(Branch);
export type BranchCatalog = z.infer<typeof BranchCatalog>;
