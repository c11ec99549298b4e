/**
 * The Interface B reference receiver (`cai mock platform`): what it adds to the receive pipeline (pipeline.ts), its
 * credentials (§1, §5.6), origins (§5.7), rate (§7), known leads (§6.3) and injected failures; its defects are
 * platform-faults.ts's.
 */
import type { IncomingMessage } from 'node:http';
import { codedError, usageError } from '../errors.js';
import { headerValue, type Reply } from '../http/server.js';
import { DUPLICATE_ACK } from '../spec/acknowledgment.js';
import { Headers } from '../spec/constants.js';
import type { Branch } from '../spec/validate.js';
import { resolveBounds, type Bounds } from './bounds.js';
import { DedupeIndex } from './dedupe.js';
import { checkFaults, PLATFORM_FAULTS, type PlatformFault } from './faults.js';
import { OriginAllowList, parseCidr } from './origin.js';
import { bodyLimitBytes, characterLimit, checkEvent, signaturePolicy } from './platform-faults.js';
import {
  startReceiver,
  type Admitted,
  type Credential,
  type MockRequestEntry,
  type Received,
  type ReceiverProfile,
  type Reject,
  type StartedReceiver,
} from './pipeline.js';
import { RateLimiter } from './rate-limit.js';
import { dedupeKeyOf, signedTimestamp, wireCheck } from './receiver-faults.js';
import { eventIdOf } from '../spec/json.js';
import { receivedHeaders } from './request.js';
import type { RecordStore } from './log.js';
import { requireProviderCode, requireSecrets, sharedProfile, type MockReceiverOptions } from './receiver-options.js';
import { interfaceReceivedBy } from '../spec/interfaces.js';

export type { MockRequestEntry, ObservedRequest, RequestObserver, RunningMock } from './pipeline.js';

export interface RunningMockPlatform extends StartedReceiver {
  /** Registers a lead the platform "knows" (§6.3: others are still accepted, marked for reconciliation). */
  addKnownLead(leadId: string): void;
  /** Events already accepted in the log when the mock started (restart on the same --log). */
  readonly reloaded: number;
}

export interface MockPlatformOptions extends MockReceiverOptions {
  /** Path of the events endpoint (§4.2); default `/events`. */
  path?: string;
  /** The provider code of the live credential (§5.6). */
  providerCode: string;
  /** Live secrets, Interface B direction; any verifies (rotation, §5.9). */
  secrets: readonly string[];
  /** §1: test credentials, whose events land in a separate space with their own dedupe. */
  testProviderCode?: string;
  testSecrets?: readonly string[];
  /** Requests per second over which 429 is answered (§7). */
  rateLimit?: number;
  /**
   * The `Retry-After` of every 429, in seconds (default: the whole seconds until a request would pass, at least 1).
   * 0 is legal (§7 gives no minimum): a sender, or the conformance suite, must cope with it.
   */
  retryAfterSeconds?: number;
  /** §5.7: CIDR blocks (IPv4 or IPv6) allowed to call; none = anyone. */
  allowOrigins?: readonly string[];
  /** Fault injection for senders' retry logic: fraction of requests answered 503. */
  failRate?: number;
  /** The first N attempts of each event_id are answered 503. */
  failFirst?: number;
  /** §6.3: leads the platform knows; when given, records carry `lead_known`. */
  knownLeads?: Iterable<string>;
  /** Passed to the validator (unknown branch_code values). */
  catalog?: readonly Branch[];
}

/** The toolkit's first-time 202 body (§4.2: "not shown"; §6.5: any 2xx means accepted). */
const ACCEPTED_BODY = Buffer.from('{"ok":true}');
// §2.13: the duplicate acknowledgment.
const DUPLICATE_BODY = Buffer.from(JSON.stringify(DUPLICATE_ACK));
/** The interface the platform receives (§1): events. */
const RECEIVED = interfaceReceivedBy('platform');

/** Checks options that a caller can get wrong, as usage errors (the CLI's flags are checked by commander first). */
function checkOptions(options: MockPlatformOptions): { faults: Set<PlatformFault>; origins?: OriginAllowList } {
  requireProviderCode('platform', options.providerCode);
  requireSecrets(options.secrets, 'no secret for the live provider', 'live');
  if (options.testProviderCode !== undefined) {
    if (!options.testSecrets?.length)
      throw codedError('usage', 'missing_secret', `no secret for the test provider ${options.testProviderCode}`, {
        credential: 'test',
      });
    if (options.testProviderCode === options.providerCode)
      throw usageError(
        'bad_test_provider',
        'the test provider code is the live provider code',
        'give the test credential its own code (§1: test data lands in an isolated space)',
      );
  }
  return { faults: checkFaults(options.faults, PLATFORM_FAULTS, 'platform'), origins: allowList(options.allowOrigins) };
}

function allowList(texts: readonly string[] | undefined): OriginAllowList | undefined {
  if (!texts?.length) return undefined;
  const cidrs = texts.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr)
      throw usageError(
        'bad_cidr',
        `not an address or CIDR block: ${text}`,
        'use e.g. 203.0.113.0/24, 2001:db8::/32 or 127.0.0.1',
      );
    return cidr;
  });
  return new OriginAllowList(cidrs);
}

/**
 * Starts the Interface B reference receiver (§4.2, §5–§8). The order of checks is the pipeline's (pipeline.ts):
 * method and path, origin (401), declared size (413), rate (429), provider (401), signature headers and window
 * (401), body size, stall and memory while reading (413, 408, 503), signature (401), JSON and schema (400),
 * injected failures (503), dedupe (202).
 */
export async function startMockPlatform(options: MockPlatformOptions): Promise<RunningMockPlatform> {
  const { faults, origins } = checkOptions(options);
  const bounds = resolveBounds(options);
  const knownLeads = options.knownLeads ? new Set(options.knownLeads) : undefined;
  // Dedupe, one index per space (§1): the event_id of every event stored, in this run or an earlier one.
  const indexes: SpaceIndexes = {
    live: new DedupeIndex(bounds.dedupeCapacity),
    test: new DedupeIndex(bounds.dedupeCapacity),
  };
  let reloaded = 0;
  const path = options.path ?? '/events';
  const started = await startReceiver(options, bounds, {
    reload(head) {
      if (
        head.interface !== RECEIVED.id ||
        head.verdict !== 'accepted' ||
        (head.space !== 'live' && head.space !== 'test')
      )
        return;
      indexes[head.space].remember(head.event_id, true);
      reloaded += 1;
    },
    profile: (store) => platformProfile(options, path, { faults, origins, knownLeads, indexes, store, bounds }),
    urlPath: path,
  });
  return {
    ...started,
    reloaded,
    addKnownLead(leadId: string) {
      knownLeads?.add(leadId);
    },
  };
}

type SpaceIndexes = Record<'live' | 'test', DedupeIndex<true>>;

interface PlatformState {
  faults: Set<PlatformFault>;
  origins?: OriginAllowList;
  knownLeads?: Set<string>;
  indexes: SpaceIndexes;
  store: RecordStore;
  bounds: Bounds;
}

/** What the Interface B receiver adds to the pipeline: provider credentials, origins, rate, its faults. */
function platformProfile(options: MockPlatformOptions, path: string, state: PlatformState): ReceiverProfile<true> {
  const has = (fault: PlatformFault) => state.faults.has(fault);
  const injectFailure = failureInjector(options);
  const duplicateReply: Reply = has('duplicate-without-body') ? { status: 202 } : { status: 202, body: DUPLICATE_BODY };
  const acceptedReply: Reply = { status: has('accepted-200') ? 200 : 202, body: ACCEPTED_BODY };
  const wire = wireCheck(state.faults);
  const origins = state.origins ? originCheck(state.origins) : undefined;
  // `dedupe-before-auth`: a repeat is answered before its signature is checked.
  const duplicateBeforeAuth = ({ body, credential, entry }: Received): Reply | undefined => {
    const eventId = eventIdOf(body);
    if (eventId === undefined || !state.indexes[credential.space].has(dedupeKeyOf(eventId, state.faults)))
      return undefined;
    entry.event_id = eventId;
    entry.verdict = 'duplicate';
    return duplicateReply;
  };
  return {
    interface: 'B',
    kind: 'event',
    name: 'cai mock platform',
    path,
    methodHint: 'events are POSTed (§4.2)',
    pathHint: `events go to ${path} (§4.2)`,
    sizeRule: ' (§8)',
    limitBytes: bodyLimitBytes(has),
    ...sharedProfile(options, state.bounds, state.store),
    entryFields: ['event', 'event_id', 'lead_id'],
    indexFor: ({ credential }) => state.indexes[credential.space],
    dedupe: has('no-dedupe') ? 'none' : has('racy-dedupe') ? 'racy' : 'atomic',
    signature: { ...signaturePolicy(has), signedTimestamp: signedTimestamp(state.faults) },
    faults: state.faults,
    admit: origins || wire ? (request, reject) => origins?.(request, reject) ?? wire?.(request, reject) : undefined,
    throttle: options.rateLimit
      ? rateCheck(options.rateLimit, has('no-retry-after'), options.retryAfterSeconds)
      : undefined,
    identify: credentialLookup(options, has('any-provider')),
    beforeAuthenticate:
      has('dedupe-before-auth') || has('size-in-characters')
        ? (received, reject) =>
            (has('size-in-characters') ? characterLimit(received.body, reject) : undefined) ??
            (has('dedupe-before-auth') ? duplicateBeforeAuth(received) : undefined)
        : undefined,
    checkDocument: (validator, document) => checkEvent(validator, document, has, options.catalog),
    inspect: (admitted, reject) =>
      checkLead(admitted, state.knownLeads, has('reject-unknown-lead'), reject) ?? injectFailure(admitted, reject),
    acknowledge: () => true,
    recordHead: (admitted, verdict) => eventRecordHead(admitted, verdict),
    answer: (_admitted, verdict) => (verdict === 'accepted' ? acceptedReply : duplicateReply),
  };
}

/** §5.7: only registered origins may call. */
function originCheck(origins: OriginAllowList) {
  return (request: IncomingMessage, reject: Reject): Reply | undefined =>
    origins.allows(request.socket.remoteAddress)
      ? undefined
      : reject(401, 'origin_not_allowed', `origin ${request.socket.remoteAddress} is not an authorised address (§5.7)`);
}

/** §7: over the request cap, 429 with Retry-After (without it under `no-retry-after`). */
function rateCheck(perSecond: number, withoutRetryAfter: boolean, fixedRetryAfter: number | undefined) {
  const limiter = new RateLimiter(perSecond);
  return (reject: Reject): Reply | undefined => {
    const due = limiter.take();
    if (due === undefined) return undefined;
    const retryAfter = fixedRetryAfter ?? due;
    const headers = withoutRetryAfter ? undefined : { 'retry-after': String(retryAfter) };
    return reject(
      429,
      'rate_limited',
      `over the cap of ${capText(perSecond)} (§7)`,
      { retry_after: retryAfter },
      headers,
    );
  };
}

/** §5.6: X-CAI-Provider names the credential, live or test (§1); `any-provider` takes any code as live. */
function credentialLookup(options: MockPlatformOptions, anyProvider: boolean) {
  const credentials = new Map<string, Credential>([
    [options.providerCode, { code: options.providerCode, secrets: options.secrets, space: 'live' }],
  ]);
  if (options.testProviderCode !== undefined && options.testSecrets) {
    credentials.set(options.testProviderCode, {
      code: options.testProviderCode,
      secrets: options.testSecrets,
      space: 'test',
    });
  }
  return (request: IncomingMessage, entry: MockRequestEntry, reject: Reject): Credential | Reply => {
    const code = headerValue(request, Headers.provider);
    const credential = code
      ? (credentials.get(code) ?? (anyProvider ? { code, secrets: options.secrets, space: 'live' } : undefined))
      : undefined;
    if (!credential) {
      return reject(
        401,
        'unknown_provider',
        code
          ? `X-CAI-Provider "${code}" is not a known provider (§5.6)`
          : 'the X-CAI-Provider header is missing (§4.2)',
      );
    }
    entry.space = credential.space;
    entry.provider_code = credential.code;
    return credential;
  };
}

/** §6.3: an unknown lead is accepted and marked for reconciliation (refused under `reject-unknown-lead`). */
function checkLead(
  { document, entry }: Admitted,
  knownLeads: Set<string> | undefined,
  rejectUnknown: boolean,
  reject: Reject,
): Reply | undefined {
  const leadId = document.lead_id;
  if (typeof leadId !== 'string') return undefined;
  if (knownLeads) entry.lead_known = knownLeads.has(leadId);
  if (rejectUnknown && !entry.lead_known) return reject(400, 'unknown_lead', `lead_id "${leadId}" is not known`);
  return undefined;
}

/** --fail-first and --fail-rate: 503s for testing a sender's retries (counted per space and event_id). */
function failureInjector(options: MockPlatformOptions) {
  const attempts = new Map<string, number>();
  const random = options.random ?? Math.random;
  return ({ credential, document, entry }: Admitted, reject: Reject): Reply | undefined => {
    if (options.failFirst) {
      const key = `${credential.space}\u0000${String(document.event_id)}`;
      const count = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, count);
      if (count <= options.failFirst) {
        entry.verdict = 'injected';
        return reject(
          503,
          'injected_failure',
          `attempt ${count} of this event_id fails: the first ${options.failFirst} of each fail on purpose`,
        );
      }
    }
    if (options.failRate && random() < options.failRate) {
      entry.verdict = 'injected';
      return reject(503, 'injected_failure', `failed at random on purpose (a share of ${options.failRate})`);
    }
    return undefined;
  };
}

function eventRecordHead({ entry, credential, document, request }: Admitted, verdict: 'accepted' | 'duplicate') {
  return {
    v: 1 as const,
    received_at: entry.received_at,
    space: credential.space,
    interface: 'B' as const,
    kind: 'event' as const,
    status: 202,
    verdict,
    provider_code: credential.code,
    event_id: document.event_id as string,
    event: typeof document.event === 'string' ? document.event : undefined,
    lead_id: typeof document.lead_id === 'string' ? document.lead_id : undefined,
    lead_known: entry.lead_known,
    headers: receivedHeaders(request),
  };
}

/** A cap per second as people write it: `10 requests per second`, `7 requests per minute` (never a long fraction). */
function capText(perSecond: number): string {
  const [count, unit] =
    perSecond >= 1
      ? [perSecond, 'second']
      : perSecond * 60 >= 1
        ? [perSecond * 60, 'minute']
        : [perSecond * 3600, 'hour'];
  return `${Number(count.toPrecision(6))} requests per ${unit}`;
}
