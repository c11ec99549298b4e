/**
 * The two receivers the suite judges, as the checks both interfaces share see them: the platform's events
 * endpoint (Interface B, §4.2) and the provider's contact-jobs endpoint (Interface A, §4.1). Each supplies a
 * valid document with the check's own event_id, and how a title says it refuses; what an answer must be is the
 * model's (src/spec/model). checkOn and probeOn build a check on one of them from its id.
 */
import { randomBytes } from 'node:crypto';
import type { EventType, InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec, type InterfaceSpec } from '../../../spec/interfaces.js';
import { defineCheck, type ReceiverCheck, type ReceiverCheckSpec } from '../../check.js';
import { compact, eventDoc, jobDoc, type Doc } from '../../probe/bodies.js';
import { defineProbe, type ProbeSpec } from '../../probe/cases.js';
import type { ProbeScope } from '../../probe/scope.js';
import type { CheckLevel } from '../../types.js';

/** A receiver as the checks see it: its row of the interface table, and the valid document it is sent. */
export interface Receiver {
  interface: InterfaceId;
  spec: InterfaceSpec;
  /** A valid document with a fresh event_id: a conversation.message (B), a contact job (A). */
  document(scope: ProbeScope): Doc;
  /** A free-text string field of that document (the raw-body checks fill it with non-ASCII text). */
  textField: string;
  /**
   * How a title says the receiver refuses a wrong signature, a timestamp outside the window, an unknown sender
   * (`authentication`), or a missing or malformed X-CAI-* header: `is rejected`, or `is rejected with 401` where §7
   * fixes it.
   */
  refuses: {
    authentication: string;
    header: string;
  };
}

/** Checks by interface; a theme that only one interface has leaves the other out. */
export type ByInterface = Partial<Record<InterfaceId, readonly ReceiverCheck[]>>;

/** Where no callback listener runs, jobs point at a name that can never resolve (RFC 2606 `.invalid`). */
const NOWHERE_CALLBACK_URL = 'https://callback.invalid/cai-conformance';

function freshLead(): string {
  return `lead-conf-${randomBytes(6).toString('hex')}`;
}

/** A secret that is surely not the receiver's. */
export function anotherSecret(): string {
  return randomBytes(24).toString('hex');
}

/** A valid event for the known lead (--lead-id) when one is given; otherwise for a fresh lead (§6.3 allows it). */
export function event(scope: ProbeScope, type: EventType = 'conversation.message'): Doc {
  return eventDoc(type, scope.eventId(), scope.session.config.leadId ?? freshLead(), scope.session.config.branchCode);
}

/**
 * A valid contact job. Its callback_url is the callback listener's (a path whose events no check reads) when it
 * runs, so that a provider calling back is answered; nowhere without one.
 */
export function job(scope: ProbeScope, callbackUrl?: string): Doc {
  const harness = scope.session.callback;
  const url = callbackUrl ?? (harness ? harness.backgroundUrl(scope.meta.id.toLowerCase()) : NOWHERE_CALLBACK_URL);
  return jobDoc(scope.eventId(), freshLead(), url, scope.session.config.branchCode);
}

/** A contact job cut to §2.2's required fields alone. */
export function requiredFieldsOf(doc: Doc): Doc {
  const contact = doc.contact as Doc;
  return {
    lead_id: doc.lead_id,
    event_id: doc.event_id,
    branch_code: doc.branch_code,
    contact: { name: contact.name, phone_e164: contact.phone_e164 },
    callback_url: doc.callback_url,
  };
}

/** A receiver from its row of the interface table (§7 fixes B's statuses; §4.1 leaves A's open: any 4xx refuses). */
function receiverOf(iface: InterfaceId): Receiver {
  const spec = interfaceSpec(iface);
  return {
    interface: iface,
    spec,
    document: (scope) => (spec.document === 'event' ? event(scope) : job(scope)),
    textField: spec.fields.text,
    refuses: {
      authentication: spec.refusals === 'fixed' ? 'is rejected with 401' : 'is rejected',
      header: 'is rejected',
    },
  };
}

export const EVENTS_RECEIVER: Receiver = receiverOf('B');
export const JOBS_RECEIVER: Receiver = receiverOf('A');

/** Themes joined into one, each interface's checks in the order given. */
export function joined(...themes: readonly ByInterface[]): ByInterface {
  return { B: themes.flatMap((theme) => theme.B ?? []), A: themes.flatMap((theme) => theme.A ?? []) };
}

/** A theme both interfaces share: the same factory, once per receiver. */
export function forBoth(build: (receiver: Receiver) => readonly ReceiverCheck[]): ByInterface {
  return { B: build(EVENTS_RECEIVER), A: build(JOBS_RECEIVER) };
}

/**
 * The id of a shared row on one receiver: `B-SIG-003` from `B` and `SIG-003` (the same number on both interfaces),
 * or the row's own id for that interface where the two sequences had already parted (`{ B: 'B-AUTH-017', A: 'A-AUTH-015' }`).
 */
export function checkId(receiver: Receiver, local: string | Partial<Record<InterfaceId, string>>): string {
  if (typeof local === 'string') return `${receiver.interface}-${local}`;
  const id = local[receiver.interface];
  if (id === undefined) throw new Error(`no ${receiver.interface} id for the row ${JSON.stringify(local)}`);
  return id;
}

/** The receivers a shared row applies to: both, unless its ids name only one. */
export function appliesTo(receiver: Receiver, local: string | Partial<Record<InterfaceId, string>>): boolean {
  return typeof local === 'string' || local[receiver.interface] !== undefined;
}

/** A check's spec without what the receiver and its id give it; a `must` unless it says otherwise. */
type OnReceiver<Spec> = Omit<Spec, 'id' | 'interface' | 'level'> & { level?: CheckLevel };

/** A check of one receiver, by its id. */
export function checkOn<Evidence extends object>(
  receiver: Receiver,
  id: string,
  spec: OnReceiver<ReceiverCheckSpec<Evidence>>,
): ReceiverCheck<Evidence> {
  return defineCheck<Evidence>({ id, interface: receiver.interface, level: 'must', ...spec });
}

/** A probe of one receiver, by its id: one request, the receiver's valid document unless `send` says otherwise. */
export function probeOn(
  receiver: Receiver,
  id: string,
  spec: OnReceiver<Omit<ProbeSpec, 'send'>> & Partial<Pick<ProbeSpec, 'send'>>,
): ReceiverCheck {
  return defineProbe({
    id,
    interface: receiver.interface,
    level: 'must',
    send: (scope) => ({ body: compact(receiver.document(scope)) }),
    ...spec,
  });
}
