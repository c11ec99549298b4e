/**
 * Every problem of a request's signature headers (§5), where verify() stops at the first: a missing signature and a
 * timestamp outside the window, a malformed timestamp and a malformed signature, a stale timestamp and a signature
 * that matches no secret. Each is verify()'s own verdict, asked again with the problem found put aside (a
 * well-formed stand-in for the header judged, a window wide enough), so the rules stay in verify.ts alone.
 */
import { verify, type VerifyInput, type VerifyReason, type VerifyResult } from './verify.js';

export interface SignatureProblem {
  reason: VerifyReason;
  message: string;
}

const TIMESTAMP_PROBLEMS: ReadonlySet<VerifyReason> = new Set([
  'missing_timestamp',
  'malformed_timestamp',
  'timestamp_too_old',
  'timestamp_in_future',
]);
const SIGNATURE_FORM_PROBLEMS: ReadonlySet<VerifyReason> = new Set(['missing_signature', 'malformed_signature']);
/** A well-formed signature that stands in for a missing or malformed one while the timestamp is judged. */
const STAND_IN_SIGNATURE = `sha256=${'0'.repeat(64)}`;

/** verify()'s verdict, then the problems it did not get to; empty for a valid signature. */
export function everyProblem(input: VerifyInput, first: VerifyResult = verify(input)): SignatureProblem[] {
  if (first.valid) return [];
  const problems: SignatureProblem[] = [first];
  const add = (result: VerifyResult, wanted: ReadonlySet<VerifyReason>) => {
    if (!result.valid && wanted.has(result.reason)) problems.push({ reason: result.reason, message: result.message });
  };
  if (SIGNATURE_FORM_PROBLEMS.has(first.reason)) {
    // The timestamp, judged as if the signature were well-formed (§5.4, §5.5).
    add(verify({ ...input, signature: STAND_IN_SIGNATURE }), TIMESTAMP_PROBLEMS);
  } else if (first.reason === 'missing_timestamp' || first.reason === 'malformed_timestamp') {
    // The signature's form, judged with a timestamp of now (§5.3).
    add(verify({ ...input, timestamp: String(input.now ?? Math.floor(Date.now() / 1000)) }), SIGNATURE_FORM_PROBLEMS);
  } else if (
    (first.reason === 'timestamp_too_old' || first.reason === 'timestamp_in_future') &&
    first.signatureMatches === false
  ) {
    // Outside the window, and signed with no given secret either (§5.2, §5.3).
    add(verify({ ...input, windowSeconds: Number.MAX_SAFE_INTEGER }), new Set(['signature_mismatch']));
  }
  return problems.map(({ reason, message }) => ({ reason, message }));
}
