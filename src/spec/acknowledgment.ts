/**
 * The acknowledgments of the interface, as the receivers must shape them: the job acknowledgment of §2.3 / §4.1
 * and the event answers of §2.13 / §6.5. Judged here once for the senders (`cai send-*`, `cai replay`) and the
 * conformance checks. Pure: an answer in, problems out.
 */
import { Headers, type InterfaceId } from './constants.js';
import { E164_PATTERN } from './formats.js';
import { interfaceSpec } from './interfaces.js';
import { isObject, objectOf, parseJson } from './json.js';

/** The parts of an HTTP answer the judgement reads. */
export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  /** `body` is only the start of a longer body (the sender's cap): the rest was not read, so it is not judged. */
  bodyTruncated?: boolean;
}

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
  /** What was not judged, and why (a body past the sender's cap). */
  notes?: string[];
}

/** A body cut at the sender's cap cannot be parsed: the verdict is the status's, and says the rest was not read. */
const UNREAD_REST =
  'only the start of the body was read (it is over the size cai reads of an answer): the rest was not read, so the verdict rests on the status';

/** §4.1 and §2.3: 202, `Content-Type: application/json`, a string `provider_job_id`, an E.164 `assigned_number_e164`. */
export function checkJobAck(response: Answer): AckCheck {
  const problems: string[] = [];
  if (response.status !== 202) problems.push(`status ${response.status}: §4.1 answers an accepted job with 202`);
  const contentType = response.headers[Headers.contentType];
  if (!isJsonMediaType(contentType)) {
    problems.push(
      `Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}: §4.1 answers with application/json`,
    );
  }
  if (response.bodyTruncated)
    return {
      ok: problems.length === 0,
      problems,
      notes: [`${UNREAD_REST}; provider_job_id and assigned_number_e164 (§2.3) were not checked`],
    };
  const parsed = parseJson(response.body);
  if (!parsed.ok) {
    problems.push(
      response.body.length === 0
        ? 'the body is empty: §2.3 requires provider_job_id and assigned_number_e164'
        : `the body is not JSON (${parsed.message}): §2.3 requires a JSON acknowledgment`,
    );
    return { ok: false, problems };
  }
  const json = parsed.value;
  if (!isObject(json)) {
    problems.push(
      'the body is not a JSON object: §2.3 requires an object with provider_job_id and assigned_number_e164',
    );
    return { ok: false, problems, json };
  }
  const providerJobId = json.provider_job_id;
  const assigned = json.assigned_number_e164;
  if (providerJobId === undefined) problems.push('provider_job_id is missing (§2.3)');
  else if (typeof providerJobId !== 'string' || providerJobId === '')
    problems.push(`provider_job_id is ${describe(providerJobId)}, not a non-empty string (§2.3)`);
  if (assigned === undefined) problems.push('assigned_number_e164 is missing (§2.3)');
  else if (typeof assigned !== 'string' || !E164_PATTERN.test(assigned))
    problems.push(
      `assigned_number_e164 is ${describe(assigned)}, not an E.164 number such as +447700900123 (§2.1, §2.3)`,
    );
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
export function checkEventAck(response: Answer): AckCheck {
  const problems: string[] = [];
  const contentType = response.headers[Headers.contentType];
  if (response.body.length === 0) return { ok: true, problems, duplicate: false };
  // §6.5: any 2xx means accepted; whether as a repeat (§2.13) is in the part not read.
  if (response.bodyTruncated)
    return {
      ok: true,
      problems,
      notes: [`${UNREAD_REST}; whether the event counted as a duplicate (§2.13) is not known`],
    };
  const parsed = parseJson(response.body);
  if (!parsed.ok) {
    if (isJsonMediaType(contentType))
      problems.push(`the body is labelled application/json but is not JSON (${parsed.message})`);
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
    if (json.ok !== true)
      problems.push(`a duplicate is answered {ok: true, duplicate: true}; ok is ${describe(json.ok)} (§2.13)`);
    if (response.status !== 202)
      problems.push(`a duplicate is answered with status 202, not ${response.status} (§2.13)`);
  }
  return { ok: problems.length === 0, problems, duplicate: json.duplicate, json };
}

/** The judge of a 2xx answer on each interface: §2.3's job acknowledgment, §2.13's event answer. */
export const ACKNOWLEDGMENT_CHECKS: Readonly<Record<InterfaceId, (response: Answer) => AckCheck>> = {
  A: checkJobAck,
  B: checkEventAck,
};

/** §2.13: exactly the duplicate answer, 202 `{"ok": true, "duplicate": true}`. No answer is no duplicate. */
export function isDuplicateAck(answer: { status?: number; body: Buffer }): boolean {
  const body = answer.status === 202 ? objectOf(answer.body) : undefined;
  return body?.ok === true && body.duplicate === true;
}

/** The provider_job_id of a job's acknowledgment (§2.3), when the answer carries one. */
export function providerJobIdOf(body: Buffer): string | undefined {
  const value = objectOf(body)?.provider_job_id;
  return typeof value === 'string' ? value : undefined;
}

/**
 * How a 2xx answer took a document, as its interface says a repeat is answered (src/spec/interfaces.ts
 * repeatAnswer): `duplicate` when it recognised a repeat (§2.13: `{ok: true, duplicate: true}`; §2.3: the same
 * provider_job_id as the `first` delivery's), and the provider_job_id a job's acknowledgment carries.
 */
export function recogniseRepeat(
  iface: InterfaceId,
  answer: { status: number; body: Buffer },
  first?: { providerJobId?: string },
): { duplicate: boolean; providerJobId?: string } {
  // Most answers are not duplicates: the cheap test of the bytes first.
  if (interfaceSpec(iface).repeatAnswer === 'duplicate-ack') {
    return { duplicate: answer.body.includes('"duplicate"') && isDuplicateAck(answer) };
  }
  const providerJobId = providerJobIdOf(answer.body);
  const duplicate = first !== undefined && providerJobId !== undefined && providerJobId === first.providerJobId;
  return { duplicate, ...(providerJobId !== undefined ? { providerJobId } : {}) };
}

/** §2 and §4: `application/json`, or a `+json` type, with any parameters. */
export function isJsonMediaType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type));
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** §2.13: the duplicate acknowledgment, as a receiver answers a repeated `event_id` (with status 202). */
export const DUPLICATE_ACK = { ok: true, duplicate: true } as const;
