/**
 * The two interfaces of §1, side by side: one row each, so that code asks the table ("which header carries the
 * sender's identity?") instead of testing the interface's letter. Plain data, no zod: `cai sign` imports it.
 */
import { CONTACT_JOBS_PATH, HeaderNames, Headers, type InterfaceId } from './constants.js';

export interface InterfaceSpec {
  id: InterfaceId;
  /** §4.1 or §4.2: the section of the endpoint. */
  section: '§4.1' | '§4.2';
  /** The section of the document the request carries (§2.2 the contact job, §2.4 the event envelope). */
  documentSection: '§2.2' | '§2.4';
  /** What a request carries, as the validators name it (src/spec/validate.ts) and as a sentence names it. */
  document: 'job' | 'event';
  documentName: 'contact job' | 'event';
  /** Who sends and who receives (§1's table). */
  sender: 'platform' | 'provider';
  receiver: 'provider' | 'platform';
  /** The endpoint as a sentence names it: `the platform's events endpoint`, and with an article, `an events endpoint`. */
  endpointName: string;
  endpointKind: 'an events endpoint' | 'a contact-jobs endpoint';
  /** The sender under test, as a sentence names it. */
  senderName: string;
  /** The address the user gives: the events URL itself (B), or the provider endpoint that §4.1's path is appended to (A). */
  targetName: 'the events URL' | 'the provider endpoint';
  /** Appended to the address given to reach the endpoint (§4.1: `{provider_endpoint}/contact-jobs`). */
  path: '' | typeof CONTACT_JOBS_PATH;
  /** The header that names the sender (§4.1 X-CAI-Source, §4.2 X-CAI-Provider and §5.6), lower-case and as the spec writes it. */
  identityHeader: typeof Headers.source | typeof Headers.provider;
  identityHeaderName: typeof HeaderNames.source | typeof HeaderNames.provider;
  /** What the identity is, and the flag that gives it. */
  identityName: 'platform id' | 'provider code';
  identityFlag: '--source' | '--provider';
  /** The secret of the direction (§5.1), as a sentence names it. */
  secretName: 'jobs secret' | 'events secret';
  /**
   * §7's table of statuses is Interface B's; §4.1 shows no error statuses for A ("not shown"), where any 4xx
   * refuses. `fixed`: 400 for a bad schema, 401 for authentication, 413 for size; `any-4xx` otherwise.
   */
  refusals: 'fixed' | 'any-4xx';
  /** §8 states the 256 KB body limit for Interface B only. */
  sizeLimitStated: boolean;
  /** Id prefixes of the checks: the receiver's (`B`), the sender's (`BS`). */
  receiverCheckPrefix: InterfaceId;
  senderCheckPrefix: 'AS' | 'BS';
}

export const INTERFACE_SPECS: Readonly<Record<InterfaceId, InterfaceSpec>> = {
  A: {
    id: 'A',
    section: '§4.1',
    documentSection: '§2.2',
    document: 'job',
    documentName: 'contact job',
    sender: 'platform',
    receiver: 'provider',
    endpointName: "the provider's contact-jobs endpoint",
    endpointKind: 'a contact-jobs endpoint',
    senderName: "the platform's job sender",
    targetName: 'the provider endpoint',
    path: CONTACT_JOBS_PATH,
    identityHeader: Headers.source,
    identityHeaderName: HeaderNames.source,
    identityName: 'platform id',
    identityFlag: '--source',
    secretName: 'jobs secret',
    refusals: 'any-4xx',
    sizeLimitStated: false,
    receiverCheckPrefix: 'A',
    senderCheckPrefix: 'AS',
  },
  B: {
    id: 'B',
    section: '§4.2',
    documentSection: '§2.4',
    document: 'event',
    documentName: 'event',
    sender: 'provider',
    receiver: 'platform',
    endpointName: "the platform's events endpoint",
    endpointKind: 'an events endpoint',
    senderName: "the provider's event sender",
    targetName: 'the events URL',
    path: '',
    identityHeader: Headers.provider,
    identityHeaderName: HeaderNames.provider,
    identityName: 'provider code',
    identityFlag: '--provider',
    secretName: 'events secret',
    refusals: 'fixed',
    sizeLimitStated: true,
    receiverCheckPrefix: 'B',
    senderCheckPrefix: 'BS',
  },
};

export function interfaceSpec(id: InterfaceId): InterfaceSpec {
  return INTERFACE_SPECS[id];
}

/** Where requests of the interface go, from the address the user gave (§4.1: the path is appended; §4.2: as is). */
export function endpointUrl(id: InterfaceId, address: string): string {
  const { path } = INTERFACE_SPECS[id];
  return path === '' ? address : address.replace(/\/+$/, '') + path;
}
