/**
 * The steps of the receive pipeline that need no store (../pipeline.ts runs them in the order its header gives):
 * route, declared size, the signature headers and window (§5.5), the body read and its refusals, the HMAC (§5.2),
 * and the document parsed and validated (§2).
 */
import type { IncomingMessage } from 'node:http';
import { markAuthenticated } from '../../http/admission.js';
import { declaredLength, headerValue, type BodyResult, type Reply } from '../../http/server.js';
import { SignedHeaders, verifyBody, verifyHeaders, type VerifyInput } from '../../signing/verify.js';
import { Headers, MAX_BODY_BYTES } from '../../spec/constants.js';
import { describeIssue } from '../../spec/issues.js';
import { unauthorisedReasonOf } from '../../spec/statuses.js';
import { asObject, parseJson } from '../../spec/json.js';
import {
  loosened,
  narrowedFormatIssues,
  signatureAsRead,
  signatureLetThrough,
  windowClock,
  windowSecondsOf,
} from '../receiver-faults.js';
import { targetPath } from '../request.js';
import type { Validator } from '../validator.js';
import type { Admitted, Credential, ReceiverProfile, Received, Reject } from './profile.js';

/** Admission: one method, one path (§4.1, §4.2). */
export function checkRoute(
  profile: ReceiverProfile<unknown>,
  request: IncomingMessage,
  reject: Reject,
): Reply | undefined {
  if (request.method !== 'POST')
    return {
      ...reject(405, 'method_not_allowed', `${request.method} is not allowed; ${profile.methodHint}`),
      headers: { allow: 'POST' },
    };
  if (targetPath(request.url) !== profile.path)
    return reject(404, 'not_found', `no endpoint at ${request.url}; ${profile.pathHint}`);
  return undefined;
}

/** Identify: why an identity header (§5.6, §4.1) is refused, as it names no one known or is missing. */
export const identityRefusal = (header: string, value: string | undefined, unknown: string, missingRule: string) =>
  value ? `${header} "${value}" ${unknown}` : `the ${header} header is missing (${missingRule})`;

/** Size: §8, a declared Content-Length over the limit is 413 without reading the rest. */
export function checkDeclaredSize(
  profile: ReceiverProfile<unknown>,
  request: IncomingMessage,
  reject: Reject,
): Reply | undefined {
  const declared = declaredLength(request);
  if (declared === undefined || declared <= profile.limitBytes) return undefined;
  return {
    ...reject(
      413,
      'payload_too_large',
      `the body is ${declared} bytes, over the ${MAX_BODY_BYTES}-byte limit${profile.sizeRule}`,
    ),
    close: true,
  };
}

/**
 * Authenticate, what needs no body (§5.5): the signature and timestamp headers present and well-formed, the
 * timestamp inside the window: verifyHeaders, the checks verify() makes in this order before it compares the
 * HMAC, without computing one (only the comparison needs the body). Passed, the checked headers, for authenticate.
 */
export function checkSignatureHeaders(
  profile: ReceiverProfile<unknown>,
  request: IncomingMessage,
  credential: Credential,
  reject: Reject,
): Reply | SignedHeaders | undefined {
  if (profile.signature.skip) return undefined;
  const result = verifyHeaders(signatureInput(profile, request, credential));
  return result instanceof SignedHeaders ? result : reject(401, unauthorisedReasonOf(result.reason), result.message);
}

/** Read (readBody: counted as it arrives, cut at the limit whatever Content-Length claimed, or when it stalls or drags): the body or the answer. */
export function bodyOrReply(profile: ReceiverProfile<unknown>, read: BodyResult, reject: Reject): Buffer | Reply {
  const { limits } = profile;
  if (read.ok) return read.body;
  if (read.reason === 'aborted') return reject(400, 'aborted', 'the request body was not received in full');
  // Every other refusal closes the connection: the rest of the body is never read.
  const refusal = {
    malformed: () => reject(400, 'bad_request', 'the body could not be read as HTTP/1.1 (its chunked framing)'),
    timeout: () =>
      reject(
        408,
        'request_timeout',
        `the body did not arrive in time (a gap of ${limits.bodyIdleTimeoutMs} ms, or ${limits.bodyTimeoutMs} ms in all)`,
      ),
    // §7: a temporary unavailability, retried by the sender; the bodies in memory are what is scarce.
    busy: () =>
      reject(
        503,
        'overloaded',
        `over ${limits.maxBufferedBytes} bytes of request bodies in memory; retry later`,
        { retry_after: 1 },
        { 'retry-after': '1' },
      ),
    too_large: () =>
      reject(413, 'payload_too_large', `the body is over the ${MAX_BODY_BYTES}-byte limit${profile.sizeRule}`),
  }[read.reason]();
  return { ...refusal, close: true };
}

/**
 * Authenticate, the rest (§5.2): the HMAC over the raw bytes with any secret of the credential (§5.9), against the
 * headers checked before the body was read (verifyBody: verify()'s verdict, the headers not checked twice).
 */
export function authenticate(profile: ReceiverProfile<unknown>, received: Received, reject: Reject): Reply | undefined {
  const policy = profile.signature;
  if (policy.skip) {
    markAuthenticated(received.request);
    return undefined;
  }
  // Fails closed: a request that reached this step without checked headers is a bug (answered 500), never let through.
  if (received.signed === undefined) throw new Error('the signature headers were not checked before the body');
  const result = verifyBody(received.signed, policy.signedBytes ? policy.signedBytes(received.body) : received.body);
  if (!result.valid && !letThrough(profile, received))
    return reject(401, unauthorisedReasonOf(result.reason), result.message);
  const refused = policy.afterVerify?.(result);
  if (refused) return reject(401, refused.reason, refused.message);
  received.entry.secret = (result.matchedSecretIndex ?? 0) + 1;
  // Its connection is among the last to give up its slot to a new one (admission.ts).
  markAuthenticated(received.request);
  return undefined;
}

/** The signature faults that let a wrong HMAC through (receiver-faults.ts). */
function letThrough(profile: ReceiverProfile<unknown>, { request, credential, body }: Received): boolean {
  const faults = profile.faults;
  return (
    faults !== undefined &&
    signatureLetThrough(
      faults,
      credential.secrets,
      headerValue(request, Headers.signature),
      headerValue(request, Headers.timestamp),
      body,
    )
  );
}

function signatureInput(
  profile: ReceiverProfile<unknown>,
  request: IncomingMessage,
  credential: Credential,
): Omit<VerifyInput, 'rawBody'> {
  const timestamp = headerValue(request, Headers.timestamp);
  const { signedTimestamp } = profile.signature;
  const faults = profile.faults ?? new Set<string>();
  return {
    secrets: credential.secrets,
    signature: signatureAsRead(headerValue(request, Headers.signature), faults),
    timestamp: timestamp !== undefined && signedTimestamp ? signedTimestamp(timestamp) : timestamp,
    now: windowClock(Math.floor(profile.now() / 1000), request, timestamp, faults),
    windowSeconds: windowSecondsOf(profile.signature.windowSeconds, faults),
  };
}

/** Parse (UTF-8 and JSON, §2) and validate (the schema of `cai validate`); the entry learns the ids. */
export function parseAndValidate(
  profile: ReceiverProfile<unknown>,
  received: Received,
  validator: Validator,
  reject: Reject,
): Admitted | Reply {
  const parsed = parseJson(received.body);
  if (!parsed.ok) {
    return (
      // `5xx-on-bad-json`: 500 instead of 400.
      profile.faults.has('5xx-on-bad-json')
        ? reject(500, 'internal_error', 'internal server error')
        : reject(400, 'invalid_json', 'the body is not valid JSON', {
            errors: validator.validateBody(received.body, { kind: profile.kind }).errors,
          })
    );
  }
  const value = profile.faults ? loosened(parsed.value, profile.faults) : parsed.value;
  const fields = asObject(value);
  for (const name of profile.entryFields) {
    const value = fields?.[name];
    if (typeof value === 'string') received.entry[name] = value;
  }
  const issues = profile.checkDocument(validator, value).concat(narrowedFormatIssues(value, profile.faults));
  if (issues.length > 0) {
    received.entry.errors = issues;
    return reject(
      400,
      'invalid_document',
      `the ${profile.kind} does not match the schema: ${issues.map(describeIssue).join('; ')}`,
      { errors: issues },
    );
  }
  return Object.assign(received, { document: fields ?? {} });
}
