/**
 * The first valid, correctly signed request of a receiver run was refused: instead of sending the suite, whose
 * every check would fail the same way, cai diagnoses the refusal (./refusal.ts) and the run stops with it. When no
 * signing is accepted, the diagnosis lists the causes left, most likely first, with what the requests ruled out.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';
import type { Session } from '../probe/session.js';
import { diagnoseSignature, refusesValid, type RefusalInput } from './refusal.js';
import type { Plan } from '../catalogue.js';
import type { Preflight } from '../preflight.js';
import type { RefusalDiagnosis, SignatureFinding } from './types.js';
import { optionName } from '../../errors.js';
import { asObject, jsonValueOf } from '../../spec/json.js';

type PreflightRefusal = RefusalInput & { refused: RefusalDiagnosis['refused'] };

/**
 * The first valid request refused (401, 403; any 4xx on A): the diagnosis the run stops with, or undefined when the
 * refusal did not repeat and the checks run.
 */
export async function diagnoseRefusal(
  session: Session,
  preflight: Preflight | undefined,
  credentials: { secrets: string[]; callbackSecrets: string[] },
  plan: Plan,
): Promise<RefusalDiagnosis | undefined> {
  if (!preflight || !refusesValid(session.config.interface, preflight.status)) return undefined;
  const refusal: PreflightRefusal = {
    interface: session.config.interface,
    body: preflight.body,
    refused: preflight.report,
    secrets: credentials.secrets,
    ...(credentials.callbackSecrets[0] !== undefined ? { otherSecret: credentials.callbackSecrets[0] } : {}),
  };
  const finding = await diagnoseSignature(session, refusal);
  if (finding === undefined) return undefined;
  const clockKnown = session.clock.offsetSeconds !== null;
  const ruledOut = [...finding.ruledOut];
  if (!finding.cause && !finding.signatureAccepted && clockKnown) {
    const offset = session.clock.offsetSeconds ?? 0;
    ruledOut.push(
      `the clock (cai signed on the receiver's own, read from its Date header: ${offset >= 0 ? '+' : ''}${offset} s from cai's)`,
    );
  }
  return {
    refused: refusal.refused,
    ...finding,
    ruledOut,
    remaining: finding.cause
      ? []
      : withCallbackCause(remainingCauses(session, refusal.interface, finding, clockKnown), refusal),
    // The checks the run would have judged.
    notRun: plan.planned.filter((item) => item.skipReason === undefined).length,
  };
}

/**
 * A job whose callback_url is plain http (cai's own listener, on this machine): a provider that asks TLS for its
 * events (§5.8) refuses it. Named first when the refusal's answer names the field, else after the document's fields.
 */
function withCallbackCause(causes: string[], refusal: PreflightRefusal): string[] {
  const url = asObject(jsonValueOf(refusal.body))?.callback_url;
  if (typeof url !== 'string' || !url.toLowerCase().startsWith('http:') || !causes.length) return causes;
  const cause = `the callback_url: ${JSON.stringify(url.slice(0, 200))} is plain http (cai's listener); a provider that asks TLS for its events (§5.8) refuses it: give an https address that reaches the listener (${optionName('callback-url')})`;
  return /callback/i.test(refusal.refused.actual) ? [cause, ...causes] : [...causes, cause];
}

/** What can still refuse a valid request that no signing made acceptable, most likely first. */
function remainingCauses(
  session: Session,
  iface: InterfaceId,
  finding: SignatureFinding,
  clockKnown: boolean,
): string[] {
  const spec = interfaceSpec(iface);
  const identity = `the ${spec.identityName}: ${spec.identityHeaderName} "${session.config.identity}" is not the one the ${spec.receiver} expects (${spec.identitySection}; ${optionName(spec.identityOption)})`;
  // §5.7: only the platform keeps a list of registered origins; a provider may have one in front of it.
  const origin = spec.authorisedOrigins
    ? "the origin: this machine's address is not among the platform's registered origins (§5.7)"
    : "the origin: an allow-list in front of the provider does not include this machine's address";
  const branch =
    session.config.branchCode !== undefined
      ? ` its branch_code "${session.config.branchCode}" (${optionName('branch-code')}) or`
      : '';
  const documentCause = `the ${spec.documentName} itself: the provider refuses${branch} another of its fields (§2.2)`;
  if (finding.signatureAccepted) return [identity, origin, ...(iface === 'A' ? [documentCause] : [])];
  return [
    `the secret: the receiver's ${spec.secretName} is not the one cai signs with; compare the two byte for byte, for this environment (§5.1)`,
    identity,
    origin,
    ...(clockKnown
      ? []
      : [
          `the clock: the receiver sent no Date header, so cai signed on its own clock; a receiver more than ${SIGNATURE_WINDOW_SECONDS} s off refuses every request (§5.5)`,
        ]),
    ...(iface === 'A' ? [documentCause] : []),
  ];
}
