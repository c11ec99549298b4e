/**
 * The processor of an exported Artillery project (`cai-processor.cjs`), written in TypeScript with the modules `cai
 * load` itself uses: its documents (./documents.ts), its repeats and how an answer recognises one (./repeats.ts), the
 * signature (src/signing/sign.ts), §7's Retry-After and rejections (src/spec). scripts/build-processor.mjs bundles it
 * into one CommonJS file of Node's built-ins only, so it loads with `require` wherever Artillery runs (a laptop, a
 * Fargate worker) without an install; the export appends its settings (./artillery.ts). The secret is never in it:
 * it is read from the environment variable the settings name, at the first request.
 *
 * Artillery 2.0.21 (@artilleryio/int-core, engine_http.js) calls a `beforeRequest` hook as
 * `fn(requestParams, context, ee, next)` when `fn.constructor.name === 'Function'`, else awaits it and passes what
 * it resolves with to `next` as an error; it then templates `requestParams.body` (a Buffer passes through
 * unchanged) unless `requestParams.json` is set, which wins over the body. So the hook is a plain function (never
 * async) that sets the body as the exact bytes it signed, deletes `json`, and calls `next()` with no argument.
 * `afterResponse` is called as `fn(requestParams, response, context, ee, next)`; counters are
 * `ee.emit('counter', name, value)`.
 */
import { sign } from '../signing/sign.js';
import { Headers, type EventType, type InterfaceId } from '../spec/constants.js';
import { isWellFormedRetryAfter } from '../spec/retry-after.js';
import { isRejection } from '../spec/statuses.js';
import { DocumentFactory } from './documents.js';
import { RepeatPool, type Accepted } from './repeats.js';
import { recogniseRepeat } from '../spec/acknowledgment.js';

/** What the export writes into the processor (JSON): everything but the secret. */
export interface ProcessorSettings {
  interface: InterfaceId;
  /** The identity header (`x-cai-provider` or `x-cai-source`) and its value. */
  identityHeader: string;
  identity: string;
  /** The environment variable that holds the signing secret. */
  secretEnv: string;
  repeatShare: number;
  /** Documents accepted as new kept for repeats. */
  poolSize: number;
  /** Interface A: the jobs' branch_code and callback_url (the sample's when absent). */
  branchCode?: string;
  callbackUrl?: string;
  /** Statuses the thresholds name, each counted as `cai.status_<code>`. */
  watchedStatuses: number[];
}

/** What Artillery hands a hook: the request about to go (or gone), and the virtual user's context. */
interface RequestParams {
  /** The request's name in the script: the event type, or `contact-job`. */
  name?: string;
  headers?: Record<string, string>;
  body?: unknown;
  json?: unknown;
  followRedirect?: boolean;
}
interface HookContext {
  caiLoad?: { body: string; repeated: Accepted | undefined };
}
interface Emitter {
  emit(event: 'counter', name: string, value: number): unknown;
}
interface Response {
  statusCode: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
}
type Next = (error?: Error) => void;

export function createProcessor(settings: ProcessorSettings) {
  const factory = new DocumentFactory({
    interface: settings.interface,
    ...(settings.branchCode !== undefined ? { branchCode: settings.branchCode } : {}),
    ...(settings.callbackUrl !== undefined ? { callbackUrl: () => settings.callbackUrl as string } : {}),
  });
  const repeats = new RepeatPool(settings.poolSize, settings.repeatShare);
  let secret: string | undefined;

  function caiSign(requestParams: RequestParams, context: HookContext, _ee: Emitter, next: Next): void {
    secret ??= process.env[settings.secretEnv] || undefined;
    if (secret === undefined)
      return next(new Error(`cai: no signing secret: set the environment variable ${settings.secretEnv}`));
    const repeated = repeats.due();
    const body = repeated?.body ?? factory.make((requestParams.name ?? 'conversation.message') as EventType).body;
    // §5.2–§5.4: signed as sent, with the second it is sent in (a repeat too: only its bytes are old).
    const timestamp = String(Math.floor(Date.now() / 1000));
    requestParams.headers = {
      ...requestParams.headers,
      [Headers.contentType]: 'application/json',
      [settings.identityHeader]: settings.identity,
      [Headers.timestamp]: timestamp,
      [Headers.signature]: sign(secret, timestamp, body),
    };
    // The exact bytes signed: a Buffer, which Artillery sends as it is; a `json` would be serialised again.
    requestParams.body = Buffer.from(body, 'utf8');
    delete requestParams.json;
    // A signed POST is never redirected.
    requestParams.followRedirect = false;
    context.caiLoad = { body, repeated };
    return next();
  }

  /** Counters for the thresholds: every one is emitted, 0 or 1, so that each exists in the report. */
  function caiJudge(
    _requestParams: RequestParams,
    response: Response,
    context: HookContext,
    ee: Emitter,
    next: Next,
  ): void {
    const status = response.statusCode;
    const count = (name: string, value: boolean) => ee.emit('counter', name, value ? 1 : 0);
    const klass = Math.floor(status / 100);
    const sent = context.caiLoad;
    ee.emit('counter', 'cai.responses', 1);
    for (const digit of [2, 3, 4, 5]) count(`cai.status_${digit}xx`, klass === digit);
    for (const watched of settings.watchedStatuses) count(`cai.status_${watched}`, status === watched);
    count('cai.answered_not_5xx', klass !== 5);
    // §7: 4xx other than 429 are rejections; a 429 carries Retry-After.
    count('cai.rejected', isRejection(status));
    const retryAfter = response.headers?.[Headers.retryAfter];
    count(
      'cai.retry_after_missing',
      status === 429 && !isWellFormedRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    );
    count('cai.repeats_sent', sent?.repeated !== undefined);
    let confirmed = false;
    let unrecognised = false;
    if (klass === 2 && sent !== undefined) {
      const recognition = recogniseRepeat(settings.interface, { status, body: bodyOf(response) }, sent.repeated);
      if (sent.repeated !== undefined) {
        confirmed = recognition.duplicate;
        unrecognised = !recognition.duplicate;
      } else if (!recognition.duplicate)
        repeats.remember({ body: sent.body, providerJobId: recognition.providerJobId });
    }
    count('cai.duplicates_confirmed', confirmed);
    count('cai.repeats_unrecognised', unrecognised);
    return next();
  }

  return { caiSign, caiJudge };
}

/** The answer's body as Artillery hands it over: text, a Buffer, or nothing. */
function bodyOf(response: Response): Buffer {
  if (typeof response.body === 'string') return Buffer.from(response.body, 'utf8');
  return Buffer.isBuffer(response.body) ? response.body : Buffer.alloc(0);
}
