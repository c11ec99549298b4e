/**
 * A receiver that refuses a valid, correctly signed request: the same request is sent again, signed each of the
 * usual wrong ways (./variants.ts), one after the other, until the receiver accepts one. That one names the mistake
 * in the receiver's verification. First the request signed correctly once more (a refusal that does not repeat is
 * no diagnosis), then signed with a wrong secret: a receiver that answers it differently tells a wrong signature
 * from a right one, so what it refuses is not the signature.
 */
import { randomBytes } from 'node:crypto';
import { isRejection } from '../../spec/statuses.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { describeAnswer } from '../evidence.js';
import { ProbeScope } from '../probe/scope.js';
import { isAccepted } from '../probe/verdict.js';
import type { Session } from '../probe/session.js';
import type { SignatureFinding, SigningTrial } from './types.js';
import {
  correctHeaders,
  FAMILY_WORDS,
  reserialisedCause,
  VARIANTS,
  type SignedHeaders,
  type SigningInput,
  type SigningVariant,
  type VariantFamily,
} from './variants.js';

/**
 * Whether an answer to a valid, correctly signed request refuses it the way a verification does: 401 or 403 where
 * §7 fixes the statuses (B), any 4xx where the spec leaves them open (A, §4.1).
 */
export function refusesValid(iface: InterfaceId, status: number | undefined): boolean {
  if (status === undefined) return false;
  return interfaceSpec(iface).refusals === 'fixed' ? status === 401 || status === 403 : isRejection(status);
}

/**
 * An answer with what varies from request to request taken out (cai's event_ids, long hex or base64 tokens,
 * numbers), so that two answers given for the same reason compare equal.
 */
export function answerShape(answer: string): string {
  const status = /^\d{3}\b/.exec(answer)?.[0] ?? '';
  return (
    status +
    answer
      .slice(status.length)
      .replace(/cai-conf-[\w.~-]+/g, 'ID')
      .replace(/[A-Za-z0-9_+/=-]*\d[A-Za-z0-9_+/=-]*/g, (token) =>
        token.length >= 8 ? 'ID' : token.replace(/\d+/g, 'N'),
      )
  );
}

export interface RefusalInput {
  interface: InterfaceId;
  /** The refused body, sent again as it is. */
  body: Buffer;
  /** The secrets of the run (the first signs) and, on Interface A, the events secret. */
  secrets: readonly string[];
  otherSecret?: string;
}

/** Any fixed time: signings are compared as they come out at the same moment. */
const REFERENCE_SECONDS = 1_700_000_000;

/**
 * Sends the diagnostic requests; undefined when the correct signing is accepted this time (the refusal did not
 * repeat: nothing to diagnose) or the run was interrupted. Stops at the first signing accepted, so at most one of them leaves a record.
 */
export async function diagnoseSignature(session: Session, input: RefusalInput): Promise<SignatureFinding | undefined> {
  // Names the diagnostic requests in the receiver's log (`cai-conf-<run>-diagnosis-<n>` where cai makes the document).
  const scope = new ProbeScope(session, { id: 'DIAGNOSIS' });
  const trials: SigningTrial[] = [];
  const signing = (): SigningInput => ({
    secret: input.secrets[0] ?? '',
    moreSecrets: input.secrets.slice(1),
    ...(input.otherSecret !== undefined ? { otherSecret: input.otherSecret } : {}),
    nowSeconds: session.targetNowSeconds(),
    body: input.body,
  });
  const send = async (variant: string, signed: string, headers: SignedHeaders) => {
    const exchange = await scope.send({
      body: input.body,
      timestamp: { kind: 'literal', value: headers.timestamp },
      signature: { kind: 'literal', value: headers.signature },
    });
    trials.push({
      variant,
      signed,
      answer: describeAnswer(exchange),
      ...(exchange.status !== undefined ? { status: exchange.status } : {}),
      accepted: isAccepted(exchange),
    });
    return exchange;
  };

  const control = await send('raw', 'over the raw bytes (correctly)', correctHeaders(signing()));
  if (isAccepted(control) || session.signal.aborted) return undefined;
  const wrong = await send(
    'wrong-secret',
    'with a secret that is surely wrong',
    correctHeaders(signing(), randomBytes(24).toString('hex')),
  );
  if (session.signal.aborted) return undefined;
  if (answerShape(describeAnswer(wrong)) !== answerShape(describeAnswer(control))) {
    return { signatureAccepted: { wrongSignatureAnswer: describeAnswer(wrong) }, ruledOut: [], trials };
  }

  const tried: SigningVariant[] = [];
  // Signings compared at one reference time: one that comes out as the correct one (a compact body re-serialised
  // compact) was refused already, and two that come out alike are one trial.
  const reference = { ...signing(), nowSeconds: REFERENCE_SECONDS };
  const signedAs = (headers: SignedHeaders | undefined) => JSON.stringify(headers);
  const seen = new Set([signedAs(correctHeaders(reference))]);
  for (const variant of VARIANTS) {
    if (session.signal.aborted) break;
    const key = signedAs(variant.headers(reference));
    const headers = variant.headers(signing());
    if (headers === undefined) continue;
    // Signed as the correct request was, or as a signing already tried: refused already.
    if (seen.has(key)) {
      tried.push(variant);
      continue;
    }
    seen.add(key);
    const exchange = await send(variant.id, variant.signed, headers);
    if (isAccepted(exchange)) {
      const alike = VARIANTS.filter((other) => other !== variant && signedAs(other.headers(reference)) === key);
      return {
        cause: {
          variant: variant.id,
          message: causeOf(variant, alike),
          sections: variant.sections,
          answer: describeAnswer(exchange),
        },
        ruledOut: ruledOut(tried),
        trials,
      };
    }
    tried.push(variant);
  }
  // Interrupted: what was not sent rules nothing out.
  if (session.signal.aborted) return undefined;
  return { ruledOut: ruledOut(tried), trials };
}

/**
 * The cause a signing names. Two re-serialisations can give the same bytes for one body (JSON.stringify and
 * Python's compact form, for ASCII text): the body cannot tell them apart, so the cause names both.
 */
function causeOf(variant: SigningVariant, alike: readonly SigningVariant[]): string {
  const others = alike.filter((other) => other.what !== undefined);
  if (variant.what === undefined || others.length === 0) return variant.cause;
  return reserialisedCause(
    `${variant.what} (for this body, ${others.map((other) => other.short).join(' and ')} give${others.length === 1 ? 's' : ''} the same bytes)`,
  );
}

/** `re-serialisations of the body (json.dumps, compact, …)`, one phrase per family tried, in the order tried. */
function ruledOut(tried: readonly SigningVariant[]): string[] {
  const families = new Map<VariantFamily, string[]>();
  for (const variant of tried) families.set(variant.family, [...(families.get(variant.family) ?? []), variant.short]);
  return [...families].map(([family, names]) => `${FAMILY_WORDS[family]} (${names.join(', ')})`);
}
