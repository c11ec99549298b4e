/**
 * The two senders of the interface: contact jobs (Interface A, §4.1) and events (Interface B, §4.2).
 * They deliver with the retry policy (deliver.ts) and then judge the answer: the job acknowledgment of
 * §2.3 / §4.1, and the new-vs-duplicate answer of §2.13 / §6.1.
 */
import { checkEventAck, checkJobAck, type AckCheck } from '../spec/acknowledgment.js';
import { CONTACT_JOBS_PATH, HeaderNames } from '../spec/constants.js';
import { eventIdOf } from '../spec/json.js';
import type { HttpResponse } from './client.js';
import { deliver, type DeliverOptions, type DeliveryResult } from './deliver.js';

export type SendVerdict = 'accepted' | 'duplicate' | 'rejected' | 'failed';

export interface SendResult {
  interface: 'A' | 'B';
  url: string;
  /** The `event_id` of the body, when it has one: the same on every attempt. */
  eventId?: string;
  verdict: SendVerdict;
  delivery: DeliveryResult;
  /** The acknowledgment check, when a 2xx arrived. */
  ack?: AckCheck;
}

/**
 * A duplicate answer to a send of cai's own whose earlier attempt got no answer (a time-out, a cut connection): that
 * attempt reached the receiver, which recorded it, and the retry is the repeat (§2.13), not a document sent before.
 */
export function repeatOfOwnAttempt(result: SendResult): boolean {
  const { attempts } = result.delivery;
  return (
    result.verdict === 'duplicate' &&
    attempts.slice(0, -1).some((attempt) => attempt.status === undefined && attempt.error !== undefined)
  );
}

export interface SendEventRequest {
  /** `{events_url}` (§4.2), used as given. */
  to: string;
  body: Uint8Array;
  /** The events-direction secret (§5.1). */
  secret: string;
  /** `X-CAI-Provider` (§4.2). */
  provider: string;
  /** The body's event_id when the caller already knows it (saves parsing the body again). */
  eventId?: string;
}

/** A contact job: `to` is `{provider_endpoint}`, `/contact-jobs` appended, with the jobs secret and `X-CAI-Source` (§4.1, §5.1). */
export type SendJobRequest = Omit<SendEventRequest, 'provider'> & { source: string };

/** `{provider_endpoint}/contact-jobs`; a URL that already ends with the path is used as is. */
export function contactJobsUrl(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(CONTACT_JOBS_PATH)) url.pathname = `${path}${CONTACT_JOBS_PATH}`;
  return url.toString();
}

export async function sendJob(request: SendJobRequest, options: DeliverOptions = {}): Promise<SendResult> {
  const url = contactJobsUrl(request.to);
  return send('A', url, request, { [HeaderNames.source]: request.source }, checkJobAck, options);
}

export async function sendEvent(request: SendEventRequest, options: DeliverOptions = {}): Promise<SendResult> {
  return send('B', request.to, request, { [HeaderNames.provider]: request.provider }, checkEventAck, options);
}

/** Delivers a document with its identity header (§4.1, §4.2), then judges the answer. */
async function send(
  iface: 'A' | 'B',
  url: string,
  request: SendJobRequest | SendEventRequest,
  identity: Record<string, string>,
  check: (response: HttpResponse) => AckCheck,
  options: DeliverOptions,
): Promise<SendResult> {
  const headers = { 'Content-Type': 'application/json', ...identity };
  const delivery = await deliver({ url, body: request.body, secret: request.secret, headers }, options);
  return judge(iface, url, request.body, delivery, check, request.eventId);
}

/** Turns a delivery into a verdict: a 2xx is accepted only when its body keeps the rules. */
export function judge(
  iface: 'A' | 'B',
  url: string,
  body: Uint8Array,
  delivery: DeliveryResult,
  check: (response: HttpResponse) => AckCheck,
  knownEventId?: string,
): SendResult {
  const eventId = knownEventId ?? eventIdOf(body);
  const result: SendResult = { interface: iface, url, verdict: 'failed', delivery };
  if (eventId !== undefined) result.eventId = eventId;
  if (delivery.outcome !== 'accepted' || !delivery.response) {
    result.verdict = delivery.outcome === 'rejected' ? 'rejected' : 'failed';
    return result;
  }
  const ack = check(delivery.response);
  result.verdict = !ack.ok ? 'rejected' : ack.duplicate ? 'duplicate' : 'accepted';
  result.ack = ack;
  return result;
}
