/**
 * cai's one listener, wherever it receives: as the platform's events endpoint (B) or the provider's contact-jobs
 * endpoint (A) in a sender run, and as the callback_url of the jobs of an Interface A run and of `cai load`. It reads each request
 * whole, exactly as it came (§5.2: the raw bytes), notes when it arrived, and lets the recorder answer it, or cuts
 * the connection without an answer (a network failure). Its bounds are LISTENER_CAPS (./listener-guard.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CaiError, codedError } from '../errors.js';
import {
  declaredLength,
  listen,
  sendReply,
  sleep,
  type BodyResult,
  type ReceiverLimits,
  type Reply,
  type TlsFiles,
} from './server.js';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import type { SeenAttempt } from '../spec/model/sender.js';
import { flattenHeaders } from './headers.js';
import { InFlight } from './in-flight.js';
import { LISTENER_LIMITS, ListenerGuard, type GuardCaps } from './listener-guard.js';
import { heldAt, slackAt, useLoopClock } from './loop-clock.js';

/** Bytes of an attempt's body kept; a body over it is judged by its size alone (four times the §8 limit). */
const MAX_KEPT_BODY_BYTES = 4 * MAX_BODY_BYTES;

/** A request as the listener read it (what the sender model reads of an attempt, before it is answered). */
export type Arrival = Omit<
  SeenAttempt,
  'key' | 'answer' | 'answeredMono' | 'unheard' | 'retryAfter' | 'late' | 'headers'
> & {
  /** Names lowercased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  httpVersion: string;
  /** As received, in order (for the saved request). */
  rawHeaders: [string, string][];
};

/** What the listener does with an arrival: answer it, or cut the connection. */
export type Response = { kind: 'reply'; reply: Reply } | { kind: 'reset' };

/** The answer to an arrival, from whoever handles it. */
export interface Handled {
  response: Response;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
  /** Call when the answer has gone out, or the connection was cut; `unheard` when the sender closed it first. */
  answered(mono: number, unheard?: boolean): void;
}

export interface Listener {
  /** `http(s)://host:port`, the listener's own address. */
  url: string;
  /** Requests answered but not recorded (a body cut or over the budget, or past the run's caps: LISTENER_CAPS). */
  refused(): number;
  close(): Promise<void>;
}

interface ListenerOptions {
  host: string;
  port: number;
  tls?: TlsFiles;
  handle(arrival: Arrival): Handled;
  /** The option that moves the listener (`listen`, `callback-listen`): the command words the hint when its address cannot be used. */
  option: string;
  /** The bounds (default LISTENER_CAPS, src/bounds.ts); smaller ones in tests. */
  caps?: GuardCaps;
  /** Bytes of a body read; past them the arrival is `cut` (default MAX_KEPT_BODY_BYTES: judged by its size). */
  bodyLimit?: number;
  limits?: ReceiverLimits;
}

/** Per connection, the moment it could carry a new request: opened, or its last answer gone out (`reused`). */
const FREE_SINCE = new WeakMap<Socket, { mono: number; reused: boolean }>();

/** A request read this soon after the answer before it on its connection went out had been waiting to be sent. */
const QUEUED_MS = 10;

/** At the end of a run, how long the requests still being answered may take before the connections are closed. */
const DRAIN_MS = 2_000;

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const stopClock = useLoopClock();
  const inFlight = new InFlight();
  const guard = new ListenerGuard(options.caps);
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    inFlight.track(
      receive(request, response, options.handle, guard, options.bodyLimit ?? MAX_KEPT_BODY_BYTES)
        // A bug in cai while recording must not take the run down: that request goes unanswered.
        .catch(() => response.destroy()),
    );
  };
  const server = await listen(handler, {
    host: options.host,
    port: options.port,
    path: '',
    tls: options.tls,
    limits: options.limits ?? LISTENER_LIMITS,
    // What the server refused before the handler (a request the parser could not read: 431 headers too large, 400
    // bad framing) is refused all the same: the run's report counts it with the rest.
    onRefused: () => {
      guard.refused += 1;
    },
  }).catch((error: unknown) => {
    // The shared server helper's words name the mocks' --host/--port; here the address is the run's own option.
    if (
      error instanceof CaiError &&
      error.kind === 'usage' &&
      /^(port_in_use|port_denied|bad_host)$/.test(error.code)
    ) {
      throw codedError('usage', error.code, error.message, { ...error.data, listenOption: options.option }, error);
    }
    throw error;
  });
  guard.guardServer(server.server);
  // The earliest the connection may have been opened: a loop held up came to it late.
  server.server.on('connection', (socket: Socket) => {
    const now = performance.now();
    FREE_SINCE.set(socket, { mono: now - slackAt(now), reused: false });
  });
  return {
    url: server.url,
    refused: () => guard.refused,
    close: () =>
      server
        .close(() =>
          // Never wait for ever on a request whose answer cannot go out: the connections are closed after this.
          Promise.race([inFlight.drained(), new Promise<void>((resolve) => setTimeout(resolve, DRAIN_MS).unref())]),
        )
        .finally(() => {
          guard.stop();
          stopClock();
        }),
  };
}

async function receive(
  request: IncomingMessage,
  response: ServerResponse,
  handle: (arrival: Arrival) => Handled,
  guard: ListenerGuard,
  bodyLimit: number,
): Promise<void> {
  const arrivedMono = performance.now();
  const arrivedAt = Date.now();
  const slackMs = slackAt(arrivedMono);
  const free = FREE_SINCE.get(request.socket);
  const openedMono = free?.mono;
  const queued = free?.reused === true && arrivedMono - free.mono <= QUEUED_MS + slackMs;
  // The connection is free for the sender's next request once this answer is handed to it.
  const freed = () => FREE_SINCE.set(request.socket, { mono: performance.now(), reused: true });
  // A body declared over the limit is cut unread: its size is all that is judged of it (the mocks' step 3 too).
  const read: BodyResult =
    (declaredLength(request) ?? 0) > bodyLimit
      ? { ok: false, reason: 'too_large' }
      : await guard.read(request, bodyLimit);
  // A request the sender gave up on half-way is no attempt: nothing was delivered.
  if (!read.ok && read.reason === 'aborted') return;
  // A body too slow, unreadable as HTTP, or with no room to be read, or past what the run records: answered, not an
  // attempt.
  if (!read.ok && (read.reason === 'timeout' || read.reason === 'busy' || read.reason === 'malformed'))
    return void (await answer(request, response, guard.refusal(read.reason)));
  if (!guard.admit(read.ok ? read.body.length : 0)) return void (await answer(request, response, guard.overCapacity()));
  const arrival: Arrival = {
    arrivedAt,
    arrivedMono,
    slackMs,
    heldMs: heldAt(arrivedMono),
    ...(openedMono !== undefined ? { openedMono } : {}),
    ...(queued ? { queued } : {}),
    method: request.method ?? '',
    path: request.url ?? '',
    httpVersion: request.httpVersion,
    headers: flattenHeaders(request.headers),
    rawHeaders: pairs(request.rawHeaders),
    body: read.ok ? read.body : Buffer.alloc(0),
    bodyBytes: read.ok ? read.body.length : Math.max(declaredLength(request) ?? 0, bodyLimit + 1),
    cut: !read.ok,
  };
  const handled = handle(arrival);
  // A slow receiver: the answer waits; a sender that gives up first (closes the connection) never hears it.
  const delayMs = handled.delayMs ?? 0;
  if ((delayMs > 0 && !(await held(request, response, delayMs))) || response.destroyed)
    return handled.answered(performance.now(), true);
  if (handled.response.kind === 'reset') {
    // A network failure: the request was read, and the connection goes without a byte of answer.
    request.socket.resetAndDestroy();
    handled.answered(performance.now());
    return;
  }
  // A body cai stopped reading (over the body limit) is answered and the connection closed.
  const reply = handled.response.reply;
  // The answer is handed to the socket when `sent` runs: its time is taken there, not in a callback a busy loop
  // could delay, so a sender's wait (the next arrival minus this) is never measured shorter than it was.
  let sentMono = 0;
  const heard = await answer(request, response, arrival.cut ? { ...reply, close: true } : reply, () => {
    sentMono = performance.now();
    handled.answered(sentMono);
    freed();
  });
  // Queued behind another answer on a pipelined connection that was then cut, it never went out: the sender heard none.
  if (!heard) handled.answered(sentMono, true);
}

/** Waits `ms` before an answer; false when the connection closed meanwhile. */
async function held(request: IncomingMessage, response: ServerResponse, ms: number): Promise<boolean> {
  const closed = new AbortController();
  const close = () => closed.abort();
  response.once('close', close);
  request.socket.once('close', close);
  await sleep(ms, closed.signal);
  response.off('close', close);
  request.socket.off('close', close);
  return !closed.signal.aborted;
}

/**
 * Sends `reply`, runs `sent` as soon as it is handed to the socket, and resolves once the response is done: true when
 * it went out whole. The connection closing ends it too: an answer queued behind another on a pipelined connection
 * that was cut (a scripted reset) never gets a socket, so neither of its own events ever comes.
 */
async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  reply: Reply,
  sent?: () => void,
): Promise<boolean> {
  const socket = request.socket;
  const done = new Promise<boolean>((resolve) => {
    // One connection carries many requests: its listener goes with the answer it waited for.
    const connectionClosed = () => resolve(response.writableFinished);
    const settle = (whole: boolean) => {
      socket.off('close', connectionClosed);
      resolve(whole);
    };
    response.once('finish', () => settle(true));
    response.once('close', () => settle(response.writableFinished));
    socket.once('close', connectionClosed);
  });
  sendReply(request, response, reply);
  sent?.();
  return done;
}

function pairs(raw: readonly string[]): [string, string][] {
  const result: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) result.push([raw[index] as string, raw[index + 1] as string]);
  return result;
}
