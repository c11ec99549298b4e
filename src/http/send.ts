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

/** An event: `to` is `{events_url}` (§4.2), used as given, with the events secret and `X-CAI-Provider` (§4.2, §5.1). */
export type SendEventRequest = Omit<SendRequest, 'kind' | 'identity'> & { provider: string };

/** A contact job: `to` is `{provider_endpoint}`, `/contact-jobs` appended, with the jobs secret and `X-CAI-Source` (§4.1, §5.1). */
export type SendJobRequest = Omit<SendRequest, 'kind' | 'identity'> & { source: string };

/** `{provider_endpoint}/contact-jobs`; a URL that already ends with the path is used as is. */
export function contactJobsUrl(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(CONTACT_JOBS_PATH)) url.pathname = `${path}${CONTACT_JOBS_PATH}`;
  return url.toString();
}

export async function sendJob(request: SendJobRequest, options: DeliverOptions = {}): Promise<SendResult> {
  return sendDocument({ ...request, kind: 'job', identity: request.source }, options);
}

export async function sendEvent(request: SendEventRequest, options: DeliverOptions = {}): Promise<SendResult> {
  return sendDocument({ ...request, kind: 'event', identity: request.provider }, options);
}

export type SendKind = 'job' | 'event';

/** One document sent the way its kind is: a job to `{provider_endpoint}/contact-jobs` with X-CAI-Source (§4.1), an event to `{events_url}` with X-CAI-Provider (§4.2). */
export interface SendRequest {
  kind: SendKind;
  /** `--to`: the provider endpoint (job) or the events URL (event). */
  to: string;
  /** `X-CAI-Source` (job) or `X-CAI-Provider` (event). */
  identity: string;
  /** The signing secret of the direction (§5.1). */
  secret: string;
  body: Uint8Array;
  /** The body's event_id when the caller already knows it (saves parsing the body again). */
  eventId?: string;
}

/** Where a document of this kind goes, and the headers it carries before signing. */
export function sendTarget(
  kind: SendKind,
  to: string,
  identity: string,
): { url: string; headers: Record<string, string> } {
  return {
    url: kind === 'job' ? contactJobsUrl(to) : to,
    headers: {
      'Content-Type': 'application/json',
      [kind === 'job' ? HeaderNames.source : HeaderNames.provider]: identity,
    },
  };
}

/** Delivers one document with the retry policy, and judges the answer (§2.3 for a job, §2.13 for an event). */
export function sendDocument(request: SendRequest, options: DeliverOptions): Promise<SendResult> {
  return documentSender(request)(request.body, request.eventId, options);
}

/**
 * Many documents to one target (batch mode): the URL and headers worked out once, each document delivered and
 * judged as sendDocument would, without building them again or going through its layers for every document.
 */
export function documentSender(
  request: Omit<SendRequest, 'body' | 'eventId'>,
): (body: Uint8Array, eventId: string | undefined, options: DeliverOptions) => Promise<SendResult> {
  const { url, headers } = sendTarget(request.kind, request.to, request.identity);
  const iface = request.kind === 'job' ? 'A' : 'B';
  const check = sameAnswerSameCheck(request.kind === 'job' ? checkJobAck : checkEventAck);
  const secret = request.secret;
  return async (body, eventId, options) =>
    judge(iface, url, body, await deliver({ url, body, secret, headers }, options), check, eventId);
}

/**
 * An acknowledgment check that reuses its verdict when an answer repeats the previous one byte for byte (status,
 * Content-Type and body: all the checks of §2.3 / §2.13 read): a receiver answers thousands of documents alike, and
 * parsing each answer again costs more than comparing it. The verdict is shared between those results: read-only.
 */
function sameAnswerSameCheck(check: (response: HttpResponse) => AckCheck): (response: HttpResponse) => AckCheck {
  let last: { status: number; contentType: string | undefined; body: Buffer; ack: AckCheck } | undefined;
  return (response) => {
    const contentType = response.headers['content-type'];
    if (
      last !== undefined &&
      last.status === response.status &&
      last.contentType === contentType &&
      last.body.equals(response.body)
    )
      return last.ack;
    const ack = check(response);
    last = { status: response.status, contentType, body: response.body, ack };
    return ack;
  };
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
