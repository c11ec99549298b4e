/**
 * One descriptor per event type of Interface B (§6): its section, the fields it usually carries, whether it ends a
 * conversation, the check that a valid one is accepted, and how a sample of it is written. With its schema in
 * schemas.ts, this is all an event type is: adding one touches these two files. Plain data, no zod.
 */

/** What a sample event is written from: the envelope, and the values sample.ts draws (it owns the randomness). */
export interface SampleContext {
  envelope: Record<string, unknown>;
  now: Date;
  occurredAt: string;
  branchCode: string;
  providerJobId: string;
  e164: () => string;
  service: () => string;
  /** ISO 8601 with an offset (§2.1) of a time `days` ahead at 10:30 local time. */
  daysAhead: (days: number) => string;
}

export interface EventTypeSpec {
  /** §2.5 the message, §2.6 the appointment events, §2.7 the closing event. */
  section: '§2.5' | '§2.6' | '§2.7';
  /** §2.4 "not shown": what an event of the type usually carries. Missing → a warning, never an error. */
  usual: readonly string[];
  /** §3: the conversation's outcome (an appointment, or the job closed) rather than one of its messages. */
  ends: boolean;
  /** The receiver check that a valid event of the type is accepted (ids are stable: docs and waivers cite them). */
  acceptCheckId: string;
  sample: (context: SampleContext) => Record<string, unknown>;
}

function appointment(days: number, notes: string): EventTypeSpec['sample'] {
  return ({ envelope, branchCode, occurredAt, daysAhead, service }) => ({
    ...envelope,
    branch_code: branchCode,
    scheduled_at: daysAhead(days),
    service: service(),
    notes,
    occurred_at: occurredAt,
  });
}

const APPOINTMENT_USUAL = ['lead_id', 'branch_code', 'scheduled_at', 'occurred_at'] as const;

export const EVENT_TYPE_SPECS = {
  'conversation.message': {
    section: '§2.5',
    usual: ['lead_id', 'channel', 'direction', 'author', 'text', 'occurred_at'],
    ends: false,
    acceptCheckId: 'B-ACCEPT-001',
    sample: ({ envelope, providerJobId, e164, occurredAt }) => ({
      ...envelope,
      provider_job_id: providerJobId,
      channel: 'whatsapp',
      from_number_e164: e164(),
      direction: 'outbound',
      author: 'agent',
      text: 'Hello, this is the clinic assistant. You asked about an appointment: would Tuesday at 10:30 suit you?',
      occurred_at: occurredAt,
    }),
  },
  'appointment.booked': {
    section: '§2.6',
    usual: APPOINTMENT_USUAL,
    ends: true,
    acceptCheckId: 'B-ACCEPT-002',
    sample: appointment(2, 'Booked by the agent over WhatsApp; the contact prefers mornings.'),
  },
  'appointment.rescheduled': {
    section: '§2.6',
    usual: APPOINTMENT_USUAL,
    ends: true,
    acceptCheckId: 'B-ACCEPT-003',
    sample: appointment(3, 'Moved at the contact’s request.'),
  },
  'appointment.cancelled': {
    section: '§2.6',
    usual: ['lead_id', 'branch_code', 'occurred_at'],
    ends: true,
    acceptCheckId: 'B-ACCEPT-004',
    sample: appointment(2, 'Cancelled by the contact.'),
  },
  'job.closed': {
    section: '§2.7',
    usual: ['lead_id', 'outcome', 'attempts', 'occurred_at'],
    ends: true,
    acceptCheckId: 'B-ACCEPT-005',
    sample: ({ envelope, occurredAt }) => ({ ...envelope, outcome: 'no_answer', attempts: 3, occurred_at: occurredAt }),
  },
} as const satisfies Record<string, EventTypeSpec>;

/** §6: the event types of Interface B. */
export type EventType = keyof typeof EVENT_TYPE_SPECS;
export const EVENT_TYPES = Object.keys(EVENT_TYPE_SPECS) as readonly EventType[];

export function eventTypeSpec(type: EventType): EventTypeSpec {
  return EVENT_TYPE_SPECS[type];
}

/** Whether an event of `type` ends its conversation (§3); false for a type the spec does not name. */
export function endsConversation(type: string): boolean {
  return Object.hasOwn(EVENT_TYPE_SPECS, type) && EVENT_TYPE_SPECS[type as EventType].ends;
}
