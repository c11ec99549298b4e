import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FLAG_BOUNDS } from '../bounds-flags.js';
import { codedError } from '../errors.js';
import type { RetryPolicy } from '../http/retry.js';
import { headerValue, jsonReply, type Reply } from '../http/server.js';
import type { CatalogBranch } from '../spec/catalog.js';
import { CONTACT_JOBS_PATH, Headers, MAX_BODY_BYTES } from '../spec/constants.js';
import { resolveBounds, type Bounds } from './bounds.js';
import { DedupeIndex } from './dedupe.js';
import { checkFaults, PROVIDER_FAULTS, type ProviderFault } from './faults.js';
import {
  startReceiver,
  type Admitted,
  type Credential,
  type ReceiverProfile,
  type Reject,
  type StartedReceiver,
} from './pipeline.js';
import { identityRefusal } from './pipeline/steps.js';
import { signedTimestamp, wireCheck } from './receiver-faults.js';
import { receivedHeaders } from './request.js';
import type { EventSender } from './sender.js';
import {
  ConversationSimulator,
  nationalFormat,
  type JobAck,
  type JobDocument,
  type SentEventEntry,
  type SimulatorOptions,
} from './simulator.js';
import type { RecordStore } from './log.js';
import { requireProviderCode, requireSecrets, sharedProfile, type MockReceiverOptions } from './receiver-options.js';
import type { Scenario } from './conversation.js';
import { interfaceReceivedBy } from '../spec/interfaces.js';

export { parseScenario, scenarioName, type Scenario } from './conversation.js';
export type { JobAck, ObservedEvent, SentEventEntry } from './simulator.js';

export interface MockProviderOptions
  extends MockReceiverOptions,
    Pick<SimulatorOptions, 'onEvent' | 'observeSent' | 'onCallbackRetry'> {
  /** Code sent as X-CAI-Provider on every event (§4.2). */
  providerCode: string;
  /** §4.1: when given, X-CAI-Source must be this platform id. */
  sourceId?: string;
  /** Jobs direction: verify Interface A signatures; any verifies (§5.9). */
  secrets: readonly string[];
  /** Events direction: the first signs Interface B events (§5.1). */
  callbackSecrets: readonly string[];
  /** Default: chosen per job from brief.intent. */
  scenario?: Scenario;
  /** Divides every conversation delay (default 1). */
  speed?: number;
  /** Branch catalog: branch_code must be in it, and each unit's number_e164 is its origin number. */
  catalog?: readonly CatalogBranch[];
  /** Retry policy of the event sender (default: the toolkit's). */
  retry?: Partial<RetryPolicy>;
  /** TLS for the callbacks (§5.8): trust this authority (PEM), or skip verification (tests only). */
  callbackTls?: { ca?: Buffer; insecure?: boolean };
  /** Replaces the sender (default: `deliver` with the retry policy). */
  sendEvent?: EventSender;
}

export interface RunningMockProvider extends StartedReceiver {
  /** Resolves when every conversation started so far has ended (tests: wait for the whole lifecycle). */
  idle(): Promise<void>;
  /** The events sent so far, in order. */
  readonly sent: readonly SentEventEntry[];
}

/** The interface the provider receives (§1): contact jobs. */
const RECEIVED = interfaceReceivedBy('provider');

function checkOptions(options: MockProviderOptions): Set<ProviderFault> {
  requireProviderCode('provider', options.providerCode);
  requireSecrets(options.secrets, 'no secret to verify the jobs with', 'jobs');
  requireSecrets(options.callbackSecrets, 'no secret to sign the events with', 'events');
  // A smaller factor stretches a conversation's steps past what Node's timers hold (they fire at once instead).
  if (options.speed !== undefined && !(options.speed >= FLAG_BOUNDS.speed.least))
    throw codedError(
      'usage',
      'bad_speed',
      `the speed must be at least ${FLAG_BOUNDS.speed.least}, not ${options.speed}`,
    );
  return checkFaults(options.faults, PROVIDER_FAULTS, 'provider');
}

/**
 * Starts the Interface A reference receiver (§4.1) and conversation simulator (§3). Order of checks (the
 * pipeline's, pipeline.ts): method and path, declared size (413), X-CAI-Source when --source is given (401),
 * signature headers and window (401), body size, stall and memory while reading (413, 408, 503), signature
 * (401), JSON and schema (400), dedupe (the same 202 again), then 202 and the conversation.
 */
export async function startMockProvider(options: MockProviderOptions): Promise<RunningMockProvider> {
  const faults = checkOptions(options);
  const bounds = resolveBounds(options);
  const has = (fault: ProviderFault) => faults.has(fault);
  const now = options.now ?? Date.now;
  // event_id → the acknowledgment of its first delivery (a repeat gets the same ack, §2.2).
  const index = new DedupeIndex<JobAck>(bounds.dedupeCapacity);
  const simulator = new ConversationSimulator({
    providerCode: options.providerCode,
    secrets: options.secrets,
    callbackSecrets: options.callbackSecrets,
    scenario: options.scenario,
    onEvent: options.onEvent,
    observeSent: options.observeSent,
    onCallbackRetry: options.onCallbackRetry,
    speed: options.speed ?? 1,
    branchName: (code) => options.catalog?.find((branch) => branch.branch_code === code)?.name,
    has,
    sendEvent: options.sendEvent ?? lazySender(options, faults),
    now,
    random: options.random ?? Math.random,
  });
  const started = await startReceiver(options, bounds, {
    reload(head) {
      const { provider_job_id, assigned_number_e164 } = head;
      if (head.interface !== RECEIVED.id || head.verdict !== 'accepted' || !provider_job_id || !assigned_number_e164)
        return;
      index.remember(head.event_id, { provider_job_id, assigned_number_e164 });
    },
    profile: (store) => providerProfile(options, { has, faults, now, index, store, simulator, bounds }),
    urlPath: '',
    stopping: () => simulator.stop(),
    stopped: () => simulator.idle(),
  });
  return { ...started, sent: simulator.sent, idle: () => simulator.idle() };
}

/** The toolkit's sender (undici), loaded with the first event; with a sender fault, the broken one. */
function lazySender(options: MockProviderOptions, faults: ReadonlySet<ProviderFault>): EventSender {
  let loading: Promise<EventSender> | undefined;
  return (request, signal, onRetry) => {
    loading ??= import('./sender.js').then(({ createEventSender }) =>
      createEventSender({ retry: options.retry, tls: options.callbackTls, faults }),
    );
    return loading.then((send) => send(request, signal, onRetry));
  };
}

interface ProviderState {
  has(fault: ProviderFault): boolean;
  faults: ReadonlySet<ProviderFault>;
  now(): number;
  index: DedupeIndex<JobAck>;
  store: RecordStore;
  simulator: ConversationSimulator;
  bounds: Bounds;
}

/** What the Interface A receiver adds to the pipeline: X-CAI-Source, the job ack (§2.3), the conversation. */
function providerProfile(options: MockProviderOptions, state: ProviderState): ReceiverProfile<JobAck> {
  const { has, faults } = state;
  // §5.1: the jobs direction has its own secret (`verifies-with-both-secrets` takes the events secret too).
  const secrets = has('verifies-with-both-secrets')
    ? [...options.secrets, ...options.callbackSecrets]
    : options.secrets;
  const credential: Credential = { code: options.providerCode, secrets, space: 'live' };
  return {
    interface: 'A',
    kind: 'job',
    name: 'cai mock provider',
    path: CONTACT_JOBS_PATH,
    methodHint: `jobs are POSTed to ${CONTACT_JOBS_PATH} (§4.1)`,
    pathHint: `jobs go to ${CONTACT_JOBS_PATH} (§4.1)`,
    // §8 states the 256 KB limit for Interface B; the provider applies it too, without citing it.
    sizeRule: '',
    limitBytes: MAX_BODY_BYTES,
    ...sharedProfile(options, state.bounds, state.store),
    entryFields: ['event_id', 'lead_id', 'branch_code'],
    indexFor: () => state.index,
    dedupe: has('no-dedupe') ? 'none' : 'atomic',
    signature: { skip: has('no-signature-check'), signedTimestamp: signedTimestamp(faults) },
    faults,
    admit: wireCheck(faults),
    identify: (request, _entry, reject) => checkSource(request, options.sourceId, reject) ?? credential,
    checkDocument: (validator, document) =>
      validator.validateDocument(document, { kind: 'job', catalog: options.catalog }).errors,
    acknowledge: ({ document }) => ({
      provider_job_id: `pj_${randomBytes(8).toString('hex')}`,
      assigned_number_e164: numberFor(String(document.branch_code), options.catalog),
    }),
    recordHead: jobRecordHead(options.providerCode),
    answer: ({ entry }, verdict, ack) => {
      const shown =
        verdict === 'accepted' && has('bad-ack')
          ? { ...ack, assigned_number_e164: nationalFormat(ack.assigned_number_e164) }
          : ack;
      entry.provider_job_id = shown.provider_job_id;
      entry.assigned_number_e164 = shown.assigned_number_e164;
      return jsonReply(202, shown);
    },
    // §2.2: a repeated event_id is ignored: the same acknowledgment, nothing started.
    afterAccept: ({ document, signed }, ack) =>
      state.simulator.start(document as unknown as JobDocument, ack, signed?.checked.timestampText),
    afterDuplicate: has('repeat-restarts-conversation')
      ? ({ document, signed }, ack) =>
          state.simulator.start(document as unknown as JobDocument, ack, signed?.checked.timestampText)
      : undefined,
  };
}

/** §4.1: when --source is given, X-CAI-Source must name that platform. */
function checkSource(request: IncomingMessage, sourceId: string | undefined, reject: Reject): Reply | undefined {
  if (sourceId === undefined) return undefined;
  const source = headerValue(request, Headers.source);
  if (source === sourceId) return undefined;
  const unknown = 'is not the expected platform (§4.1)';
  return reject(401, 'unknown_source', identityRefusal('X-CAI-Source', source, unknown, '§4.1'));
}

function jobRecordHead(providerCode: string) {
  return ({ entry, document, request }: Admitted, verdict: 'accepted' | 'duplicate', ack: JobAck) => ({
    v: 1 as const,
    received_at: entry.received_at,
    space: 'live' as const,
    interface: 'A' as const,
    kind: 'job' as const,
    status: 202,
    verdict,
    provider_code: providerCode,
    event_id: document.event_id as string,
    lead_id: document.lead_id as string,
    branch_code: document.branch_code as string,
    provider_job_id: ack.provider_job_id,
    assigned_number_e164: ack.assigned_number_e164,
    headers: receivedHeaders(request),
  });
}

/** The branch's number from the catalog, else a stable one per branch in a range never assigned to a real line. */
function numberFor(branchCode: string, catalog: readonly CatalogBranch[] | undefined): string {
  const listed = catalog?.find((branch) => branch.branch_code === branchCode)?.number_e164;
  if (listed) return listed;
  // Stable per branch: the UK's range reserved for drama (+44 7700 900000–900999), never a real line.
  const n = createHash('sha256').update(branchCode).digest().readUInt32BE(0) % 1000;
  return `+447700900${String(n).padStart(3, '0')}`;
}
