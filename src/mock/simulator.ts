/**
 * The provider mock's conversation simulator (§3): after a new job, the §3 lifecycle as Interface B events sent to
 * its callback_url, one after another, each signed with the callback secret (§5.1).
 */
import { setMaxListeners } from 'node:events';
import { errorMessage } from '../errors.js';
import { RetryRuns } from '../http/retry.js';
import { sleep } from '../http/server.js';
import { HeaderNames, OUTCOMES } from '../spec/constants.js';
import { E164_PATTERN } from '../spec/formats.js';
import { buildConversation, offsetIso, scenarioForIntent, type JobFacts, type Scenario } from './conversation.js';
import type { ProviderFault } from './faults.js';
import type { EventDelivery, EventRetry, EventSender } from './sender.js';

/** One Interface B event the provider mock sent (printed like the requests it receives). */
export interface SentEventEntry extends Omit<EventDelivery, 'interrupted'> {
  sent_at: string;
  direction: 'sent';
  provider_job_id: string;
  event: string;
  event_id: string;
  lead_id: string;
  url: string;
}

/** An event the simulator sent, with its body exactly as sent (for an observer such as the inspector). */
export interface ObservedEvent {
  entry: SentEventEntry;
  body: Buffer;
  /** The headers sent besides the per-attempt X-CAI-Timestamp and X-CAI-Signature. */
  headers: Readonly<Record<string, string>>;
}

/** §2.3: the job acknowledgment. */
export interface JobAck {
  provider_job_id: string;
  assigned_number_e164: string;
}

/** The fields of a valid contact job (§2.2) this mock reads. */
export interface JobDocument {
  lead_id: string;
  event_id: string;
  branch_code: string;
  city?: string;
  contact: { name: string; phone_e164: string };
  origin?: { channel?: string };
  brief?: { intent?: string; notes?: string };
  callback_url: string;
}

/** A callback attempt failed and will be retried (§7: 5xx, 429, network errors). */
export interface CallbackRetry extends EventRetry {
  event: string;
  event_id: string;
  url: string;
}

export interface SimulatorOptions {
  providerCode: string;
  /** The jobs secrets (`callback-wrong-secret` signs with the first). */
  secrets: readonly string[];
  /** The first signs the events (§5.1). */
  callbackSecrets: readonly string[];
  scenario?: Scenario;
  /** Divides every conversation delay. */
  speed: number;
  /** Names the branch in the conversation text. */
  branchName(branchCode: string): string | undefined;
  has(fault: ProviderFault): boolean;
  sendEvent: EventSender;
  onEvent?: (entry: SentEventEntry) => void;
  /** After onEvent: the event with its body (the inspector); absent, nothing is kept. */
  observeSent?: (sent: ObservedEvent) => void;
  onCallbackRetry?: (retry: CallbackRetry) => void;
  now(): number;
  random(): number;
}

/** Plays one conversation per new job; stop() ends them all between steps. */
export class ConversationSimulator {
  /** The events sent so far, in order. */
  readonly sent: SentEventEntry[] = [];
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly options: SimulatorOptions) {
    // One stop signal is shared by every conversation in flight, each waiting on it between steps: no leak.
    setMaxListeners(0, this.stopping.signal);
  }

  /** Starts the §3 lifecycle of a new job in the background (`jobTimestamp`: its X-CAI-Timestamp, for a fault). */
  start(job: JobDocument, ack: JobAck, jobTimestamp?: string): void {
    const run = this.play(job, ack, jobTimestamp);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Resolves when every conversation started so far has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Interrupts every conversation (between steps and in retry waits). */
  stop(): void {
    this.stopping.abort();
  }

  private async play(job: JobDocument, ack: JobAck, jobTimestamp: string | undefined): Promise<void> {
    const { options } = this;
    const signal = this.stopping.signal;
    for (const step of this.stepsOf(job, ack)) {
      await sleep(step.delayMs / options.speed, signal);
      if (signal.aborted) return;
      const document: Record<string, unknown> = { ...step.document, occurred_at: offsetIso(options.now()) };
      if (options.has('callback-invalid-event')) breakEnum(document);
      const body = Buffer.from(JSON.stringify(document));
      const headers = this.headers();
      const delivered = await this.deliver(job.callback_url, document, body, headers, jobTimestamp);
      const entry: SentEventEntry = {
        sent_at: new Date(options.now()).toISOString(),
        direction: 'sent',
        provider_job_id: ack.provider_job_id,
        event: String(document.event),
        event_id: String(document.event_id),
        lead_id: String(document.lead_id),
        url: job.callback_url,
        outcome: delivered.outcome,
        ...(delivered.status !== undefined ? { status: delivered.status } : {}),
        attempts: delivered.attempts,
        ...(delivered.error ? { error: delivered.error } : {}),
      };
      this.sent.push(entry);
      options.onEvent?.(entry);
      options.observeSent?.({ entry, body, headers });
      // A rejected or undeliverable event ends the conversation: the later ones would make no sense alone.
      if (delivered.outcome !== 'accepted') return;
    }
  }

  /** The conversation's events; `callback-no-ending` stops before the first result (§3 step 5). */
  private stepsOf(job: JobDocument, ack: JobAck) {
    const steps = buildConversation(this.factsOf(job, ack), this.scenarioFor(job), this.options.now);
    if (!this.options.has('callback-no-ending')) return steps;
    const ending = steps.findIndex((step) => step.document.event !== 'conversation.message');
    return ending < 0 ? steps : steps.slice(0, ending);
  }

  private scenarioFor(job: JobDocument): Exclude<Scenario, { kind: 'random' }> {
    const chosen = this.options.scenario ?? scenarioForIntent(job.brief?.intent);
    return chosen.kind === 'random' ? pickRandom(this.options.random) : chosen;
  }

  private factsOf(job: JobDocument, ack: JobAck): JobFacts {
    const { has } = this.options;
    return {
      leadId: has('callback-lead-changed')
        ? `${job.lead_id}-x`
        : has('callback-lead-id-normalised')
          ? job.lead_id.toLowerCase()
          : job.lead_id,
      providerJobId: has('callback-wrong-job-id') ? `${ack.provider_job_id}-conversation` : ack.provider_job_id,
      branchCode: job.branch_code,
      branchName: this.options.branchName(job.branch_code) ?? job.city ?? job.branch_code,
      contactName: job.contact.name,
      contactPhone: job.contact.phone_e164,
      assignedNumber: has('callback-wrong-number') ? anotherNumber(ack.assigned_number_e164) : ack.assigned_number_e164,
      originChannel: job.origin?.channel,
      notes: job.brief?.notes,
    };
  }

  private headers(): Record<string, string> {
    const { options } = this;
    const provider = options.has('callback-wrong-provider') ? `${options.providerCode}-other` : options.providerCode;
    return { 'Content-Type': 'application/json', [HeaderNames.provider]: provider };
  }

  private deliver(
    url: string,
    document: Record<string, unknown>,
    body: Buffer,
    headers: Record<string, string>,
    jobTimestamp: string | undefined,
  ) {
    const { options } = this;
    const secret = options.has('callback-wrong-secret')
      ? (options.secrets[0] as string)
      : (options.callbackSecrets[0] as string);
    const say = (retry: EventRetry) =>
      options.onCallbackRetry?.({ event: String(document.event), event_id: String(document.event_id), url, ...retry });
    // A run of the same answer is said twice: its first retry, then, when it ends, one line for the rest of it.
    const runs = new RetryRuns<EventRetry>((retry, repeats) =>
      say(
        repeats
          ? {
              ...retry,
              reason: `${retry.reason} again, on attempts ${repeats.first.attempt}–${retry.attempt} (${repeats.count} times)`,
            }
          : retry,
      ),
    );
    return options
      .sendEvent(
        { url, body, secret, headers, ...(jobTimestamp ? { jobTimestamp } : {}) },
        this.stopping.signal,
        (retry) => runs.retry(retry.reason, retry),
      )
      .catch((error: unknown) => ({
        outcome: 'failed' as const,
        attempts: 1,
        error: errorMessage(error),
        interrupted: false,
        status: undefined,
      }))
      .finally(() => runs.end());
  }
}

/** Every ending a conversation can have (§2.12's outcomes in their order), picked with one random number. */
const ENDINGS: readonly Exclude<Scenario, { kind: 'random' }>[] = [
  { kind: 'booked' },
  { kind: 'rescheduled' },
  { kind: 'cancelled' },
  ...OUTCOMES.map((outcome) => ({ kind: 'closed' as const, outcome })),
];

function pickRandom(random: () => number): Exclude<Scenario, { kind: 'random' }> {
  return ENDINGS[Math.floor(random() * ENDINGS.length) % ENDINGS.length] as Exclude<Scenario, { kind: 'random' }>;
}

/** The `callback-invalid-event` defect: a value outside its §2.10 / §2.12 enumeration. */
function breakEnum(document: Record<string, unknown>): void {
  if (document.event === 'conversation.message') document.channel = 'carrier_pigeon';
  else if (document.event === 'job.closed') document.outcome = 'ghosted';
  else document.event = 'appointment.maybe';
}

/** The `callback-wrong-number` defect: a number of the same range, not the one acknowledged (last digit moved on). */
function anotherNumber(number: string): string {
  const last = Number(number.at(-1) ?? '0');
  return `${number.slice(0, -1)}${(last + 1) % 10}`;
}

/** The `bad-ack` defect: the number in national format, as a careless provider would send it. */
export function nationalFormat(number: string): string {
  return E164_PATTERN.test(number) && number.startsWith('+44')
    ? `0${number.slice(3, 7)} ${number.slice(7)}`
    : number.replace(/^\+/, '00');
}
