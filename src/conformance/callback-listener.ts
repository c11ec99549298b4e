/**
 * The local listener of an Interface A run: its address is each job's `callback_url`, so the events the provider
 * sends back (§3 step 5) can be judged. It records every request exactly as received and answers 202 to all of
 * them (the §2.13 body for a repeated event_id): a provider ends a conversation at its first rejected event, so
 * rejecting one defect would hide the rest. The checks, not the listener, judge signature, code and schema.
 * Each job gets its own path (`…/cai-conformance/<token>`), so events are attributed to their job even when
 * a provider changes the `lead_id`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import { jsonReply, readBody, sendReply } from '../http/server.js';

export interface CallbackRequest {
  token: string;
  receivedAt: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface CallbackHarness {
  /** The listener's own address (`http://host:port`). */
  listenUrl: string;
  /** The address put in `callback_url` (from --callback-url, or the listener's own). */
  publicUrl: string;
  secrets: readonly string[];
  /** A fresh callback_url for one job. */
  callbackUrlFor(token: string): string;
  newToken(): string;
  /** The requests received for a token so far. */
  received(token: string): CallbackRequest[];
  /** Resolves when `predicate` holds for the token's requests, or after `timeoutMs` (then with what arrived). */
  waitFor(token: string, predicate: (requests: CallbackRequest[]) => boolean, timeoutMs: number): Promise<CallbackRequest[]>;
  close(): Promise<void>;
}

export interface CallbackListenerOptions {
  host: string;
  port: number;
  /** The public address; default the listener's own. */
  publicUrl?: string;
  secrets: readonly string[];
}

const PATH_PREFIX = '/cai-conformance/';

export async function startCallbackListener(options: CallbackListenerOptions): Promise<CallbackHarness> {
  const requests = new Map<string, CallbackRequest[]>();
  const seen = new Set<string>();
  const waiters = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => sendReply(req, res, jsonReply(status, body));
    readBody(req, MAX_BODY_BYTES)
      .then((result) => {
        if (!result.ok) return answer(413, { error: 'body_too_large' });
        const body = result.body;
        const token = tokenOf(req.url ?? '');
        const headers = flatHeaders(req);
        const record: CallbackRequest = { token, receivedAt: Date.now(), headers, body };
        requests.set(token, [...(requests.get(token) ?? []), record]);
        waiters.forEach((wake) => wake());
        const eventId = eventIdOf(body);
        if (eventId !== undefined && seen.has(eventId)) return answer(202, { ok: true, duplicate: true });
        if (eventId !== undefined) seen.add(eventId);
        return answer(202, { ok: true });
      })
      .catch(() => answer(400, { error: 'unreadable_body' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const listenUrl = `http://${host}:${port}`;
  const publicUrl = (options.publicUrl ?? listenUrl).replace(/\/+$/, '');

  return {
    listenUrl,
    publicUrl,
    secrets: options.secrets,
    callbackUrlFor: (token) => `${publicUrl}${PATH_PREFIX}${token}`,
    newToken: () => randomBytes(8).toString('hex'),
    received: (token) => [...(requests.get(token) ?? [])],
    waitFor(token, predicate, timeoutMs) {
      return new Promise((resolve) => {
        const check = () => {
          const current = requests.get(token) ?? [];
          if (predicate(current)) finish();
        };
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...(requests.get(token) ?? [])]);
        };
        const timer = setTimeout(finish, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
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

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function eventIdOf(body: Buffer): string | undefined {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && typeof (value as { event_id?: unknown }).event_id === 'string') {
      return (value as { event_id: string }).event_id;
    }
  } catch {
    // Judged by the checks; the listener only needs the id for its duplicate answer.
  }
  return undefined;
}

