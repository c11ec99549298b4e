/**
 * One document sent the way its kind is: a contact job to `{provider_endpoint}/contact-jobs` with X-CAI-Source
 * (§4.1), an event to `{events_url}` with X-CAI-Provider (§4.2).
 */
import { deliver, type DeliverOptions } from '../http/deliver.js';
import { contactJobsUrl, judge, sendEvent, sendJob, type SendResult } from '../http/send.js';
import { checkEventAck, checkJobAck } from '../spec/acknowledgment.js';
import { HeaderNames } from '../spec/constants.js';

export type SendKind = 'job' | 'event';

export interface SendRequest {
  kind: SendKind;
  /** `--to`: the provider endpoint (job) or the events URL (event). */
  to: string;
  /** `X-CAI-Source` (job) or `X-CAI-Provider` (event). */
  identity: string;
  /** The signing secret of the direction (§5.1). */
  secret: string;
  body: Buffer;
  /** The body's event_id, when already known. */
  eventId?: string;
}

/** Where a document of this kind goes, and the headers it carries before signing. */
export function sendTarget(kind: SendKind, to: string, identity: string): { url: string; headers: Record<string, string> } {
  return {
    url: kind === 'job' ? contactJobsUrl(to) : to,
    headers: { 'Content-Type': 'application/json', [kind === 'job' ? HeaderNames.source : HeaderNames.provider]: identity },
  };
}

/** Delivers one document with the retry policy, and judges the answer (§2.3 for a job, §2.13 for an event). */
export function sendDocument(request: SendRequest, options: DeliverOptions): Promise<SendResult> {
  const known = request.eventId !== undefined ? { eventId: request.eventId } : {};
  return request.kind === 'job'
    ? sendJob({ to: request.to, body: request.body, secret: request.secret, source: request.identity, ...known }, options)
    : sendEvent({ to: request.to, body: request.body, secret: request.secret, provider: request.identity, ...known }, options);
}

/**
 * Many documents to one target (batch mode): the URL and headers worked out once, each document delivered and
 * judged as sendDocument would, without building them again or going through its layers for every document.
 */
export function documentSender(request: Omit<SendRequest, 'body' | 'eventId'>): (body: Buffer, eventId: string | undefined, options: DeliverOptions) => Promise<SendResult> {
  const { url, headers } = sendTarget(request.kind, request.to, request.identity);
  const iface = request.kind === 'job' ? 'A' : 'B';
  const check = request.kind === 'job' ? checkJobAck : checkEventAck;
  const secret = request.secret;
  return async (body, eventId, options) => judge(iface, url, body, await deliver({ url, body, secret, headers }, options), check, eventId);
}
