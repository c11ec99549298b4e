/**
 * The likely cause of a refused signature, in a few words for the mock's one line per request: the first of the
 * diagnoses `cai verify` and the inspector give (src/signing/diagnose.ts, src/inspector/explain.ts), shortened. The
 * inspector (`--ui`) shows them whole.
 */
import type { ObservedRequest } from '../../mock/pipeline.js';
import type { Explanation, InspectorSigning } from '../../inspector/explain.js';
import type { DiagnosisCode } from '../../signing/diagnose.js';

const SHORT: Partial<Record<DiagnosisCode, string>> = {
  uppercase_hex: 'the signature is in uppercase hex (§5.3: lowercase)',
  missing_prefix: 'the signature lacks its sha256= prefix (§5.3)',
  wrong_prefix: 'the signature has the wrong prefix (§5.3: sha256=)',
  base64_signature: 'the signature is base64 (§5.3: hex)',
  timestamp_in_milliseconds: 'the timestamp is in milliseconds (§4: unix seconds)',
  body_reserialised: 'the sender signed a re-serialised body, not the bytes sent (§5.2)',
  trailing_newline_added: 'a newline was added to the body after signing',
  trailing_newline_removed: 'the body lost its trailing newline after signing',
  line_endings_changed: "the body's line endings changed after signing",
  missing_timestamp_prefix: 'the sender signed the body without "timestamp." (§5.2)',
  timestamp_without_dot: 'the sender signed the timestamp without the dot (§5.2)',
  secret_whitespace: 'the secret has stray whitespace',
  other_direction_secret: "signed with another secret than this credential's (§5.1, §5.6)",
  signature_over_other_content: 'another secret, or other bytes than those sent',
};

/** A cause in a few words, from what the inspector's explanation of the request says; undefined when it says none. */
export function likelyCause(explanation: Explanation): string | undefined {
  const signature = explanation.signature;
  if (signature === undefined) return undefined;
  for (const diagnosis of signature.diagnoses) {
    if (diagnosis.code === 'clock_skew' && signature.skewSeconds !== undefined) {
      return `the sender's clock is ${Math.abs(signature.skewSeconds)} s ${signature.skewSeconds > 0 ? 'behind' : 'ahead'} (§5.5: ±${signature.windowSeconds} s)`;
    }
    const short = SHORT[diagnosis.code];
    if (short !== undefined) return short;
  }
  return undefined;
}

/** The explanation the inspector would give of an observed request, without keeping it anywhere. */
export type ExplainObserved = (observed: ObservedRequest) => string | undefined;

export async function loadCauseFinder(signing: InspectorSigning): Promise<ExplainObserved> {
  const { explain } = await import('../../inspector/explain.js');
  return (observed) => {
    const { entry, method, target, httpVersion, rawHeaders, remoteAddress, body, reply } = observed;
    return likelyCause(
      explain(
        {
          id: 0,
          bytes: 0,
          entry,
          method,
          target,
          httpVersion,
          rawHeaders,
          headersCut: 0,
          remoteAddress,
          body,
          bodyBytes: body?.length,
          reply,
        },
        signing,
      ),
    );
  };
}
