import { E164_PATTERN } from '../spec/formats.js';
/**
 * The two senders of the interface: contact jobs (Interface A, §4.1) and events (Interface B, §4.2).
 * They deliver with the retry policy (deliver.ts) and then judge the answer: the job acknowledgment of
 * §2.3 / §4.1, and the new-vs-duplicate answer of §2.13 / §6.1.
 */
import { CONTACT_JOBS_PATH, HeaderNames, Headers } from '../spec/constants.js';
import type { HttpResponse } from './client.js';
import { deliver, type DeliverOptions, type DeliveryResult } from './deliver.js';

export type SendVerdict = 'accepted' | 'duplicate' | 'rejected' | 'failed';

export interface AckCheck {
  /** True when the answer is what the spec prescribes. */
  ok: boolean;
  /** Each deviation, naming the rule it breaks. */
  problems: string[];
  /** Interface B: the platform counted the event as a repeat (§2.13). */
  duplicate?: boolean;
  /** Interface A (§2.3). */
  providerJobId?: string;
  assignedNumberE164?: string;
  /** The parsed response body, when it is JSON. */
  json?: unknown;
}

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

export interface SendJobRequest {
  /** `{provider_endpoint}`; `/contact-jobs` is appended (§4.1). */
  to: string;
  body: Uint8Array;
  /** The jobs-direction secret (§5.1). */
  secret: string;
  /** `X-CAI-Source` (§4.1). */
  source: string;
  /** The body's event_id when the caller already knows it (saves parsing the body again). */
  eventId?: string;
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

/** `{provider_endpoint}/contact-jobs`; a URL that already ends with the path is used as is. */
export function contactJobsUrl(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(CONTACT_JOBS_PATH)) url.pathname = `${path}${CONTACT_JOBS_PATH}`;
  return url.toString();
}

export async function sendJob(request: SendJobRequest, options: DeliverOptions = {}): Promise<SendResult> {
  const url = contactJobsUrl(request.to);
  const delivery = await deliver(
    { url, body: request.body, secret: request.secret, headers: { 'Content-Type': 'application/json', [HeaderNames.source]: request.source } },
    options,
  );
  return judge('A', url, request.body, delivery, checkJobAck, request.eventId);
}

export async function sendEvent(request: SendEventRequest, options: DeliverOptions = {}): Promise<SendResult> {
  const delivery = await deliver(
    { url: request.to, body: request.body, secret: request.secret, headers: { 'Content-Type': 'application/json', [HeaderNames.provider]: request.provider } },
    options,
  );
  return judge('B', request.to, request.body, delivery, checkEventAck, request.eventId);
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


/** §4.1 and §2.3: 202, `Content-Type: application/json`, a string `provider_job_id`, an E.164 `assigned_number_e164`. */
export function checkJobAck(response: HttpResponse): AckCheck {
  const problems: string[] = [];
  if (response.status !== 202) problems.push(`status ${response.status}: §4.1 answers an accepted job with 202`);
  const contentType = response.headers[Headers.contentType];
  if (!isJsonMediaType(contentType)) {
    problems.push(`Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}: §4.1 answers with application/json`);
  }
  const parsed = parseJson(response.body);
  if (!parsed.ok) {
    problems.push(response.body.length === 0 ? 'the body is empty: §2.3 requires provider_job_id and assigned_number_e164' : `the body is not JSON (${parsed.message}): §2.3 requires a JSON acknowledgment`);
    return { ok: false, problems };
  }
  const json = parsed.value;
  if (!isObject(json)) {
    problems.push('the body is not a JSON object: §2.3 requires an object with provider_job_id and assigned_number_e164');
    return { ok: false, problems, json };
  }
  const providerJobId = json.provider_job_id;
  const assigned = json.assigned_number_e164;
  if (providerJobId === undefined) problems.push('provider_job_id is missing (§2.3)');
  else if (typeof providerJobId !== 'string' || providerJobId === '') problems.push(`provider_job_id is ${describe(providerJobId)}, not a non-empty string (§2.3)`);
  if (assigned === undefined) problems.push('assigned_number_e164 is missing (§2.3)');
  else if (typeof assigned !== 'string' || !E164_PATTERN.test(assigned)) problems.push(`assigned_number_e164 is ${describe(assigned)}, not an E.164 number such as +447700900123 (§2.1, §2.3)`);
  return {
    ok: problems.length === 0,
    problems,
    json,
    ...(typeof providerJobId === 'string' ? { providerJobId } : {}),
    ...(typeof assigned === 'string' ? { assignedNumberE164: assigned } : {}),
  };
}

/**
 * §6.5: any 2xx means accepted. §2.13: a repeat is answered 202 with `{ok: true, duplicate: true}`.
 * The body of a first-time 202 is not shown in the spec, so anything (or nothing) is fine there; but a
 * body that speaks of duplicates must do it in the §2.13 shape.
 */
export function checkEventAck(response: HttpResponse): AckCheck {
  const problems: string[] = [];
  const contentType = response.headers[Headers.contentType];
  if (response.body.length === 0) return { ok: true, problems, duplicate: false };
  const parsed = parseJson(response.body);
  if (!parsed.ok) {
    if (isJsonMediaType(contentType)) problems.push(`the body is labelled application/json but is not JSON (${parsed.message})`);
    return { ok: problems.length === 0, problems, duplicate: false };
  }
  const json = parsed.value;
  if (!isObject(json) || !('duplicate' in json)) return { ok: true, problems, duplicate: false, json };
  if (typeof json.duplicate !== 'boolean') {
    problems.push(`duplicate is ${describe(json.duplicate)}, not a boolean (§2.13)`);
    return { ok: false, problems, json };
  }
  if ('ok' in json && typeof json.ok !== 'boolean') problems.push(`ok is ${describe(json.ok)}, not a boolean (§2.13)`);
  if (json.duplicate) {
    if (json.ok !== true) problems.push(`a duplicate is answered {ok: true, duplicate: true}; ok is ${describe(json.ok)} (§2.13)`);
    if (response.status !== 202) problems.push(`a duplicate is answered with status 202, not ${response.status} (§2.13)`);
  }
  return { ok: problems.length === 0, problems, duplicate: json.duplicate, json };
}

/** The `event_id` of a JSON body, if it has a string one. Never throws. */
export function eventIdOf(body: Uint8Array): string | undefined {
  const parsed = parseJson(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  if (!parsed.ok || !isObject(parsed.value)) return undefined;
  const id = parsed.value.event_id;
  return typeof id === 'string' ? id : undefined;
}

function isJsonMediaType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
