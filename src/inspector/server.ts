/**
 * The inspector's own HTTP server (`--ui`): GET only, on its own port, answering the page, JSON, HTML fragments, the
 * raw capture of a request (routes.ts), and the live stream, each with security headers (a Content-Security-Policy, no
 * sniffing, no framing, no referrer, no caching) and no CORS header at all, so no other origin can read it. A Host
 * header that names neither this address nor localhost is refused (a DNS-rebinding page cannot reach it). Every answer
 * is bounded: lists are paged (limits.maxPage), bodies kept are bounded, streams are counted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { INSPECTOR_SERVER_CAPS } from '../bounds.js';
import { CaiError, codedError, errorMessage } from '../errors.js';
import { listen } from '../http/server.js';
import { renderInspectorPage } from './page.js';
import { formatBytes } from '../output/html/bodies.js';
import { Redactor } from './redact.js';
import { errorAnswer, routesOf, type Answer, type Route } from './routes.js';
import { StreamHub } from './stream.js';
import type { InspectorServerCaps, InspectorServerOptions, InspectorState } from './state.js';

export type { InspectorServerOptions } from './state.js';

export interface RunningInspector {
  /** The page's URL, e.g. http://127.0.0.1:4040/. */
  url: string;
  port: number;
  /** Ends the live streams and stops the server. Idempotent. */
  close(): Promise<void>;
}

const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
};
// Everything but the page: nothing in it may run or load anything if opened on its own.
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export async function startInspectorServer(options: InspectorServerOptions): Promise<RunningInspector> {
  const host = options.host ?? '127.0.0.1';
  const state = prepare(options);
  const routes = routesOf(state);
  const caps: InspectorServerCaps = { ...INSPECTOR_SERVER_CAPS, ...options.caps };
  // The one server start-up of src/http/server.ts: fair admission (a flood of silent or half-sent connections gives
  // way to a page's) and the time-outs, within the inspector's own caps.
  const handler = (request: IncomingMessage, response: ServerResponse) => handle(state, routes, request, response);
  const server = await listen(handler, {
    host,
    port: options.port ?? 0,
    path: '/',
    limits: caps,
    allow: 'GET',
  }).catch((error: unknown) => {
    throw inspectorListenError(error);
  });
  state.url = server.url;
  state.allowedHosts = hostCheck(server.server.address() as AddressInfo);
  return {
    url: server.url,
    port: server.port,
    // The live streams end first: the connections they held are then idle, and close at once.
    close: () => server.close(async () => state.hub.close()),
  };
}

/** The page, the headers and the stream hub, before the server listens. */
function prepare(options: InspectorServerOptions): InspectorState {
  const redactor = new Redactor(options.secrets);
  const { store } = options;
  const bounds = `the last ${store.limits.maxRequests.toLocaleString('en-US')} requests${options.kind === 'provider' ? ` and ${store.limits.maxCallbacks.toLocaleString('en-US')} callbacks` : ''} (fewer when they hold over ${formatBytes(store.limits.maxBytes)}), bodies up to ${formatBytes(store.limits.maxBodyBytes)} each`;
  const page = renderInspectorPage({
    kind: options.kind,
    mockUrl: options.mockUrl,
    bounds,
    generator: options.generator,
  });
  const dataHeaders = { ...COMMON_HEADERS, 'content-security-policy': DATA_POLICY };
  return {
    options,
    store,
    redactor,
    bounds,
    page,
    pageHeaders: { ...COMMON_HEADERS, 'content-security-policy': page.policy },
    dataHeaders,
    hub: new StreamHub(store, store.limits, redactor, dataHeaders),
    url: '',
    allowedHosts: () => false,
  };
}

/** One request: the Host check, GET only, the live stream, then the first route that matches. */
function handle(
  state: InspectorState,
  routes: readonly Route[],
  request: IncomingMessage,
  response: ServerResponse,
): void {
  request.resume();
  const send = (answer: Answer) => {
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    response.writeHead(answer.status, {
      ...(answer.headers ?? state.dataHeaders),
      'content-type': answer.type,
      'content-length': String(body.length),
    });
    response.end(body);
  };
  const fail = (status: number, error: string, message: string, headers?: Record<string, string>) =>
    send(errorAnswer(state, status, error, message, headers));
  const authority = authorityOf(request);
  if (authority === undefined) {
    fail(400, 'bad_host', 'one Host header, naming the inspector, is required (RFC 9112 §3.2)');
    return;
  }
  if (!state.allowedHosts(authority)) {
    fail(421, 'wrong_host', `the inspector answers only at ${state.url}`);
    return;
  }
  if (request.method !== 'GET') {
    fail(405, 'method_not_allowed', 'the inspector is read-only: GET only', { ...state.dataHeaders, allow: 'GET' });
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(request.url ?? '/', 'http://inspector');
  } catch {
    fail(400, 'bad_url', 'not a URL');
    return;
  }
  if (parsed.pathname === '/api/stream') {
    if (!state.hub.open(response))
      fail(
        503,
        'too_many_streams',
        `at most ${state.store.limits.maxStreams} inspector pages may follow the requests live at once`,
        { ...state.dataHeaders, 'retry-after': '5' },
      );
    return;
  }
  try {
    for (const [pattern, answer] of routes) {
      const match = pattern.exec(parsed.pathname);
      const result = match ? answer(match, parsed.searchParams) : undefined;
      if (result) {
        send(result);
        return;
      }
    }
    fail(404, 'not_found', `nothing at ${parsed.pathname}`);
  } catch (error) {
    fail(500, 'internal_error', `a bug in the inspector: ${errorMessage(error)}`);
  }
}

/**
 * The authority a request names: the target's own in absolute form (RFC 9112 §3.2.2: the Host header is then
 * ignored), else its one Host header. Undefined (a 400) for more than one Host header (§3.2: a server responds 400
 * to a request with more than one), where Node would quietly keep the first.
 */
function authorityOf(request: IncomingMessage): string | undefined {
  let hosts = 0;
  for (let index = 0; index < request.rawHeaders.length; index += 2)
    if ((request.rawHeaders[index] as string).toLowerCase() === 'host') hosts++;
  if (hosts > 1) return undefined;
  const target = request.url ?? '/';
  if (target.startsWith('/')) return request.headers.host ?? '';
  let absolute: URL;
  try {
    absolute = new URL(target);
  } catch {
    return '';
  }
  // Only http: names this server; a URL without a port names 80, which hostCheck wants written out.
  return absolute.protocol === 'http:' ? `${absolute.hostname}:${absolute.port || '80'}` : '';
}

/** Host headers this inspector answers: its own address and localhost, with its port (any IP when bound to all). */
function hostCheck(address: AddressInfo): (value: string | undefined) => boolean {
  const port = String(address.port);
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const own = new Set([address.address, 'localhost', '127.0.0.1', '::1'].map((name) => name.toLowerCase()));
  return (value) => {
    if (value === undefined) return false;
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:]+):([0-9]+)$/.exec(value.trim());
    if (!match || match[2] !== port) return false;
    const name = (match[1] as string).replace(/^\[|\]$/g, '').toLowerCase();
    return own.has(name) || (wildcard && isIP(name) !== 0);
  };
}

/** A listen error of src/http/server.ts as the inspector's own: its codes, its words, a usage error (exit 2). */
function inspectorListenError(error: unknown): unknown {
  if (!(error instanceof CaiError)) return error;
  const { host, port } = error.data;
  const own: Record<string, [code: string, message: string]> = {
    port_in_use: ['ui_port_in_use', `the inspector's port ${port} on ${host} is already in use`],
    port_denied: ['ui_port_denied', `not allowed to listen on port ${port} on ${host} for the inspector`],
    bad_host: ['bad_ui_host', `cannot listen on ${host} for the inspector: no such local address`],
  };
  const failed = `the inspector cannot listen on ${host}:${port}: ${error.data.reason ?? error.message}`;
  const [code, message] = own[error.code] ?? ['ui_listen_failed', failed];
  return codedError('usage', code, message, error.data, error.cause);
}
