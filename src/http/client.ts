/**
 * The HTTP client of the senders: undici, TLS 1.2 or above (§5.8), keep-alive pool, no redirects followed.
 * `postOnce` sends one POST with exactly the headers and bytes given: no retry, no signing (see deliver.ts).
 */
import { setMaxListeners } from 'node:events';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { NETWORK_CAPS } from '../bounds.js';
import { CaiError, errnoCode } from '../errors.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from './retry.js';
import { MIN_TLS_VERSION, trustedAuthorities } from './tls.js';
import { parseUrl } from './address.js';
import { bareHostname } from './loopback.js';
import { flattenHeaders } from './headers.js';
import { describeNetworkError, interruptedRequest, timeoutError } from './network-errors.js';

export type { Dispatcher } from 'undici';

export interface ClientOptions {
  /** Extra certificate authorities (PEM), added to Node's bundled ones. */
  ca?: Buffer;
  /** Skip certificate verification (the command warns loudly). TLS 1.2+ still applies. */
  insecure?: boolean;
  /** An http(s) proxy URL; requests are tunnelled through it with CONNECT. */
  proxy?: string;
  /** Connections per origin in the keep-alive pool (default 8). */
  connections?: number;
  /** Local address to send from (a registered egress address, §5.7). */
  localAddress?: string;
  /** Time allowed to set up a connection, TLS included (default 10 s; `--timeout`). */
  connectTimeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  /** Header names lowercased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** At most NETWORK_CAPS.responseBodyBytes (src/bounds.ts) of the body. */
  body: Buffer;
  /** The body went over the cap: `body` is its start, the rest was discarded and the connection closed. */
  bodyTruncated?: boolean;
  /** From sending the request to the last byte of the response (or the last byte kept). */
  latencyMs: number;
}

/**
 * `timeoutMs` bounds the answer as a whole, from sending the request to the last byte of the body (and every pause
 * in it); the connect time-out is the dispatcher's (`createDispatcher({ connectTimeoutMs })`, default 10 s).
 */
export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Per attempt, covering connect, headers and body (default 10 s). */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  signal?: AbortSignal;
  /** Sent with `Connection: close`, the connection closed after its answer: no later request shares it. */
  closeConnection?: boolean;
}

const DEFAULT_CONNECTIONS = 8;

export function createDispatcher(options: ClientOptions = {}): Dispatcher {
  const tls = {
    minVersion: MIN_TLS_VERSION,
    rejectUnauthorized: options.insecure !== true,
    timeout: options.connectTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    ...(options.ca ? { ca: trustedAuthorities(options.ca) } : {}),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  } as const;
  const pool = {
    connections: options.connections ?? DEFAULT_CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    // The status line and headers of an answer, in all: more is a failed attempt (src/bounds.ts).
    maxHeaderSize: NETWORK_CAPS.responseHeaderBytes,
    // undici's Client passes its own `localAddress` to the connector, overriding the connect option: set both.
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  };
  if (options.proxy) {
    return new ProxyAgent({ uri: options.proxy, requestTls: tls, ...pool });
  }
  return new Agent({ ...pool, connect: tls });
}

/** A shared dispatcher for callers that do not bring their own. */
let sharedDispatcher: Dispatcher | undefined;

/**
 * One POST. Returns any HTTP response (including 3xx, 4xx, 5xx: redirects are never followed).
 * Throws CaiError kind 'delivery' for what kept a response from arriving: codes `unreachable`,
 * `timeout`, `tls`, `connection`, `proxy`, `aborted`. A body over NETWORK_CAPS.responseBodyBytes is cut there:
 * the rest is discarded, the connection closed, and `bodyTruncated` says so.
 */
export async function postOnce(req: PostRequest): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  // Callers share one signal across many requests in flight (one abort listener each): not a leak.
  if (req.signal && !unlimited.has(req.signal)) {
    setMaxListeners(0, req.signal);
    unlimited.add(req.signal);
  }
  // undici's own time-outs (for the headers, and for every pause in the body) tick about once a second:
  // fine at the default 10 s and cheap at thousands of requests a second. A short --timeout gets a precise
  // timer of its own instead.
  const precise = timeoutMs < PRECISE_TIMEOUT_BELOW_MS ? preciseTimeout(timeoutMs, req.signal) : undefined;
  const signal = precise?.signal ?? req.signal;
  const started = performance.now();
  let answer: CappedAnswer | undefined;
  try {
    const { origin, path } = targetOf(req.url);
    const options: Dispatcher.DispatchOptions = {
      origin,
      path,
      method: 'POST',
      headers: req.headers,
      body: req.body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(req.closeConnection ? { reset: true } : {}),
    };
    // undici's time-outs bound the headers and every pause in the body; the body as a whole is due by the deadline
    // too, so that an answer trickling a byte at a time cannot keep the request going (one timer, from the headers on).
    const deadline = precise ? undefined : started + timeoutMs;
    const dispatcher = req.dispatcher ?? (sharedDispatcher ??= createDispatcher());
    const response = await new Promise<HttpResponse>((resolve, reject) => {
      answer = new CappedAnswer(NETWORK_CAPS.responseBodyBytes, signal, resolve, reject, deadline);
      dispatcher.dispatch(options, answer);
    });
    response.latencyMs = performance.now() - started;
    return response;
  } catch (error) {
    if (req.signal?.aborted) throw interruptedRequest(error);
    if (precise?.timedOut() || error instanceof PastDeadline) throw timeoutError(req.url, timeoutMs, error, 'whole');
    throw brokenAnswer(req.url, error, answer?.begun) ?? describeNetworkError(req.url, timeoutMs, error);
  } finally {
    precise?.dispose();
  }
}

const PRECISE_TIMEOUT_BELOW_MS = 3000;

/** The connection closed under an answer (undici's "other side closed", a reset, a broken pipe). */
const CLOSED = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']);

/**
 * An answer that came and is not one: bytes that are not an HTTP/1.1 response (no status line, a control character
 * in a header value: RFC 9112 §4, §5.5), or a response the receiver closed before its body was whole (RFC 9112 §6.3).
 * Worded as what the receiver did, at the URL in full, never as a connection that failed to reach it. The code stays
 * `connection`, which a sender retries as it retries any cut connection (§8); `answered` tells it from no answer.
 */
function brokenAnswer(url: string, error: unknown, begun: AnswerBegun | undefined): CaiError | undefined {
  // By name: the bundle carries undici's dispatchers, not its error classes.
  if (error instanceof Error && error.name === 'HTTPParserError') {
    // undici's message: `Response does not match the HTTP/1.1 protocol (Invalid header value char)`.
    const why = /\(([^)]*)\)\s*$/.exec(error.message)?.[1] ?? error.message;
    return answeredBroken(
      `${url} answered with bytes that are not an HTTP/1.1 response (${why})`,
      'something answers at that address, but not in HTTP/1.1 (a status line, then headers without control characters): check the receiver, or the proxy in front of it, and its logs',
      'not-http',
      error,
    );
  }
  if (begun === undefined || !CLOSED.has(errnoCode(error) ?? '')) return undefined;
  const of = begun.expectedBytes !== undefined ? ` of the ${begun.expectedBytes} it announced` : '';
  return answeredBroken(
    `${url} answered ${begun.status}, then closed the connection in the middle of its body (after ${begun.bytes} bytes${of})`,
    'the receiver, or a proxy in front of it, stopped writing its answer: check its logs for an error raised after it sent the status',
    'cut',
    error,
  );
}

function answeredBroken(message: string, hint: string, answered: 'not-http' | 'cut', cause: unknown): CaiError {
  return new CaiError(message, { code: 'connection', kind: 'delivery', hint, data: { answered }, cause });
}

/** What had come of an answer when it broke off: its status, and the bytes of its body read. */
interface AnswerBegun {
  status: number;
  bytes: number;
  /** Its Content-Length, when it had one. */
  expectedBytes?: number;
}

/** Signals already freed of the listener limit: setMaxListeners on every request of a batch costs more than the check. */
const unlimited = new WeakSet<AbortSignal>();

/** The answer was not whole by its deadline (performance.now() ms): the request is aborted with this. */
class PastDeadline extends Error {}

/**
 * The answer to one request through the dispatcher, collected by a handler of our own rather than `dispatcher.request`:
 * no response stream, async resource or listeners per request (they cost more than the rest of the exchange at
 * thousands of requests a second), the same undici errors and time-outs. The body is kept up to `cap` bytes, so a
 * receiver that answers without end (or with megabytes) costs no more than the cap: past it, the request is aborted,
 * which closes the connection (never reused with unread bytes in it). `signal` aborts the request, queued or in flight.
 */
class CappedAnswer implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cap: number,
    private readonly signal: AbortSignal | undefined,
    /** The answer, its latencyMs left for the caller to time. */
    private readonly resolve: (answer: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    /** When the answer must be whole (performance.now() ms), headers and body; undefined: undici's time-outs alone. */
    private readonly deadline?: number,
  ) {
    if (signal && !signal.aborted) {
      this.onAbort = () => this.controller?.abort(abortReason(signal));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted while queued (or before): the request is not sent.
    if (this.signal?.aborted) controller.abort(abortReason(this.signal));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers are interim: the final one follows.
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
    if (this.deadline !== undefined && this.timer === undefined) {
      this.timer = setTimeout(
        () => controller.abort(new PastDeadline('the answer was not whole by its deadline')),
        Math.max(0, this.deadline - performance.now()),
      );
      this.timer.unref();
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.total + chunk.length > this.cap) {
      this.chunks.push(chunk.subarray(0, this.cap - this.total));
      this.finish(true);
      // The answer is taken: the rest is not read, and the connection is closed. What the abort reports is ignored.
      controller.abort(new Error('response body over the cap'));
      return;
    }
    this.chunks.push(chunk);
    this.total += chunk.length;
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settle()) this.reject(error);
  }

  /** The answer so far, once its final status came. */
  get begun(): AnswerBegun | undefined {
    if (this.status === 0) return undefined;
    const length = Number(this.headers['content-length']);
    return {
      status: this.status,
      bytes: this.total,
      ...(Number.isSafeInteger(length) && length >= 0 ? { expectedBytes: length } : {}),
    };
  }

  private finish(truncated: boolean): void {
    if (!this.settle()) return;
    // Copied: the chunks are views of the socket's reads.
    const body = Buffer.concat(this.chunks, truncated ? this.cap : this.total);
    const answer: HttpResponse = { status: this.status, headers: this.headers, body, latencyMs: 0 };
    if (truncated) answer.bodyTruncated = true;
    this.resolve(answer);
  }

  /** True the first time: the caller settles the promise; the abort listener and the deadline go. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
    if (this.timer !== undefined) clearTimeout(this.timer);
    return true;
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' });
}

/** origin + path of a URL, parsed once per distinct URL (a batch posts thousands of times to one). */
const targets = new Map<string, { origin: string; path: string }>();
function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size > 100) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** A timer that aborts the request, linked to the caller's signal. */
function preciseTimeout(
  ms: number,
  outer: AbortSignal | undefined,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort();
  }, ms);
  const forward = () => controller.abort();
  outer?.addEventListener('abort', forward, { once: true });
  if (outer?.aborted) controller.abort();
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    },
  };
}

/**
 * The proxy for a target URL from the environment, as curl reads it: HTTPS_PROXY (https targets),
 * HTTP_PROXY (http targets), either case, and NO_PROXY (comma-separated hosts or domain suffixes, `*`).
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv, target: string): string | undefined {
  const url = parseUrl(target);
  if (url === undefined) return undefined;
  const proxy = url.protocol === 'https:' ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  if (!proxy) return undefined;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const host = bareHostname(url).toLowerCase();
  const bypass = noProxy.some((entry) => {
    if (entry === '*') return true;
    const [name] = entry.split(':');
    const bare = (name ?? '').replace(/^\*?\./, '');
    return host === bare || host.endsWith(`.${bare}`);
  });
  return bypass ? undefined : proxy;
}
