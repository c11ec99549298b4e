/**
 * The deliberate defects of the Interface B reference receiver alone (PLATFORM_FAULTS in faults.ts; those both
 * receivers share are receiver-faults.ts's), as the pipeline steps they bend: the body limit (§8), the signature
 * window and the signed bytes (§5.5), the event's schema (§2.4–§2.7). Each returns what the correct platform does
 * when its fault is not given.
 */
import type { Reply } from '../http/server.js';
import { MAX_BODY_BYTES, MAX_EVENT_ID_LENGTH, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { asObject } from '../spec/json.js';
import type { Branch, ValidationIssue } from '../spec/validate.js';
import type { PlatformFault } from './faults.js';
import type { ReceiverProfile, Reject } from './pipeline.js';
import type { Validator } from './validator.js';

type HasFault = (fault: PlatformFault) => boolean;

// Far beyond §8, so `no-size-limit` accepts what a real careless server would, without unbounded memory.
const NO_LIMIT_BYTES = 64 * 1024 * 1024;
// `size-in-characters` reads up to this many bytes (262 144 characters of 4 bytes), then counts characters.
const CHARACTER_LIMIT_BYTES = 4 * MAX_BODY_BYTES;

/** §8's limit on the body read, as `no-size-limit` and `size-in-characters` bend it. */
export function bodyLimitBytes(has: HasFault): number {
  return has('no-size-limit') ? NO_LIMIT_BYTES : has('size-in-characters') ? CHARACTER_LIMIT_BYTES : MAX_BODY_BYTES;
}

/** The `size-in-characters` defect: the limit applied to the decoded text's length (UTF-16 units), not its bytes. */
export function characterLimit(body: Buffer, reject: Reject): Reply | undefined {
  const characters = body.toString('utf8').length;
  if (characters <= MAX_BODY_BYTES) return undefined;
  return {
    ...reject(413, 'payload_too_large', `the body is ${characters} characters, over the limit of ${MAX_BODY_BYTES}`),
    close: true,
  };
}

/** §5.5 as the faults bend it: `no-window`, `past-only-window`, `reserialising-verifier`. */
export function signaturePolicy(has: HasFault): ReceiverProfile<true>['signature'] {
  const pastOnly = has('past-only-window');
  return {
    windowSeconds: has('no-window') || pastOnly ? Number.MAX_SAFE_INTEGER : SIGNATURE_WINDOW_SECONDS,
    signedBytes: has('reserialising-verifier') ? reserialise : undefined,
    afterVerify: pastOnly
      ? (result) =>
          (result.ageSeconds ?? 0) > SIGNATURE_WINDOW_SECONDS
            ? {
                reason: 'timestamp_outside_window',
                message: `the timestamp is ${result.ageSeconds} s old, outside the ${SIGNATURE_WINDOW_SECONDS} s window`,
              }
            : undefined
      : undefined,
  };
}

/** §2.4–§2.7 (with `lax-schema` and `reject-unknown-fields` as the faults bend them). */
export function checkEvent(
  validator: Validator,
  document: unknown,
  has: HasFault,
  catalog: readonly Branch[] | undefined,
): ValidationIssue[] {
  const fields = asObject(document);
  if (has('lax-schema')) {
    if (fields && typeof fields.event === 'string' && typeof fields.event_id === 'string') return [];
    return [{ path: '', code: 'invalid_type', message: 'expected an object with event and event_id' }];
  }
  const errors = [...validator.validateDocument(document, { kind: 'event', catalog }).errors];
  const eventId = fields?.event_id;
  if (has('event-id-utf16-length') && typeof eventId === 'string' && eventId.length > MAX_EVENT_ID_LENGTH) {
    errors.push({
      path: 'event_id',
      code: 'too_long',
      message: `event_id is ${eventId.length} characters, over ${MAX_EVENT_ID_LENGTH}`,
    });
  }
  if (has('reject-unknown-fields') && fields) {
    for (const name of Object.keys(fields)) {
      if (!validator.eventFields.has(name))
        errors.push({ path: name, code: 'unknown_field', message: `unknown field ${name}` });
    }
  }
  return errors;
}

/** The `reserialising-verifier` defect: what a framework's parsed-and-restringified body looks like. */
function reserialise(body: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8'))));
  } catch {
    return body;
  }
}
