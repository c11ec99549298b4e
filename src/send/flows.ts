/**
 * The flows `cai trigger` sends, as data (the way Stripe CLI's `stripe trigger` fixtures are): each flow of
 * Interface B is the events a provider sends for one lead (§3 step 5, §6), in order, each a step that names its event
 * type, when it occurred after the one before, and the fields it sets over the sample of its type
 * (src/spec/sample.ts). Building a flow gives every event the same `lead_id` and `provider_job_id`, a fresh
 * `event_id` (§6.1), and `occurred_at` times in order, the last one now (§2.1: ISO 8601 with an offset). Interface A
 * has one flow, `job`: one contact job, whose conversation comes back from the provider (./trigger-job.ts).
 * Pure data and functions: no I/O, no flag names.
 */
import { OUTCOMES, type EventType, type InterfaceId } from '../spec/constants.js';
import { formatDateTime, sampleE164, sampleEvent } from '../spec/sample.js';

/** Fields a step sets over its sample; a string `${name}` is replaced by that value of the flow (see FlowValues). */
type Fields = Readonly<Record<string, unknown>>;

export interface FlowStep {
  event: EventType;
  /** Seconds after the step before (0 for the first). */
  after: number;
  fields?: Fields;
}

export interface Flow {
  name: string;
  interface: InterfaceId;
  description: string;
  /** Interface B: the events, in order. Interface A (`job`): none, the provider sends them. */
  steps: readonly FlowStep[];
}

/** The values one run of a flow shares, for `${name}` in a step's fields. */
export interface FlowValues {
  lead_id: string;
  provider_job_id: string;
  branch_code: string;
  /** The provider's origin number for the lead (§2.3 assigned_number_e164) and the contact's (§2.2 phone_e164). */
  agent_number: string;
  contact_number: string;
}

/** A conversation.message (§2.5) of the agent or of the contact, `after` seconds after the step before. */
const agent = (after: number, text: string): FlowStep => ({
  event: 'conversation.message',
  after,
  fields: { direction: 'outbound', author: 'agent', from_number_e164: '${agent_number}', text },
});
const contact = (after: number, text: string): FlowStep => ({
  event: 'conversation.message',
  after,
  fields: { direction: 'inbound', author: 'contact', from_number_e164: '${contact_number}', text },
});

/**
 * A conversation that ends in a booking (§2.5, §2.6): the agent offers, the contact accepts, the agent confirms, and
 * the booking itself, sent at the moment of confirmation (§8). Every flow ends with its result event.
 */
const BOOKING: readonly FlowStep[] = [
  agent(
    0,
    'Hello, this is the clinic assistant. You asked about an appointment: would the day after tomorrow at 10:30 suit you?',
  ),
  contact(40, 'Yes please, mornings are best for me.'),
  agent(15, 'Booked: the day after tomorrow at 10:30. See you then!'),
  {
    event: 'appointment.booked',
    after: 1,
    fields: { notes: 'Booked by the agent over WhatsApp; the contact prefers mornings.' },
  },
];

/** The outcomes of job.closed (§2.12), each as a short conversation (or none answered) and its closing event (§2.7). */
const CLOSINGS: Readonly<Record<(typeof OUTCOMES)[number], { description: string; steps: readonly FlowStep[] }>> = {
  no_answer: {
    description: 'three messages without a reply, then job.closed with outcome no_answer',
    steps: [
      agent(0, 'Hello, this is the clinic assistant about your request. When would suit you for a visit?'),
      agent(60, 'Just following up on your request. Reply here whenever suits you.'),
      agent(120, "Last message from us: we'll close your request for now. Write back any time."),
      { event: 'job.closed', after: 5, fields: { outcome: 'no_answer', attempts: 3 } },
    ],
  },
  not_interested: closing(
    'not_interested',
    "Thanks, but I'm not interested any more.",
    'Understood, thank you for letting us know.',
  ),
  wrong_number: closing(
    'wrong_number',
    "Sorry, wrong number: that isn't me.",
    'Apologies for the message, we will not write again.',
  ),
  callback_later: closing(
    'callback_later',
    "I'm busy this week, can you write again next week?",
    'Of course, we will be in touch next week.',
  ),
  opted_out: closing('opted_out', 'STOP. Please do not contact me again.', 'Done: you will not be contacted again.'),
};

function closing(outcome: string, reply: string, answer: string): { description: string; steps: readonly FlowStep[] } {
  return {
    description: `a reply that ends it, then job.closed with outcome ${outcome}`,
    steps: [
      agent(0, 'Hello, this is the clinic assistant about your request. Can I help you book a visit?'),
      contact(30, reply),
      agent(5, answer),
      { event: 'job.closed', after: 2, fields: { outcome, attempts: 1 } },
    ],
  };
}

/** Every flow, in the order `cai trigger --list` names them. */
export const FLOWS: readonly Flow[] = [
  {
    name: 'appointment-booked',
    interface: 'B',
    description: 'a conversation, then appointment.booked',
    steps: BOOKING,
  },
  {
    name: 'appointment-rescheduled',
    interface: 'B',
    description: 'a booking, then the contact asks to move it: appointment.rescheduled',
    steps: [
      ...BOOKING,
      contact(90, 'Something came up, could we move it one day later?'),
      agent(10, 'No problem: one day later at 10:30 instead.'),
      { event: 'appointment.rescheduled', after: 1, fields: { notes: 'Moved at the contact’s request.' } },
    ],
  },
  {
    name: 'appointment-cancelled',
    interface: 'B',
    description: 'a booking, then the contact cancels it: appointment.cancelled',
    steps: [
      ...BOOKING,
      contact(90, "I'm sorry, I need to cancel the appointment."),
      agent(10, 'Cancelled. Write to us any time to book again.'),
      { event: 'appointment.cancelled', after: 1, fields: { notes: 'Cancelled by the contact by chat.' } },
    ],
  },
  ...OUTCOMES.map(
    (outcome): Flow => ({
      name: `job-closed-${outcome.replace(/_/g, '-')}`,
      interface: 'B',
      description: CLOSINGS[outcome].description,
      steps: CLOSINGS[outcome].steps,
    }),
  ),
  {
    name: 'job',
    interface: 'A',
    description: 'one contact job to a provider; its conversation is shown as the provider sends it back',
    steps: [],
  },
];

/** The flow named `name`; `appointment.booked` and `job_closed_no_answer` are read as `appointment-booked`, `job-closed-no-answer`. */
export function findFlow(name: string): Flow | undefined {
  const wanted = name.trim().toLowerCase().replace(/[._:]/g, '-');
  return FLOWS.find((flow) => flow.name === wanted);
}

export function flowNames(): string[] {
  return FLOWS.map((flow) => flow.name);
}

export interface FlowOptions {
  /** The lead of every event (default: a fresh one). */
  leadId?: string;
  branchCode?: string;
  /** When the last event occurred (default now); the others are before it, by their steps' `after`. */
  now?: Date;
}

/** One event of a built flow: its type and the document to send. */
export interface FlowEvent {
  event: EventType;
  document: Record<string, unknown>;
}

/**
 * The events of a flow of Interface B, ready to send: each the sample of its type (every field its section lists)
 * with the step's fields, the flow's lead, job and numbers, a fresh event_id and its place in the timeline.
 */
export function buildFlow(flow: Flow, options: FlowOptions = {}): { values: FlowValues; events: FlowEvent[] } {
  const first = sampleEvent('conversation.message', {
    ...(options.leadId !== undefined ? { leadId: options.leadId } : {}),
  });
  const values: FlowValues = {
    lead_id: String(first.lead_id),
    provider_job_id: String(first.provider_job_id),
    branch_code: options.branchCode ?? String(sampleEvent('appointment.booked').branch_code),
    agent_number: sampleE164(),
    contact_number: sampleE164(),
  };
  const end = (options.now ?? new Date()).getTime();
  const span = flow.steps.reduce((total, step) => total + step.after, 0);
  let at = end - span * 1000;
  const events = flow.steps.map((step): FlowEvent => {
    at += step.after * 1000;
    const occurred = new Date(at);
    const sample = sampleEvent(step.event, {
      leadId: values.lead_id,
      providerJobId: values.provider_job_id,
      branchCode: values.branch_code,
      now: occurred,
    });
    const document = { ...sample, ...resolve(step.fields ?? {}, values), occurred_at: formatDateTime(occurred) };
    return { event: step.event, document };
  });
  return { values, events };
}

/** `${name}` strings replaced by the flow's values; anything else as it is. */
function resolve(fields: Fields, values: FlowValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const reference = typeof value === 'string' ? /^\$\{([a-z_]+)\}$/.exec(value)?.[1] : undefined;
    out[key] = reference !== undefined && reference in values ? values[reference as keyof FlowValues] : value;
  }
  return out;
}
