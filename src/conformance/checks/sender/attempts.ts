/**
 * What every attempt of a sender must carry, judged on every attempt of every stage (retries and late ones
 * included): a POST to the right address (§4.1, §4.2), the identity header and the JSON content type, a signature
 * over the raw bytes (§5.2–§5.3) with a timestamp in unix seconds (§4) inside the §5.5 window at the moment it
 * arrives, and a valid document within the §8 limits. The same judges run on a `--role sender` run and on the
 * events an Interface A provider sends back (their former ids, A-CB-00n, are kept as aliases).
 */
import { timingSafeEqual } from 'node:crypto';
import { diagnose } from '../../../signing/diagnose.js';
import { sign } from '../../../signing/sign.js';
import { verify } from '../../../signing/verify.js';
import { Headers, HeaderNames, MAX_BODY_BYTES, SURELY_ALLOWED_BODY_BYTES, type InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import { validateBody } from '../../../spec/validate.js';
import { defineSenderCheck, type Outcome, type SenderCheck } from '../../check.js';
import { timestampOf, type Attempt, type SenderEvidence } from '../../evidence.js';
import { kindsSeen } from './documents.js';
import { everyAttempt, type Judgement } from './judging.js';

const SIGNATURE_SHAPE = /^sha256=[0-9a-f]{64}$/;
const NOTHING_TO_JUDGE = 'no attempt to judge';

/** Characters of a path or header value from the sender quoted in a judgement (the rest is `…`): a report line stays a line. */
const QUOTED_CHARACTERS = 120;

/** A path or header value as a judgement quotes it: cut, and (with `json`) JSON-quoted, so control characters show as escapes. */
function quoted(value: string, json = true): string {
  const cut = value.length > QUOTED_CHARACTERS ? `${value.slice(0, QUOTED_CHARACTERS)}…` : value;
  return json ? JSON.stringify(cut) : cut;
}

/** §2: `Content-Type: application/json` (parameters such as charset allowed; another media type is not). */
function contentTypeProblem(value: string | undefined): Judgement {
  if (value === undefined) return 'no Content-Type';
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' ? undefined : `Content-Type is ${quoted(value)}`;
}

/**
 * The timestamp header alone, by the verifier's own rules (src/signing/verify.ts): verified against a probe
 * signature with an unbounded window, only a missing or malformed timestamp can fail it before the comparison.
 */
function timestampProblem(attempt: Attempt): Judgement {
  const timestamp = timestampOf(attempt);
  if (timestamp === undefined || timestamp === '') return `no ${HeaderNames.timestamp}`;
  const result = verify({ secrets: ['timestamp-probe'], signature: `sha256=${'0'.repeat(64)}`, timestamp, rawBody: '', now: 0, windowSeconds: Number.POSITIVE_INFINITY });
  if (result.reason !== 'missing_timestamp' && result.reason !== 'malformed_timestamp') return undefined;
  const hint = /^[0-9]{13}$/.test(timestamp) ? ': 13 digits, milliseconds rather than seconds' : '';
  return `${HeaderNames.timestamp} ${JSON.stringify(timestamp.slice(0, 40))} is not an integer of unix seconds${hint}`;
}

/** §5.5 at the moment the attempt arrived, on cai's clock; a missing or malformed timestamp is BS/AS-SIG-002's. */
function windowProblem(attempt: Attempt): Judgement {
  if (timestampProblem(attempt) !== undefined) return null;
  const now = Math.floor(attempt.arrivedAt / 1000);
  const result = verify({ secrets: ['window-probe'], signature: `sha256=${'0'.repeat(64)}`, timestamp: timestampOf(attempt), rawBody: '', now });
  return result.reason === 'timestamp_too_old' || result.reason === 'timestamp_in_future' ? `${result.message} when it arrived` : undefined;
}

/** §5.2–§5.3: `sha256=` + lowercase hex of HMAC(secret, timestamp + "." + raw body), over the timestamp as sent. */
function signatureProblem(attempt: Attempt, secrets: readonly string[]): Judgement {
  const timestamp = timestampOf(attempt);
  if (timestamp === undefined || timestamp === '' || attempt.cut) return null;
  const signature = attempt.headers[Headers.signature];
  if (signature === undefined || signature === '') return `no ${HeaderNames.signature}`;
  if (!SIGNATURE_SHAPE.test(signature)) return `${HeaderNames.signature} is not "sha256=" and 64 lowercase hex digits (§5.3)`;
  const received = Buffer.from(signature, 'utf8');
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, timestamp, attempt.body), 'utf8');
    return expected.length === received.length && timingSafeEqual(expected, received);
  });
  if (matches) return undefined;
  const result = verify({ secrets, signature, timestamp, rawBody: attempt.body, now: Number(timestamp), windowSeconds: Number.POSITIVE_INFINITY });
  const why = diagnose({ secrets, signature, timestamp, rawBody: attempt.body, result }).map((entry) => entry.message);
  return `the signature does not match the raw body and timestamp sent${why.length ? ` (${why.join('; ')})` : ''}`;
}

/** §2 and the document's own section: valid UTF-8 JSON of the right kind. Its size is the size checks'. */
function documentProblem(attempt: Attempt, iface: InterfaceId): Judgement {
  if (attempt.cut) return null;
  const verdict = validateBody(attempt.body, { kind: interfaceSpec(iface).document });
  const errors = verdict.errors.filter((issue) => issue.code !== 'too_large');
  if (errors.length === 0) return undefined;
  return errors
    .slice(0, 2)
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
}

/** The kinds of document that came, as a note of the document check: the evidence of which rules were exercised. */
function withKindsSeen(outcome: Outcome, evidence: SenderEvidence): Outcome {
  return outcome.verdict === 'not-judged' ? outcome : { ...outcome, notes: [...(outcome.notes ?? []), `documents received: ${kindsSeen(evidence)}`] };
}

function sizeProblem(attempt: Attempt, limit: number): Judgement {
  return attempt.bodyBytes > limit ? `${attempt.cut ? 'over ' : ''}${attempt.bodyBytes} bytes` : undefined;
}

function attemptChecks(iface: InterfaceId): SenderCheck[] {
  const spec = interfaceSpec(iface);
  const p = spec.senderCheckPrefix;
  const own = spec.section;
  const identity = { key: spec.identityHeader, name: spec.identityHeaderName };
  const kind = spec.documentName;
  // The clauses of the request's own section (§4.1 or §4.2) and of its document (§2.2 or §2.4).
  const [endpoint, identityClause, signingClause] = [`${own}-1`, `${own}-2`, `${own}-3`];
  const documentClauses = spec.document === 'event' ? ['§2-1', '§2-2', '§2.4-1', '§2.4-2', '§2.4-3', '§6-1', '§8-2', '§2.1-1', '§2.1-2'] : ['§2-1', '§2-2', '§2.2-1', '§2.2-2', '§2.1-1', '§2.1-2', '§2.1-3'];
  const address = spec.path === '' ? spec.targetName : `{provider_endpoint}${spec.path}`;
  const scenarios = ['accept'] as const;
  const checks = [
    defineSenderCheck({
      id: `${p}-HTTP-001`, interface: iface, level: 'must', sections: [own], clauses: [endpoint], tags: ['http'], scenarios,
      title: `every attempt is a POST to ${address}`,
      judge: (evidence) =>
        everyAttempt(evidence, `POST ${address}`, (attempt, record) => {
          const path = attempt.path.split('?')[0];
          if (attempt.method !== 'POST') return `${quoted(attempt.method, false)} ${quoted(attempt.path, false)}`;
          return path === record.expectedPath ? undefined : `POST ${quoted(attempt.path, false)}, not ${record.expectedPath}`;
        }, NOTHING_TO_JUDGE),
    }),
    defineSenderCheck({
      id: `${p}-HDR-001`, interface: iface, level: 'must', sections: iface === 'B' ? ['§4.2', '§5.6'] : ['§4.1'], clauses: [identityClause], tags: ['headers', 'identity'], scenarios,
      title: `every attempt carries ${identity.name} with the expected ${spec.identityName}`,
      judge: (evidence) =>
        everyAttempt(evidence, `${identity.name}: ${evidence.identity}`, (attempt) => {
          const value = attempt.headers[identity.key];
          if (value === undefined) return `no ${identity.name}`;
          return value === evidence.identity ? undefined : `${identity.name} is ${quoted(value)}`;
        }, NOTHING_TO_JUDGE),
    }),
    defineSenderCheck({
      id: `${p}-HDR-002`, interface: iface, level: 'must', sections: ['§2', own], clauses: ['§2-3'], tags: ['headers', 'content-type'], scenarios,
      title: 'every attempt is sent with Content-Type: application/json',
      judge: (evidence) => everyAttempt(evidence, 'Content-Type: application/json', (attempt) => contentTypeProblem(attempt.headers[Headers.contentType]), NOTHING_TO_JUDGE),
    }),
    defineSenderCheck({
      id: `${p}-SIG-001`, interface: iface, level: 'must', sections: iface === 'B' ? ['§5.2', '§5.3', '§4.2'] : ['§5.2', '§5.3', '§5.1', '§4.1'], clauses: ['§5.1-1', '§5.1-2', '§5.2-1', '§5.2-2', '§5.3-1', signingClause], tags: ['signature', 'raw-body'], scenarios,
      title: 'every attempt is signed over its timestamp and its raw body, exactly as sent',
      judge: (evidence) =>
        everyAttempt(evidence, 'sha256=HMAC(secret, timestamp + "." + raw body)', (attempt) => signatureProblem(attempt, evidence.secrets), 'no attempt with a timestamp to judge the signature over (see the timestamp check)'),
    }),
    defineSenderCheck({
      id: `${p}-SIG-002`, interface: iface, level: 'must', sections: [own, '§5.4'], clauses: ['§5.4-1', signingClause], tags: ['signature', 'timestamp'], scenarios,
      title: `every attempt carries ${HeaderNames.timestamp} as an integer of unix seconds`,
      judge: (evidence) => everyAttempt(evidence, `${HeaderNames.timestamp}: <unix seconds>`, (attempt) => timestampProblem(attempt), NOTHING_TO_JUDGE),
    }),
    defineSenderCheck({
      id: `${p}-SIG-003`, interface: iface, level: 'must', sections: ['§5.5'], clauses: ['§5.5-1', '§8-3'], tags: ['signature', 'window'], scenarios,
      title: 'the timestamp of every attempt is within 300 s of the moment it arrives',
      judge: (evidence) => everyAttempt(evidence, 'within ±300 s of arrival (cai\'s clock)', (attempt) => windowProblem(attempt), 'no attempt with a well-formed timestamp (see the timestamp check)'),
    }),
    defineSenderCheck({
      id: `${p}-DOC-001`, interface: iface, level: 'must', sections: iface === 'B' ? ['§2.4', '§2', '§6', '§8'] : ['§2.2', '§2'], clauses: documentClauses, tags: ['document', 'schema'], scenarios,
      title: iface === 'B' ? 'every attempt carries a valid event (UTF-8 JSON, event_id of at most 120 characters)' : 'every attempt carries a valid contact job (UTF-8 JSON, every required field)',
      judge: (evidence) => withKindsSeen(everyAttempt(evidence, `a valid ${kind}`, (attempt) => documentProblem(attempt, iface), 'no body small enough to read (see the size check)'), evidence),
    }),
  ];
  if (spec.sizeLimitStated) {
    checks.push(
      defineSenderCheck({
        id: 'BS-DOC-002', interface: 'B', level: 'must', sections: ['§8', '§7'], clauses: ['§8-1'], tags: ['document', 'size'], scenarios,
        title: `every body is at most 256 KiB (${MAX_BODY_BYTES} bytes)`,
        judge: (evidence) => everyAttempt(evidence, `at most ${MAX_BODY_BYTES} bytes`, (attempt) => sizeProblem(attempt, MAX_BODY_BYTES), NOTHING_TO_JUDGE),
      }),
      defineSenderCheck({
        id: 'BS-DOC-003', interface: 'B', level: 'should', sections: ['§8'], clauses: ['§8-1'], tags: ['document', 'size'], scenarios,
        title: `every body is at most ${SURELY_ALLOWED_BODY_BYTES} bytes (256 KB read as 1000-byte KB)`,
        judge: (evidence) => everyAttempt(evidence, `at most ${SURELY_ALLOWED_BODY_BYTES} bytes`, (attempt) => sizeProblem(attempt, SURELY_ALLOWED_BODY_BYTES), NOTHING_TO_JUDGE),
      }),
    );
  } else {
    checks.push(
      defineSenderCheck({
        id: 'AS-DOC-002', interface: 'A', level: 'should', sections: ['§8'], clauses: [], tags: ['document', 'size'], scenarios,
        title: `every job is at most 256 KiB (${MAX_BODY_BYTES} bytes; §8 states the limit for events)`,
        judge: (evidence) => everyAttempt(evidence, `at most ${MAX_BODY_BYTES} bytes`, (attempt) => sizeProblem(attempt, MAX_BODY_BYTES), NOTHING_TO_JUDGE),
      }),
    );
  }
  return checks;
}

export const attemptChecksB = attemptChecks('B');
export const attemptChecksA = attemptChecks('A');
