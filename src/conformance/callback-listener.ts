/**
 * The local listener of an Interface A run: its address is each job's `callback_url`, so the events the provider
 * sends back (§3 step 5) can be judged. It records every request exactly as received, with when it arrived and
 * how and when it was answered. By default it answers 202 (the §2.13 body for an event_id it already accepted): a
 * provider ends a conversation at its first rejected event, so rejecting one defect would hide the rest. The
 * checks, not the listener, judge signature, code and schema. A job's path can carry a script instead (`script`):
 * the answers the retry checks give on purpose (503, 429 with Retry-After, 400) to see what the sender does next.
 * Each job gets its own path (`…/cai-conformance/<token>`), so events are attributed to their job even when
 * a provider changes the `lead_id`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import { errorReply, jsonReply, listen, sendReply, type ReceiverLimits, type Reply } from '../http/server.js';
import { CaiError, usageError } from '../errors.js';
import { LISTENER_LIMITS, ListenerGuard, type GuardCaps } from './listener-guard.js';
import { eventIdOf, flatHeaders } from '../mock/request.js';

export interface CallbackRequest {
  token: string;
  /** When the request (its headers) arrived, in ms since the epoch. */
  arrivedAt: number;
  /** When its body had been read in full. */
  receivedAt: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The status it was answered with, and when the answer was sent. */
  status: number;
  answeredAt: number;
}

/** A scripted answer: a status and extra headers (a JSON error body is added for a status that is not 2xx). */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
}

/**
 * How one job's requests are answered: `index` counts the requests on the job's path from 0. Undefined is the
 * default answer (202, or the duplicate answer for an event_id already accepted).
 */
export type AnswerScript = (body: Buffer, index: number) => ScriptedAnswer | undefined;

export interface CallbackHarness {
  /** The listener's own address (`http://host:port`). */
  listenUrl: string;
  /** Requests answered but not recorded (a body cut or over the budget, or past the run's caps: LISTENER_CAPS). */
  refused(): number;
  /** The address put in `callback_url` (from --callback-url, or the listener's own). */
  publicUrl: string;
  secrets: readonly string[];
  /** A fresh callback_url for one job. */
  callbackUrlFor(token: string): string;
  newToken(): string;
  /** Answers the requests on a token's path by `script` from now on. */
  script(token: string, script: AnswerScript): void;
  /** The requests received for a token so far (each once it has been answered). */
  received(token: string): CallbackRequest[];
  /**
   * Resolves when `predicate` holds for the token's requests, after `timeoutMs`, or when `signal` aborts (then
   * with what arrived).
   */
  waitFor(token: string, predicate: (requests: CallbackRequest[]) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<CallbackRequest[]>;
  close(): Promise<void>;
}

export interface CallbackListenerOptions {
  host: string;
  port: number;
  /** The public address; default the listener's own. */
  publicUrl?: string;
  secrets: readonly string[];
  /** The bounds (default LISTENER_CAPS, src/bounds.ts); smaller ones in tests. */
  caps?: GuardCaps;
  limits?: ReceiverLimits;
}

const PATH_PREFIX = '/cai-conformance/';

export async function startCallbackListener(options: CallbackListenerOptions): Promise<CallbackHarness> {
  const requests = new Map<string, CallbackRequest[]>();
  const scripts = new Map<string, AnswerScript>();
  const accepted = new Set<string>();
  const waiters = new Set<() => void>();

  /** The scripted answer for the token's next request, or the default one. */
  const answerFor = (token: string, body: Buffer): Reply => {
    const scripted = scripts.get(token)?.(body, requests.get(token)?.length ?? 0);
    if (scripted && (scripted.status < 200 || scripted.status > 299)) {
      return errorReply(scripted.status, 'scripted', `answered ${scripted.status} on purpose by cai conformance`, {}, scripted.headers);
    }
    const eventId = eventIdOf(body);
    if (eventId !== undefined && accepted.has(eventId)) return jsonReply(scripted?.status ?? 202, { ok: true, duplicate: true }, scripted?.headers);
    // Only an accepted event is a repeat later: the redelivery of an event answered 503 is new.
    if (eventId !== undefined) accepted.add(eventId);
    return jsonReply(scripted?.status ?? 202, { ok: true }, scripted?.headers);
  };

  const guard = new ListenerGuard(options.caps);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const arrivedAt = Date.now();
    guard
      .read(req, MAX_BODY_BYTES)
      .then((result) => {
        if (!result.ok && (result.reason === 'timeout' || result.reason === 'busy')) return sendReply(req, res, guard.refusal(result.reason));
        if (!result.ok) return sendReply(req, res, errorReply(413, 'body_too_large', 'over the 262144-byte limit'));
        // Only a job's own path is recorded (an unknown one is answered and forgotten), and within the run's caps.
        const token = tokenOf(req.url ?? '');
        if (token === '' || !guard.admit(result.body.length)) return sendReply(req, res, token === '' ? errorReply(404, 'not_a_job', 'cai conformance: no job has this callback_url') : guard.overCapacity());
        const receivedAt = Date.now();
        const reply = answerFor(token, result.body);
        sendReply(req, res, reply);
        const record: CallbackRequest = { token, arrivedAt, receivedAt, headers: flatHeaders(req), body: result.body, status: reply.status, answeredAt: Date.now() };
        requests.set(token, [...(requests.get(token) ?? []), record]);
        waiters.forEach((wake) => wake());
      })
      .catch(() => sendReply(req, res, errorReply(400, 'unreadable_body', 'the body could not be read')));
  };
  const listening = await listen(handler, { host: options.host, port: options.port, path: '', limits: options.limits ?? LISTENER_LIMITS }).catch((error: unknown) => {
    // The shared server helper names the mocks' --host/--port; here the flag is --callback-listen.
    if (error instanceof CaiError && error.kind === 'usage' && /^(port_in_use|port_denied|bad_host)$/.test(error.code)) {
      throw usageError(error.code, error.message, 'pass another --callback-listen HOST:PORT, or port 0 for any free port', error);
    }
    throw error;
  });
  const server = listening.server;
  guard.guardServer(server);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const listenUrl = `http://${host}:${listening.port}`;
  const publicUrl = (options.publicUrl ?? listenUrl).replace(/\/+$/, '');

  return {
    listenUrl,
    refused: () => guard.refused,
    publicUrl,
    secrets: options.secrets,
    callbackUrlFor: (token) => `${publicUrl}${PATH_PREFIX}${token}`,
    newToken: () => randomBytes(8).toString('hex'),
    script: (token, script) => void scripts.set(token, script),
    received: (token) => [...(requests.get(token) ?? [])],
    waitFor(token, predicate, timeoutMs, signal) {
      return new Promise((resolve) => {
        const check = () => {
          const current = requests.get(token) ?? [];
          if (predicate(current)) finish();
        };
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
          signal?.removeEventListener('abort', finish);
          resolve([...(requests.get(token) ?? [])]);
        };
        const timer = setTimeout(finish, Math.max(0, timeoutMs));
        waiters.add(check);
        signal?.addEventListener('abort', finish, { once: true });
        if (signal?.aborted) finish();
        else check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        guard.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function tokenOf(url: string): string {
  const path = url.split('?')[0] ?? '';
  const index = path.indexOf(PATH_PREFIX);
  return index >= 0 ? path.slice(index + PATH_PREFIX.length).replace(/\/+$/, '') : '';
}
