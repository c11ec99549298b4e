/**
 * The provider of Interface A as the model sees what it sends back (§3 step 5): each job it accepted starts one
 * conversation whose events go to that job's callback_url; every event carries the job's lead_id unmodified (§2.2);
 * where they carry them, the acknowledgment's provider_job_id (§2.3, §2.4) and, on outbound messages, the number it
 * assigned (§2.3); the conversation ends in an appointment or job.closed (§3, §6); a repeated job starts none (§2.2).
 * How each event is signed, shaped and retried is the sender model's (./sender.ts).
 */
import { endsConversation } from '../event-types.js';
import { asObject } from '../json.js';
import type { Term } from './answers.js';

/** What the job and its acknowledgment fixed. */
export interface JobFacts {
  leadId: string;
  providerJobId?: unknown;
  assignedNumber?: string;
}

export type EventTermId = 'lead' | 'provider-job-id' | 'from-number';

/** A term of an event (an event that is not a JSON object is undefined: it has no lead_id). */
export type EventTerm = Term<EventTermId, Record<string, unknown> | undefined>;

/**
 * The terms every event of one job is judged by. §2.4 leaves each field's presence to the event type, and the spec
 * does not say in so many words that events repeat the acknowledgment's values: those two are `should`.
 */
export function jobEventTerms(job: JobFacts): EventTerm[] {
  const terms: EventTerm[] = [
    {
      id: 'lead',
      level: 'must',
      clauses: ['§2.2-3'],
      expected: `lead_id ${JSON.stringify(job.leadId)}`,
      breach: (event) => (event?.lead_id === job.leadId ? undefined : `lead_id ${JSON.stringify(event?.lead_id)}`),
    },
  ];
  if (typeof job.providerJobId === 'string') {
    terms.push({
      id: 'provider-job-id',
      level: 'should',
      clauses: ['§2.3-1'],
      expected: `provider_job_id ${JSON.stringify(job.providerJobId)} where present`,
      breach: (event) =>
        event === undefined || !('provider_job_id' in event) || event.provider_job_id === job.providerJobId
          ? undefined
          : `provider_job_id ${JSON.stringify(event.provider_job_id)}`,
    });
  }
  if (job.assignedNumber !== undefined) {
    terms.push({
      id: 'from-number',
      level: 'should',
      clauses: ['§2.3-2'],
      expected: `from_number_e164 ${job.assignedNumber} on outbound messages`,
      breach: (event) => {
        if (event?.event !== 'conversation.message' || event.direction !== 'outbound' || !('from_number_e164' in event))
          return undefined;
        return event.from_number_e164 === job.assignedNumber
          ? undefined
          : `from_number_e164 ${JSON.stringify(event.from_number_e164)}`;
      },
    });
  }
  return terms;
}

/** An event a conversation ends in (§3 step 5: an appointment, or a closing outcome), of a type §6 names or not. */
export function isEndingEvent(type: unknown): boolean {
  return typeof type === 'string' && (endsConversation(type) || type.startsWith('appointment.'));
}

/**
 * §2.2: a repeated job is ignored, so it starts no second conversation: the job sent twice ends no more often than
 * the same job sent once. The breach, or undefined.
 */
export function secondConversation(endingsOnce: number, endingsTwice: number): string | undefined {
  return endingsTwice > endingsOnce
    ? `${endingsTwice} ending events where the job sent once had ${endingsOnce}: a second conversation`
    : undefined;
}

/** The event of a body, when it is a JSON object. */
export const eventObject = asObject;
