/**
 * What every attempt of a sender must carry, whatever the answers before it (S5 and S7 of the sender relations): a
 * POST to the right address (§4.1, §4.2), the identity header and the JSON content type, a timestamp of unix seconds
 * (§4) inside the §5.5 window when it arrives, a signature over that timestamp and the raw body (§5.2–§5.3), and a
 * valid document within §8's limits. Each term is plain data and one pure judge of one attempt: `undefined` when it
 * keeps the term, the breach in words, or `null` when another term judges the attempt (a malformed timestamp is
 * the timestamp term's, not the window's).
 */
import { timingSafeEqual } from 'node:crypto';
import { diagnose } from '../../signing/diagnose.js';
import { sign } from '../../signing/sign.js';
import { verify } from '../../signing/verify.js';
import { Headers, HeaderNames, MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES, type InterfaceId } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import { illFormedTextPath } from '../json.js';
import { documentErrors } from '../validate.js';
import { documentOf, type SeenAttempt } from './sender-deliveries.js';

export type AttemptTermId =
  | 'address'
  | 'identity'
  | 'content-type'
  | 'signature'
  | 'timestamp'
  | 'window'
  | 'document'
  | 'text'
  | 'size'
  | 'size-surely';

/** What an attempt is judged against: the identity and secrets of the run, and the path its stage expects. */
export interface AttemptContext {
  identity: string;
  /** Any one of them verifies (a rotation overlap, §5.9). */
  secrets: readonly string[];
  expectedPath: string;
}

export interface AttemptTerm {
  id: AttemptTermId;
  /** One of the sender relations (sender-relations.ts), which the findings' rules type-check. */
  relation: 'fresh' | 'well-formed';
  level: 'must' | 'should';
  clauses: readonly string[];
  expected(context: AttemptContext): string;
  judge(attempt: SeenAttempt, context: AttemptContext): string | undefined | null;
}

const SIGNATURE_SHAPE = /^sha256=[0-9a-f]{64}$/;

/** Characters of a path or header value from the sender quoted in a judgement (the rest is `…`): a report line stays a line. */
const QUOTED_CHARACTERS = 120;

/** A path or header value as a judgement quotes it: cut, and (with `json`) JSON-quoted, so control characters show as escapes. */
export function quoted(value: string, json = true): string {
  const cut = value.length > QUOTED_CHARACTERS ? `${value.slice(0, QUOTED_CHARACTERS)}…` : value;
  return json ? JSON.stringify(cut) : cut;
}

/** The timestamp header an attempt carried, as sent. */
export const timestampOf = (attempt: Pick<SeenAttempt, 'headers'>) => attempt.headers[Headers.timestamp];

/**
 * The labels a receiver decodes as UTF-8 (the WHATWG Encoding Standard's list for UTF-8), compared without case:
 * `charset=utf-8` and `charset=UTF8` say what §2 says; any other charset says the body is not UTF-8.
 */
const UTF8_LABELS = new Set([
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
]);

/** The parameters of a media type (RFC 9110 §5.6.6: `; name=value`, the value a token or a quoted string). */
function mediaParameters(value: string): { name: string; value: string }[] {
  const found: { name: string; value: string }[] = [];
  const pattern = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const match of value.matchAll(pattern)) {
    const raw = (match[2] ?? '').trim();
    const unquoted = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    found.push({ name: (match[1] ?? '').toLowerCase(), value: unquoted });
  }
  return found;
}

/** The Content-Type field lines of an attempt: from its raw header lines where recorded, else the one value kept. */
function contentTypeLines(attempt: Pick<SeenAttempt, 'headers' | 'rawHeaders'>): string[] {
  const raw = attempt.rawHeaders;
  if (raw !== undefined && raw.length > 0)
    return raw.filter(([name]) => name.toLowerCase() === Headers.contentType).map(([, value]) => value);
  const value = attempt.headers[Headers.contentType];
  return value === undefined ? [] : [value];
}

/**
 * §2 and §4.1/§4.2: one `Content-Type: application/json` field. Parameters are allowed, but a charset other than
 * UTF-8 contradicts §2 ("JSON, UTF-8"): a receiver that honours it decodes the body wrong. Content-Type is a
 * singleton field: RFC 9110 §5.3 forbids a sender to send it twice (a receiver keeps one line or the other, or
 * joins them into no media type at all), even with the same value twice.
 */
function contentTypeProblem(attempt: Pick<SeenAttempt, 'headers' | 'rawHeaders'>): string | undefined {
  const lines = contentTypeLines(attempt);
  if (lines.length === 0) return 'no Content-Type';
  if (lines.length > 1)
    return `${lines.length} Content-Type fields (${lines.map((line) => quoted(line)).join(', ')}): one is allowed (RFC 9110 §5.3)`;
  const value = lines[0] as string;
  const type = value.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return `Content-Type is ${quoted(value)}`;
  const charset = mediaParameters(value).find(
    (parameter) => parameter.name === 'charset' && !UTF8_LABELS.has(parameter.value.toLowerCase()),
  );
  return charset === undefined
    ? undefined
    : `Content-Type is ${quoted(value)}: charset ${quoted(charset.value)}, not UTF-8 (§2: every body is UTF-8)`;
}

/** The verifier's verdict on a timestamp alone, at `now`: a probe signature over no body fails only after it. */
function probeTimestamp(timestamp: string | undefined, now: number, windowSeconds?: number) {
  return verify({
    secrets: ['probe'],
    signature: `sha256=${'0'.repeat(64)}`,
    timestamp,
    rawBody: '',
    now,
    windowSeconds,
  });
}

/**
 * The timestamp header alone, by the verifier's own rules (src/signing/verify.ts): verified against a probe
 * signature with an unbounded window, only a missing or malformed timestamp can fail it before the comparison.
 */
function timestampProblem(attempt: SeenAttempt): string | undefined {
  const timestamp = timestampOf(attempt);
  if (timestamp === undefined || timestamp === '') return `no ${HeaderNames.timestamp}`;
  const result = probeTimestamp(timestamp, 0, Number.POSITIVE_INFINITY);
  if (result.reason !== 'missing_timestamp' && result.reason !== 'malformed_timestamp') return undefined;
  const hint = /^[0-9]{13}$/.test(timestamp) ? ': 13 digits, milliseconds rather than seconds' : '';
  return `${HeaderNames.timestamp} ${JSON.stringify(timestamp.slice(0, 40))} is not an integer of unix seconds${hint}`;
}

/** §5.5 at the moment the attempt arrived, on cai's clock; a missing or malformed timestamp is the timestamp term's. */
function windowProblem(attempt: SeenAttempt): string | undefined | null {
  if (timestampProblem(attempt) !== undefined) return null;
  const result = probeTimestamp(timestampOf(attempt), Math.floor(attempt.arrivedAt / 1000));
  return result.reason === 'timestamp_too_old' || result.reason === 'timestamp_in_future'
    ? `${result.message} when it arrived`
    : undefined;
}

/** §5.2–§5.3: `sha256=` + lowercase hex of HMAC(secret, timestamp + "." + raw body), over the timestamp as sent. */
function signatureProblem(attempt: SeenAttempt, secrets: readonly string[]): string | undefined | null {
  const timestamp = timestampOf(attempt);
  if (timestamp === undefined || timestamp === '' || attempt.cut) return null;
  const signature = attempt.headers[Headers.signature];
  if (signature === undefined || signature === '') return `no ${HeaderNames.signature}`;
  if (!SIGNATURE_SHAPE.test(signature))
    return `${HeaderNames.signature} is not "sha256=" and 64 lowercase hex digits (§5.3)`;
  const received = Buffer.from(signature, 'utf8');
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, timestamp, attempt.body), 'utf8');
    return expected.length === received.length && timingSafeEqual(expected, received);
  });
  if (matches) return undefined;
  const result = verify({
    secrets,
    signature,
    timestamp,
    rawBody: attempt.body,
    now: Number(timestamp),
    windowSeconds: Number.POSITIVE_INFINITY,
  });
  const why = diagnose({ secrets, signature, timestamp, rawBody: attempt.body, result }).map((entry) => entry.message);
  return `the signature does not match the raw body and timestamp sent${why.length ? ` (${why.join('; ')})` : ''}`;
}

/** §2 and the document's own section: valid UTF-8 JSON of the right kind. Its size is the size terms'. */
function documentProblem(attempt: SeenAttempt, iface: InterfaceId): string | undefined | null {
  if (attempt.cut) return null;
  const { errors, why } = documentErrors(attempt.body, interfaceSpec(iface).document);
  return errors.length === 0 ? undefined : why;
}

/** RFC 8259 §8.2: every string of the document well-formed Unicode (no unpaired surrogate escape). */
function textProblem(attempt: SeenAttempt): string | undefined | null {
  if (attempt.cut) return null;
  const value = documentOf(attempt);
  if (value === undefined) return null; // not JSON: the document term's finding
  const path = illFormedTextPath(value);
  return path === undefined
    ? undefined
    : `${path === '' ? 'the value' : quoted(path, false)} holds an unpaired surrogate (a \\uD800–\\uDFFF escape alone): not Unicode text its receiver can store or show`;
}

function sizeProblem(attempt: SeenAttempt, limit: number): string | undefined {
  return attempt.bodyBytes > limit ? `${attempt.cut ? 'over ' : ''}${attempt.bodyBytes} bytes` : undefined;
}

/**
 * §4.1/§4.2: a POST to the URL itself, `{provider_endpoint}/contact-jobs` or the events URL of callback_url; a query
 * added to it, or one of callback_url dropped or changed, makes another URL (RFC 3986 §3.4: the query is part of what
 * identifies the resource).
 */
function addressProblem(attempt: SeenAttempt, expectedPath: string): string | undefined {
  if (attempt.method !== 'POST') return `${quoted(attempt.method, false)} ${quoted(attempt.path, false)}`;
  if (attempt.path === expectedPath) return undefined;
  const [path, ...query] = attempt.path.split('?');
  const [expectedBase, ...expectedQuery] = expectedPath.split('?');
  if (path !== expectedBase) return `POST ${quoted(attempt.path, false)}, not ${expectedPath}`;
  if (expectedQuery.length === 0)
    return `POST ${quoted(attempt.path, false)}: a query ${quoted(`?${query.join('?')}`, false)} added to ${expectedPath}, which has none`;
  return query.length === 0
    ? `POST ${quoted(attempt.path, false)}: the query ?${expectedQuery.join('?')} of the URL given (${expectedPath}) dropped`
    : `POST ${quoted(attempt.path, false)}: the query of the URL given (${expectedPath}) changed`;
}

const WELL_FORMED = { relation: 'well-formed', level: 'must' } as const;
const FRESH = { relation: 'fresh', level: 'must' } as const;

/** The terms every attempt of a sender of the interface is judged on. */
export function attemptTerms(iface: InterfaceId): AttemptTerm[] {
  const spec = interfaceSpec(iface);
  const own = spec.section;
  const [endpoint, identityClause, signingClause] = [`${own}-1`, `${own}-2`, `${own}-3`];
  const address = spec.path === '' ? spec.targetName : `{provider_endpoint}${spec.path}`;
  const documentClauses =
    spec.document === 'event'
      ? ['§2-1', '§2-2', '§2.4-1', '§2.4-2', '§2.4-3', '§6-1', '§8-2', '§2.1-1', '§2.1-2']
      : ['§2-1', '§2-2', '§2.2-1', '§2.2-2', '§2.1-1', '§2.1-2', '§2.1-3'];
  const terms: AttemptTerm[] = [
    {
      ...WELL_FORMED,
      id: 'address',
      clauses: [endpoint],
      expected: () => `POST ${address}`,
      judge: (attempt, context) => addressProblem(attempt, context.expectedPath),
    },
    {
      ...WELL_FORMED,
      id: 'identity',
      clauses: [identityClause],
      expected: (context) => `${spec.identityHeaderName}: ${context.identity}`,
      judge: (attempt, context) => {
        const value = attempt.headers[spec.identityHeader];
        if (value === undefined) return `no ${spec.identityHeaderName}`;
        return value === context.identity ? undefined : `${spec.identityHeaderName} is ${quoted(value)}`;
      },
    },
    {
      ...WELL_FORMED,
      id: 'content-type',
      clauses: ['§2-3', '§2-2'],
      expected: () => 'one Content-Type: application/json (a charset, if any, UTF-8)',
      judge: (attempt) => contentTypeProblem(attempt),
    },
    {
      ...FRESH,
      id: 'signature',
      clauses: ['§5.1-1', '§5.1-2', '§5.2-1', '§5.2-2', '§5.3-1', signingClause],
      expected: () => 'sha256=HMAC(secret, timestamp + "." + raw body)',
      judge: (attempt, context) => signatureProblem(attempt, context.secrets),
    },
    {
      ...FRESH,
      id: 'timestamp',
      clauses: ['§5.4-1', signingClause],
      expected: () => `${HeaderNames.timestamp}: <unix seconds>`,
      judge: timestampProblem,
    },
    {
      ...FRESH,
      id: 'window',
      clauses: ['§5.5-1', '§8-3'],
      expected: () => "within ±300 s of arrival (cai's clock)",
      judge: windowProblem,
    },
    {
      ...WELL_FORMED,
      id: 'document',
      clauses: documentClauses,
      expected: () => `a valid ${spec.documentName}`,
      judge: (attempt) => documentProblem(attempt, iface),
    },
    // JSON's grammar lets an unpaired surrogate escape through; RFC 8259 §8.2 leaves its receivers unpredictable.
    {
      id: 'text',
      relation: 'well-formed',
      level: 'should',
      clauses: ['§2-1'],
      expected: () => 'every string well-formed Unicode (RFC 8259 §8.2)',
      judge: textProblem,
    },
    // §8 states the limit for events; a job over it is a `should` (the provider may refuse it).
    {
      id: 'size',
      relation: 'well-formed',
      level: spec.sizeLimitStated ? 'must' : 'should',
      clauses: spec.sizeLimitStated ? ['§8-1'] : [],
      expected: () => `at most ${MAX_BODY_BYTES} bytes`,
      judge: (attempt) => sizeProblem(attempt, MAX_BODY_BYTES),
    },
  ];
  if (spec.sizeLimitStated)
    terms.push({
      id: 'size-surely',
      relation: 'well-formed',
      level: 'should',
      clauses: ['§8-1'],
      expected: () => `at most ${SURELY_ALLOWED_BODY_BYTES} bytes`,
      judge: (attempt) => sizeProblem(attempt, SURELY_ALLOWED_BODY_BYTES),
    });
  return terms;
}

export function attemptTerm(iface: InterfaceId, id: AttemptTermId): AttemptTerm {
  return attemptTerms(iface).find((term) => term.id === id) as AttemptTerm;
}
