/**
 * Why a request got its answer, in the tool's own words: for a 401 the signature diagnosis `cai verify` gives
 * (src/signing/diagnose.ts: a re-serialised body, a timestamp in milliseconds, the clock skew, the other
 * direction's or another credential's secret), for a 400 the validation errors with their JSON paths and spec
 * sections. Run when a request's detail is asked for, never on the mock's hot path; secrets go in, and only what
 * they matched comes out (never a secret: the diagnosis messages name mistakes, not values).
 */
import { createHash } from 'node:crypto';
import { diagnose, type DiagnoseInput, type Diagnosis } from '../signing/diagnose.js';
import { verify, type VerifyReason } from '../signing/verify.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import { validateBody, validateDocument, type ValidationIssue } from '../spec/validate.js';
import { parseJson } from '../spec/json.js';
import { bodyCut, headerOf, type InspectedRequest } from './capture.js';
import { sectionsOf } from '../spec/sections.js';
import { SIGNATURE_REASONS } from '../spec/statuses.js';

/** A credential the mock checks requests against (§5.6): its code, space and secrets. */
export interface InspectorCredential {
  code: string;
  space: 'live' | 'test';
  secrets: readonly string[];
}

/** What the inspector knows of signing, to explain a 401 (given by the command that starts the mock). */
export interface InspectorSigning {
  /** `provider`: the credential is named by X-CAI-Provider (the platform mock); `source`: there is one (the provider mock). */
  identity: 'provider' | 'source';
  credentials: readonly InspectorCredential[];
  /** The other direction's secrets (§5.1), to recognise a mix-up: the provider mock knows the events secret. */
  otherSecrets?: readonly string[];
  windowSeconds?: number;
}

export interface SectionedIssue extends ValidationIssue {
  sections: string[];
}

export interface SignatureExplanation {
  /** What verify() says of the request as kept, at the time it was received. */
  reason: VerifyReason;
  message: string;
  /** X-CAI-Timestamp as received, read as a date, and its distance from the mock's clock (positive: in the past). */
  timestamp?: string;
  timestampDate?: string;
  skewSeconds?: number;
  windowSeconds: number;
  signature?: string;
  /** Which credential the request was checked against (its code and how many secrets; never a secret). */
  checkedWith?: string;
  /** The body as kept: its size and SHA-256 (to compare with what the sender signed). */
  body?: { bytes: number; sha256: string };
  /** Why the HMAC could not be checked against the body (not read, or cut), when it could not. */
  note?: string;
  diagnoses: Diagnosis[];
}

export interface Explanation {
  status: number;
  verdict: string;
  reason?: string;
  message?: string;
  signature?: SignatureExplanation;
  validation?: { kind: 'job' | 'event'; errors: SectionedIssue[]; warnings: SectionedIssue[] };
}

export function explain(request: InspectedRequest, signing: InspectorSigning): Explanation {
  const { entry } = request;
  const out: Explanation = {
    status: entry.status,
    verdict: entry.verdict,
    ...(entry.reason ? { reason: entry.reason } : {}),
    ...(entry.message ? { message: entry.message } : {}),
  };
  if (entry.status === 401 && entry.reason !== undefined && SIGNATURE_REASONS.has(entry.reason))
    out.signature = explainSignature(request, signing);
  const validation = explainValidation(request);
  if (validation) out.validation = validation;
  return out;
}

function explainSignature(request: InspectedRequest, signing: InspectorSigning): SignatureExplanation {
  const windowSeconds = signing.windowSeconds ?? SIGNATURE_WINDOW_SECONDS;
  const signature = headerOf(request, Headers.signature);
  const timestamp = headerOf(request, Headers.timestamp);
  const credential = credentialFor(request, signing);
  const others = signing.credentials.filter((candidate) => candidate !== credential);
  const body = request.body ?? Buffer.alloc(0);
  const now = Math.floor(Date.parse(request.entry.received_at) / 1000);
  const secrets = credential?.secrets ?? [];
  const result = verify({ secrets, signature, timestamp, rawBody: body, now, windowSeconds });
  const note =
    request.body === undefined
      ? 'the body was not read: the headers alone decided the answer, so the signature was not compared with it'
      : bodyCut(request)
        ? `only the first ${request.body.length} bytes of the body are kept: the signature cannot be checked against them`
        : undefined;
  const otherSecrets = signing.otherSecrets ?? [];
  const diagnoses = diagnoseAll({ secrets, otherSecrets, signature, timestamp, rawBody: body, result }, others);
  return {
    reason: result.reason,
    message: result.message,
    ...timestampFacts(timestamp, now),
    windowSeconds,
    ...(signature !== undefined ? { signature } : {}),
    ...(credential ? { checkedWith: describeCredential(credential) } : {}),
    ...(request.body !== undefined
      ? { body: { bytes: request.body.length, sha256: createHash('sha256').update(request.body).digest('hex') } }
      : {}),
    ...(note !== undefined ? { note } : {}),
    // Without the body, "none of the usual mistakes" would be a guess: only what the headers show is said.
    diagnoses:
      note === undefined
        ? diagnoses
        : diagnoses.filter((diagnosis) => diagnosis.code !== 'signature_over_other_content'),
  };
}

/** cai verify's diagnosis, then the secret of another credential of this mock (live/test, §1). */
function diagnoseAll(input: DiagnoseInput, others: readonly InspectorCredential[]): Diagnosis[] {
  const found = diagnose(input);
  if (input.result.reason !== 'signature_mismatch') return found;
  const { signature, timestamp, rawBody } = input;
  for (const other of others) {
    const matched = verify({
      secrets: other.secrets,
      signature,
      timestamp,
      rawBody,
      windowSeconds: Number.MAX_SAFE_INTEGER,
    });
    if (!matched.valid) continue;
    const rest = found.filter((diagnosis) => diagnosis.code !== 'signature_over_other_content');
    return [
      ...rest,
      {
        code: 'other_direction_secret',
        message: `the request was signed with the secret of ${describeCredential(other)}; each credential has its own secret (§5.6, §1)`,
      },
    ];
  }
  return found;
}

function credentialFor(request: InspectedRequest, signing: InspectorSigning): InspectorCredential | undefined {
  if (signing.identity === 'source') return signing.credentials[0];
  const code = headerOf(request, Headers.provider);
  return signing.credentials.find((credential) => credential.code === code);
}

function describeCredential(credential: InspectorCredential): string {
  const secrets = credential.secrets.length === 1 ? '' : `, ${credential.secrets.length} secrets`;
  return `the ${credential.space} credential (${credential.code}${secrets})`;
}

function timestampFacts(
  timestamp: string | undefined,
  now: number,
): Pick<SignatureExplanation, 'timestamp' | 'timestampDate' | 'skewSeconds'> {
  if (timestamp === undefined) return {};
  const value = timestamp.trim();
  if (!/^[0-9]{1,13}$/.test(value)) return { timestamp };
  // 13 digits: milliseconds (the diagnosis says so); the date and the skew are read from the seconds in them.
  const seconds = value.length === 13 ? Math.floor(Number(value) / 1000) : Number(value);
  const date = new Date(seconds * 1000);
  return {
    timestamp,
    ...(Number.isNaN(date.getTime()) ? {} : { timestampDate: date.toISOString() }),
    skewSeconds: now - seconds,
  };
}

/** 400s: the errors (with their sections); accepted documents: the warnings `cai validate` gives. */
function explainValidation(request: InspectedRequest): Explanation['validation'] {
  const kind = interfaceSpec(request.entry.interface).document;
  const sectioned = (issues: readonly ValidationIssue[]) =>
    issues.map((issue) => ({ ...issue, sections: sectionsOf(issue, kind) }));
  const { entry } = request;
  if (entry.errors?.length) return { kind, errors: sectioned(entry.errors), warnings: [] };
  if (request.body === undefined || bodyCut(request)) return undefined;
  if (entry.reason === 'invalid_json')
    return { kind, errors: sectioned(validateBody(request.body, { kind }).errors), warnings: [] };
  if (entry.verdict !== 'accepted' && entry.verdict !== 'duplicate') return undefined;
  const parsed = parseJson(request.body);
  if (!parsed.ok) return undefined;
  const verdict = validateDocument(parsed.value, { kind, strict: true });
  return verdict.warnings.length > 0 || verdict.errors.length > 0
    ? { kind, errors: sectioned(verdict.errors), warnings: sectioned(verdict.warnings) }
    : undefined;
}
