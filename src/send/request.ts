/**
 * One document sent the way its kind is: a contact job to `{provider_endpoint}/contact-jobs` with X-CAI-Source
 * (§4.1), an event to `{events_url}` with X-CAI-Provider (§4.2).
 */
import { deliver, type DeliverOptions } from '../http/deliver.js';
import { contactJobsUrl, judge, type SendResult } from '../http/send.js';
import { checkEventAck, checkJobAck, type AckCheck } from '../spec/acknowledgment.js';
import type { HttpResponse } from '../http/client.js';
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
): (body: Buffer, eventId: string | undefined, options: DeliverOptions) => Promise<SendResult> {
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
