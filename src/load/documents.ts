/**
 * The documents of a load run: the samples of `cai sample` (src/spec/sample.ts), each with an `event_id` of its
 * own and fresh times. A sample is made once and cut at its varying fields into a template, refreshed every
 * TEMPLATE_USES documents (other names, numbers and leads), so a document costs a few string joins rather than a
 * sample and a JSON.stringify: at thousands a second that is the difference.
 *
 * `event_id`s are unique within a run (a counter), across runs and across processes (a random run id of 64 bits):
 * `evt_<run>_<n>` (§2.4, §6.1: at most 120 characters).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { formatDateTime, sampleEvent, sampleJob } from '../spec/sample.js';
import type { EventType, InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';

/** Documents made from one template before a fresh sample is taken. */
const TEMPLATE_USES = 256;

const ID = '@@cai-load-id@@';
const AT = '@@cai-load-at@@';
const LEAD = '@@cai-load-lead@@';
const CALLBACK = '@@cai-load-callback@@';

/** A JSON text cut at the placeholders, joined again with the values of one document. */
interface Template {
  parts: string[];
  /** The placeholder between parts[i] and parts[i + 1]. */
  slots: string[];
  uses: number;
}

function cut(document: Record<string, unknown>): Template {
  const text = JSON.stringify(document);
  const parts: string[] = [];
  const slots: string[] = [];
  const pattern = new RegExp(`"(${[ID, AT, LEAD, CALLBACK].join('|')})"`, 'g');
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(last, match.index));
    slots.push(match[1] as string);
    last = (match.index as number) + match[0].length;
  }
  parts.push(text.slice(last));
  return { parts, slots, uses: 0 };
}

/** The time texts of the current second: the same second's text is reused (thousands of documents a second). */
class Clock {
  private second = Number.NaN;
  private text = '';

  constructor(private readonly offsetMs: number) {}

  dateTime(): string {
    const second = Math.floor((Date.now() + this.offsetMs) / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = formatDateTime(new Date(second * 1000));
    }
    return this.text;
  }
}

export interface DocumentFactoryOptions {
  interface: InterfaceId;
  /** Interface A: the branch_code of the jobs. */
  branchCode?: string;
  /** Interface A: each job's callback_url; `token` names the job (the callback listener's path). */
  callbackUrl?: (token: string) => string;
}

/** A document made for one request: its text (sent as UTF-8), its event_id and, for a job, the token of its callback_url. */
export interface MadeDocument {
  body: string;
  eventId: string;
  token: string;
}

export class DocumentFactory {
  /** 64 random bits: no two runs, here or on another machine, share an event_id. */
  readonly runId = randomBytes(8).toString('hex');
  private sequence = 0;
  private readonly templates = new Map<string, Template>();
  private readonly clock: Clock;
  /** Contact jobs (§2.2), or events (§2.4). */
  private readonly jobs: boolean;

  constructor(private readonly options: DocumentFactoryOptions) {
    this.jobs = interfaceSpec(options.interface).document === 'job';
    // §2.1: ISO 8601 with the offset; a job's captured_at is the minute before it is sent, as the sample's.
    this.clock = new Clock(this.jobs ? -60_000 : 0);
  }

  /** Interface B: a new event of `type`; Interface A: a new contact job (`type` is ignored). */
  make(type: EventType): MadeDocument {
    const token = (this.sequence++).toString(36);
    const eventId = `${this.jobs ? 'job' : 'evt'}_${this.runId}_${token}`;
    const key = this.jobs ? 'job' : type;
    let template = this.templates.get(key);
    if (template === undefined || template.uses >= TEMPLATE_USES) {
      template = cut(this.jobs ? this.jobSample() : eventSample(type));
      this.templates.set(key, template);
    }
    template.uses += 1;
    let text = template.parts[0] as string;
    for (let index = 0; index < template.slots.length; index += 1) {
      const slot = template.slots[index] as string;
      // Ids and times are letters, digits and `_:.+-`: quoted as they are; a callback URL goes through JSON.stringify.
      const value = this.valueOf(slot, eventId, token);
      text += (slot === CALLBACK ? JSON.stringify(value) : `"${value}"`) + (template.parts[index + 1] as string);
    }
    return { body: text, eventId, token };
  }

  private valueOf(slot: string, eventId: string, token: string): string {
    switch (slot) {
      case ID:
        return eventId;
      case AT:
        return this.clock.dateTime();
      case LEAD:
        return `lead_${this.runId.slice(0, 8)}${token}`;
      default:
        return this.options.callbackUrl ? this.options.callbackUrl(token) : '';
    }
  }

  private jobSample(): Record<string, unknown> {
    const job = sampleJob({
      ...(this.options.branchCode !== undefined ? { branchCode: this.options.branchCode } : {}),
    });
    const origin = job.origin as Record<string, unknown>;
    origin.captured_at = AT;
    return { ...job, event_id: ID, lead_id: LEAD, ...(this.options.callbackUrl ? { callback_url: CALLBACK } : {}) };
  }
}

/** An event sample with its id and time as placeholders; the lead and job are the sample's, shared by a template. */
function eventSample(type: EventType): Record<string, unknown> {
  const event = sampleEvent(type, { providerJobId: `job_${randomUUID().replace(/-/g, '').slice(0, 16)}` });
  return { ...event, event_id: ID, occurred_at: AT };
}
