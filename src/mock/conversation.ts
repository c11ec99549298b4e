import { randomBytes } from 'node:crypto';
import { usageError } from '../errors.js';
import { OUTCOMES } from '../spec/constants.js';

export type Outcome = (typeof OUTCOMES)[number];

/** How a simulated conversation ends (§3 step 5, §6): booked, then maybe moved or cancelled, or closed. */
export type Scenario =
  | { kind: 'booked' }
  | { kind: 'rescheduled' }
  | { kind: 'cancelled' }
  | { kind: 'closed'; outcome: Outcome }
  | { kind: 'random' };

export const SCENARIO_NAMES = [
  'booked',
  'rescheduled',
  'cancelled',
  ...OUTCOMES.map((o) => `closed:${o}`),
  'random',
] as const;

/** `booked | rescheduled | cancelled | closed:<outcome> | random`; anything else is a usage error. */
export function parseScenario(text: string): Scenario {
  if (text === 'booked' || text === 'rescheduled' || text === 'cancelled' || text === 'random') return { kind: text };
  const match = /^closed:(.+)$/.exec(text);
  if (match && (OUTCOMES as readonly string[]).includes(match[1] as string))
    return { kind: 'closed', outcome: match[1] as Outcome };
  throw usageError('bad_scenario', `unknown scenario "${text}"`, `choose one of: ${SCENARIO_NAMES.join(', ')}`);
}

export function scenarioName(scenario: Scenario): string {
  return scenario.kind === 'closed' ? `closed:${scenario.outcome}` : scenario.kind;
}

/** §2.9 intent → the likeliest ending, when no --scenario is given. */
export function scenarioForIntent(intent: unknown): Scenario {
  switch (intent) {
    case 'reschedule':
      return { kind: 'rescheduled' };
    case 'pricing_information':
      return { kind: 'closed', outcome: 'callback_later' };
    case 'service_information':
      return { kind: 'closed', outcome: 'not_interested' };
    case 'other':
      return { kind: 'closed', outcome: 'no_answer' };
    default:
      // book_appointment, follow_up, or no brief: the happy path.
      return { kind: 'booked' };
  }
}

/** The parts of a contact job (§2.2) a conversation needs. */
export interface JobFacts {
  leadId: string;
  providerJobId: string;
  branchCode: string;
  branchName: string;
  contactName: string;
  contactPhone: string;
  assignedNumber: string;
  originChannel?: string;
  notes?: string;
}

/** One event to send after waiting `delayMs` (before --speed); `occurred_at` is stamped when it is sent. */
export interface Step {
  delayMs: number;
  document: Record<string, unknown>;
}

const SERVICE = 'first consultation';

/**
 * The §3 lifecycle as a list of Interface B events: the conversation in both directions (§2.5), then the
 * result, an appointment event (§2.6) or job.closed with an outcome (§2.7).
 */
export function buildConversation(
  job: JobFacts,
  scenario: Exclude<Scenario, { kind: 'random' }>,
  now: () => number,
): Step[] {
  const first = job.contactName.split(/\s+/)[0] || job.contactName;
  const steps: Step[] = [];
  const { say, appointment, closed } = stepWriters(job, steps);
  const opening = `Hi ${first}, this is the assistant of ${job.branchName}. ${job.notes ? `You asked: "${truncate(job.notes, 80)}". ` : ''}Can I help you book a visit?`;
  if (scenario.kind === 'closed' && scenario.outcome === 'no_answer') {
    say(3_000, 'outbound', opening);
    say(
      60_000,
      'outbound',
      `Hi ${first}, just following up on your request to ${job.branchName}. Reply here whenever suits you.`,
    );
    say(
      120_000,
      'outbound',
      `Last message from ${job.branchName}: we'll close your request for now. Write back any time.`,
    );
    closed(5_000, 'no_answer', 3);
    return steps;
  }
  say(3_000, 'outbound', opening);
  if (scenario.kind === 'closed') {
    const replies: Record<Exclude<Outcome, 'no_answer'>, [string, string]> = {
      not_interested: ["Thanks, but I'm not interested any more.", 'Understood, thank you for letting us know.'],
      wrong_number: [`Sorry, wrong number, I'm not ${first}.`, 'Apologies for the message, we will not write again.'],
      callback_later: [
        "I'm busy this week, can you write again next week?",
        'Of course, we will be in touch next week.',
      ],
      opted_out: ['STOP. Please do not contact me again.', 'Done: you will not be contacted again.'],
    };
    const [reply, answer] = replies[scenario.outcome as Exclude<Outcome, 'no_answer'>];
    say(20_000, 'inbound', reply);
    say(4_000, 'outbound', answer);
    closed(2_000, scenario.outcome, 1);
    return steps;
  }
  const slot = nextSlot(now(), 2);
  say(20_000, 'inbound', 'Yes please, mornings are best for me.');
  say(5_000, 'outbound', `I can offer ${describeSlot(slot)} at ${job.branchName}. Shall I book it?`);
  say(15_000, 'inbound', 'Perfect, please book it.');
  appointment(2_000, 'appointment.booked', slot, `Booked by chat; the contact prefers mornings.`);
  say(1_000, 'outbound', `Booked: ${describeSlot(slot)}, ${job.branchName}. See you then!`);
  if (scenario.kind === 'rescheduled') {
    const later = nextSlot(slot.getTime(), 3);
    say(30_000, 'inbound', 'Something came up, could we move it to later in the week?');
    say(5_000, 'outbound', `No problem: ${describeSlot(later)} instead?`);
    say(10_000, 'inbound', 'Yes, that works.');
    appointment(
      2_000,
      'appointment.rescheduled',
      later,
      `Moved at the contact's request from ${offsetIso(slot.getTime())}.`,
    );
  } else if (scenario.kind === 'cancelled') {
    say(30_000, 'inbound', "I'm sorry, I need to cancel the appointment.");
    say(5_000, 'outbound', 'Cancelled. Write to us any time to book again.');
    appointment(2_000, 'appointment.cancelled', slot, 'Cancelled by the contact by chat.');
  }
  return steps;
}

/**
 * The writers of a conversation's steps, each appending one Interface B event about `job` to `steps`: a message
 * (§2.5), an appointment event (§2.6), job.closed (§2.7).
 */
function stepWriters(job: JobFacts, steps: Step[]) {
  const channel = channelFor(job.originChannel);
  const add = (delayMs: number, document: Record<string, unknown>) => steps.push({ delayMs, document });
  const say = (delayMs: number, direction: 'inbound' | 'outbound', text: string) =>
    add(delayMs, {
      event: 'conversation.message',
      event_id: newEventId(),
      lead_id: job.leadId,
      provider_job_id: job.providerJobId,
      channel,
      from_number_e164: direction === 'outbound' ? job.assignedNumber : job.contactPhone,
      direction,
      author: direction === 'outbound' ? 'agent' : 'contact',
      text,
    });
  const appointment = (delayMs: number, event: string, scheduledAt: Date, notes: string) =>
    add(delayMs, {
      event,
      event_id: newEventId(),
      lead_id: job.leadId,
      branch_code: job.branchCode,
      scheduled_at: offsetIso(scheduledAt.getTime()),
      service: SERVICE,
      notes,
    });
  const closed = (delayMs: number, outcome: Outcome, attempts: number) =>
    add(delayMs, { event: 'job.closed', event_id: newEventId(), lead_id: job.leadId, outcome, attempts });
  return { say, appointment, closed };
}

export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** §2.1: ISO 8601 with an explicit offset. */
export function offsetIso(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '+00:00');
}

/** A weekday morning `days` ahead at 10:30 UTC. */
function nextSlot(fromMs: number, days: number): Date {
  const date = new Date(fromMs);
  date.setUTCDate(date.getUTCDate() + days);
  while (date.getUTCDay() === 0 || date.getUTCDay() === 6) date.setUTCDate(date.getUTCDate() + 1);
  date.setUTCHours(10, 30, 0, 0);
  return date;
}

/** One formatter for every slot: `toLocaleDateString` builds a new one per call, a third of a mock conversation's CPU. */
let slotDays: Intl.DateTimeFormat | undefined;

function describeSlot(date: Date): string {
  slotDays ??= new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
  return `${slotDays.format(date)} at 10:30`;
}

/** §2.8 origin channel → §2.10 conversation channel. */
function channelFor(origin: string | undefined): string {
  if (origin === 'webchat') return 'webchat';
  if (origin === 'phone') return 'sms';
  return 'whatsapp';
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
