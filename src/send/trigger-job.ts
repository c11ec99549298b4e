/**
 * `cai trigger job`: one contact job sent to a provider (Interface A, §4.1), its `callback_url` the platform's
 * reference receiver (src/mock/platform.ts, the mock's receive pipeline: signature with the events secret, the
 * provider code, the schema, dedupe, §4.2, §5) started here, and the provider's events for it (§3 step 5) handed to
 * the caller as they arrive, until the conversation has ended (an appointment or job.closed, then a quiet moment),
 * the wait is over, or the caller stops. The time to first contact, from the provider's acceptance of the job to the
 * arrival of its first outbound message, is judged against §8 (5 minutes). Returns a result; renders nothing.
 */
import { MAX_WALK_DEPTH } from '../bounds.js';
import type { DeliverOptions } from '../http/deliver.js';
import { sleep } from '../http/server.js';
import { startMockPlatform, type ObservedRequest } from '../mock/platform.js';
import { FIRST_CONTACT_TARGET_SECONDS } from '../spec/constants.js';
import { endsConversation } from '../spec/event-types.js';
import { isObject } from '../spec/json.js';
import { jsonNestingDepth } from '../spec/json-syntax.js';
import { sampleJob } from '../spec/sample.js';
import { sendDocument, type SendResult } from '../http/send.js';

export const FIRST_CONTACT_TARGET_MS = FIRST_CONTACT_TARGET_SECONDS * 1000;

export interface JobTrigger {
  /** The provider endpoint; /contact-jobs is appended (§4.1). */
  to: string;
  /** X-CAI-Source (§4.1) and the jobs secret (§5.1). */
  source: string;
  secret: string;
  /** The provider code its events must carry (X-CAI-Provider, §5.6), and the events secrets that verify them (§5.1). */
  providerCode: string;
  callbackSecrets: readonly string[];
  /** Where the listener listens, and the address the provider reaches it at (default its own; its path is appended). */
  listen: { host: string; port: number };
  publicUrl?: string;
  leadId?: string;
  branchCode?: string;
}

export interface JobTriggerOptions {
  deliver: DeliverOptions;
  /** The longest the provider's events are waited for, from the job's acceptance. */
  waitMs: number;
  /** After an ending event (an appointment, job.closed), how long nothing more must come for the conversation to be over. */
  quietMs: number;
  /** Stops listening (a clean Ctrl-C). */
  stopSignal?: AbortSignal;
  /** The listener is up: the job is about to be sent with this callback_url. */
  onListening?(callbackUrl: string, job: Record<string, unknown>): void;
  onJob?(result: SendResult): void;
  onCallback?(callback: Callback): void;
  clock?: () => number;
}

/** One request to the callback_url, as the platform's receiver judged it. */
export interface Callback {
  /** Since the job was accepted. */
  afterMs: number;
  verdict: 'accepted' | 'duplicate' | 'rejected';
  status: number;
  /** Why it was refused: the receiver's reason code and message (a signature, a schema, a provider code). */
  reason?: string;
  message?: string;
  event?: string;
  eventId?: string;
  /** The document, when it was accepted (or a duplicate). */
  document?: Record<string, unknown>;
  /** Instead of `document`, the text of one nested deeper than MAX_WALK_DEPTH (src/bounds.ts). */
  body?: string;
  /** The event's lead_id is not the job's. */
  otherLead?: boolean;
}

export type JobOutcome = Awaited<ReturnType<typeof triggerJob>>;

/** What ended the listening. */
type JobEnd = 'conversation-over' | 'refused' | 'waited' | 'interrupted' | 'not-accepted';

export async function triggerJob(trigger: JobTrigger, options: JobTriggerOptions) {
  const clock = options.clock ?? Date.now;
  const callbacks: Callback[] = [];
  let acceptedAt: number | undefined;
  let wake: () => void = () => {};
  // Set once the listener's address is known; an event cannot come before (its address is in the job).
  let job: Record<string, unknown> = {};
  const listener = await startMockPlatform({
    host: trigger.listen.host,
    port: trigger.listen.port,
    providerCode: trigger.providerCode,
    secrets: trigger.callbackSecrets,
    keepRecords: false,
    observe: (observed) => {
      const callback = callbackOf(observed, clock() - (acceptedAt ?? clock()), job);
      callbacks.push(callback);
      options.onCallback?.(callback);
      wake();
    },
  });
  // A public address (a tunnel to the listener) takes the listener's path, where the receiver takes events (§4.2).
  const callbackUrl =
    trigger.publicUrl === undefined
      ? listener.url
      : `${trigger.publicUrl.replace(/\/+$/, '')}${new URL(listener.url).pathname}`;
  job = sampleJob({ callbackUrl, ...(trigger.branchCode !== undefined ? { branchCode: trigger.branchCode } : {}) });
  if (trigger.leadId !== undefined) job.lead_id = trigger.leadId;
  try {
    options.onListening?.(callbackUrl, job);
    const body = Buffer.from(JSON.stringify(job));
    const sent = await sendDocument(
      {
        kind: 'job',
        to: trigger.to,
        identity: trigger.source,
        secret: trigger.secret,
        body,
        eventId: String(job.event_id),
      },
      options.deliver,
    );
    options.onJob?.(sent);
    const outcome = (end: JobEnd) => ({
      job,
      callbackUrl,
      sent,
      callbacks,
      targetMs: FIRST_CONTACT_TARGET_MS,
      end,
      ...firstContact(callbacks),
    });
    if (sent.verdict !== 'accepted' && sent.verdict !== 'duplicate') return outcome('not-accepted');
    acceptedAt = clock();
    const end = await waitForConversation(callbacks, options, clock, acceptedAt, (next) => (wake = next));
    return outcome(end);
  } finally {
    await listener.close();
  }
}

/** Since the job's acceptance: the first outbound message (§2.5: direction outbound, the agent or a human of the provider) accepted. */
function firstContact(callbacks: readonly Callback[]): { firstContactMs?: number } {
  const first = callbacks.find(
    (callback) =>
      callback.verdict === 'accepted' &&
      callback.event === 'conversation.message' &&
      callback.document?.direction === 'outbound',
  );
  return first === undefined ? {} : { firstContactMs: first.afterMs };
}

function callbackOf(observed: ObservedRequest, afterMs: number, job: Record<string, unknown>): Callback {
  const { entry } = observed;
  const verdict = entry.verdict === 'accepted' || entry.verdict === 'duplicate' ? entry.verdict : 'rejected';
  const callback: Callback = { afterMs, verdict, status: entry.status };
  if (entry.reason !== undefined) callback.reason = entry.reason;
  if (entry.message !== undefined) callback.message = entry.message;
  if (entry.event !== undefined) callback.event = entry.event;
  if (entry.event_id !== undefined) callback.eventId = entry.event_id;
  if (verdict !== 'rejected' && observed.body !== undefined) {
    const text = observed.body.toString('utf8');
    // A document nested deeper than cai's recursive walks go (an unknown field may nest at will, §9.2) is kept as
    // its text: `--json` would overflow the stack printing its parsed form (docs/limits.md).
    if (jsonNestingDepth(text) > MAX_WALK_DEPTH) callback.body = text;
    else
      try {
        const document = JSON.parse(text) as unknown;
        if (isObject(document)) callback.document = document;
      } catch {
        // Accepted documents are JSON (the receiver parsed them); nothing to show otherwise.
      }
  }
  if (entry.lead_id !== undefined && entry.lead_id !== job.lead_id) callback.otherLead = true;
  return callback;
}

/**
 * An ending event (§3 step 5) the provider will not send again: accepted, a repeat, or refused with a status §7 says
 * not to retry (400, 401, 413): a conversation whose every event was refused ends there too, not at `waitMs`.
 */
function isFinalEnding(callback: Callback): boolean {
  if (callback.event === undefined || !endsConversation(callback.event)) return false;
  return callback.verdict !== 'rejected' || isFinalRefusal(callback);
}

/** A request of the provider refused with a status §7 says not to retry: it will not come again. */
function isFinalRefusal(callback: Callback): boolean {
  return callback.verdict === 'rejected' && [400, 401, 413].includes(callback.status);
}

/**
 * Until the conversation is over (an ending event, §3 step 5, then `quietMs` without another), `waitMs` from the
 * job's acceptance, or a stop. `onArrival` is given the function that wakes the wait when an event arrives.
 */
async function waitForConversation(
  callbacks: readonly Callback[],
  options: JobTriggerOptions,
  clock: () => number,
  acceptedAt: number,
  onArrival: (wake: () => void) => void,
): Promise<JobEnd> {
  const deadline = acceptedAt + options.waitMs;
  for (;;) {
    if (options.stopSignal?.aborted) return 'interrupted';
    const now = clock();
    if (now >= deadline) return 'waited';
    // Over after the quiet that follows an ending event; or, once an event was refused for good (the run has
    // failed: exit 1 whatever comes next, and a provider may stop at a refusal), after the quiet that follows it.
    const ended = callbacks.some(isFinalEnding);
    const refused = !ended && callbacks.some(isFinalRefusal);
    const last = callbacks.at(-1);
    const quietUntil =
      (ended || refused) && last !== undefined ? acceptedAt + last.afterMs + options.quietMs : undefined;
    if (quietUntil !== undefined && now >= quietUntil) return ended ? 'conversation-over' : 'refused';
    await sleepUntil(Math.min(deadline, quietUntil ?? deadline) - now, options.stopSignal, onArrival);
  }
}

/** Sleeps `ms`, or until an event arrives, or until the stop. */
async function sleepUntil(ms: number, stop: AbortSignal | undefined, onArrival: (wake: () => void) => void) {
  const arrived = new AbortController();
  onArrival(() => arrived.abort());
  await sleep(Math.max(0, ms), stop ? AbortSignal.any([stop, arrived.signal]) : arrived.signal);
  onArrival(() => {});
}
