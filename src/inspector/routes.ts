/**
 * What the inspector's server answers, path by path (GET only): the page, its JSON API, its HTML fragments and its
 * downloads, each a kept request, callback or conversation looked up by the id in the path, or the "not kept"
 * answer. Lists are paged (limits.maxPage) and query texts bounded; every value goes out through the Redactor.
 */
import { INSPECTOR_SERVER_CAPS } from '../bounds.js';
import { html, type SafeHtml } from '../output/html/escape.js';
import { cutNotes, headerPairs, type InspectedRequest } from './capture.js';
import { conversationList, conversationOf, leadWithPath, type Conversation } from './conversation.js';
import { callbackDetail, requestDetail, type CopyCommands } from './detail.js';
import type { InspectorState } from './state.js';
import type { InspectedCallback, InspectorStore, RequestFilter } from './store.js';
import { decodeLead, isLeadDigest } from './lead-path.js';
import { renderCallbackDetail, renderConversation, renderRequestDetail } from './views.js';

const MAX_QUERY_TEXT = INSPECTOR_SERVER_CAPS.queryTextCharacters;

export type Answer = { status: number; type: string; body: string | Buffer; headers?: Record<string, string> };
export type Route = [RegExp, (match: RegExpExecArray, query: URLSearchParams) => Answer | undefined];

export function jsonAnswer(state: InspectorState, status: number, value: unknown): Answer {
  return { status, type: 'application/json; charset=utf-8', body: JSON.stringify(state.redactor.json(value)) };
}

/** The inspector's error body, `{"ok":false,"error":code,"message":…}` (the mocks' shape, src/http/server.ts). */
export function errorAnswer(
  state: InspectorState,
  status: number,
  error: string,
  message: string,
  headers?: Record<string, string>,
): Answer {
  return { ...jsonAnswer(state, status, { ok: false, error, message }), ...(headers ? { headers } : {}) };
}

function fragment(markup: string): Answer {
  return { status: 200, type: 'text/html; charset=utf-8', body: markup };
}

/** Something no longer kept: the page's views answer 200 with the notice (a 404 would be logged by the browser as an error); the API 404s. */
function notFound(state: InspectorState, what: string, view = false): Answer {
  return view
    ? fragment(html`<p class="notice">${what} is not kept (any more): the inspector keeps ${state.bounds}.</p>`.value)
    : errorAnswer(state, 404, 'not_found', `${what} is not kept (any more): the inspector keeps ${state.bounds}`);
}

/** Every path the inspector answers, GET only: the page, its JSON API, its HTML fragments and its downloads. */
export function routesOf(state: InspectorState): Route[] {
  const { options, store, redactor } = state;
  const json = (status: number, value: unknown) => jsonAnswer(state, status, value);
  const commands = (request: InspectedRequest) => replayableOnly(request, options.copyCommands?.(request, state.url));
  const { withRequest, withCallback, withConversation } = lookupsOf(state);
  return [
    [
      /^\/$/,
      () => ({ status: 200, type: 'text/html; charset=utf-8', body: state.page.html, headers: state.pageHeaders }),
    ],
    [/^\/favicon\.ico$/, () => ({ status: 204, type: 'image/x-icon', body: '' })],
    [
      /^\/api\/info$/,
      () =>
        json(200, { kind: options.kind, mock_url: options.mockUrl, post_url: options.postUrl, limits: store.limits }),
    ],
    [
      /^\/api\/requests$/,
      (_match, query) => json(200, store.requestPage(filterOf(query), pageOf(store, query), redactor)),
    ],
    ...apiAndView(
      state,
      'requests/([0-9]{1,15})',
      withRequest,
      (request) => requestDetail(request, options.signing, commands(request), redactor),
      renderRequestDetail,
    ),
    [
      /^\/api\/requests\/([0-9]{1,15})\/request\.http$/,
      (match) =>
        withRequest(match, (request) =>
          download(state, `cai-request-${request.id}.http`, redactor.buffer(captureOf(request))),
        ),
    ],
    [
      /^\/api\/requests\/([0-9]{1,15})\/body$/,
      (match) =>
        withRequest(match, (request) =>
          request.body === undefined
            ? errorAnswer(state, 404, 'no_body', 'the body of this request was not read')
            : download(state, `cai-body-${request.id}`, redactor.buffer(request.body)),
        ),
    ],
    [/^\/api\/conversations$/, (_match, query) => json(200, conversationList(store, limitOf(store, query)))],
    ...apiAndView(
      state,
      'conversations/(live|test)/([^/]+)',
      withConversation,
      (conversation) => conversation,
      (conversation) => renderConversation(redactor.json(conversation)),
    ),
    [
      /^\/api\/callbacks$/,
      (_match, query) =>
        json(200, store.callbackPage({ lead: textOf(query, 'lead'), job: textOf(query, 'job') }, pageOf(store, query))),
    ],
    ...apiAndView(
      state,
      'callbacks/([0-9]{1,15})',
      withCallback,
      (callback) => callbackDetail(callback, redactor),
      renderCallbackDetail,
    ),
  ];
}

/** A kept item at `/api/<path>` (its JSON) and `/view/<path>` (the page's HTML fragment), from the same value. */
function apiAndView<T, V>(
  state: InspectorState,
  path: string,
  lookup: (match: RegExpExecArray, answer: (item: T) => Answer, view?: boolean) => Answer,
  valueOf: (item: T) => V,
  render: (value: V) => SafeHtml,
): Route[] {
  return [
    [new RegExp(`^/api/${path}$`), (match) => lookup(match, (item) => jsonAnswer(state, 200, valueOf(item)))],
    [new RegExp(`^/view/${path}$`), (match) => lookup(match, (item) => fragment(render(valueOf(item)).value), true)],
  ];
}

/** A kept request, callback or conversation by the id in the path, or the "not kept" answer. */
function lookupsOf(state: InspectorState) {
  const { store } = state;
  return {
    withRequest(match: RegExpExecArray, answer: (request: InspectedRequest) => Answer, view = false): Answer {
      const request = store.request(Number(match[1]));
      return request ? answer(request) : notFound(state, `Request #${match[1]}`, view);
    },
    withCallback(match: RegExpExecArray, answer: (callback: InspectedCallback) => Answer, view = false): Answer {
      const callback = store.callback(Number(match[1]));
      return callback ? answer(callback) : notFound(state, `Callback #${match[1]}`, view);
    },
    withConversation(match: RegExpExecArray, answer: (conversation: Conversation) => Answer, view = false): Answer {
      const space = match[1] as 'live' | 'test';
      const segment = match[2] as string;
      let lead: string | undefined;
      if (isLeadDigest(segment)) lead = leadWithPath(store, space, segment);
      else
        try {
          lead = decodeLead(segment);
        } catch {
          return errorAnswer(state, 400, 'bad_lead', 'the lead_id in the path is not URL-encoded UTF-8');
        }
      const conversation = lead === undefined ? undefined : conversationOf(store, space, lead);
      return conversation
        ? answer(conversation)
        : notFound(state, lead === undefined ? 'A conversation of that lead' : `A conversation of ${lead}`, view);
    },
  };
}

function limitOf(store: InspectorStore, query: URLSearchParams): number {
  const limit = Number(query.get('limit') ?? store.limits.defaultPage);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, store.limits.maxPage) : store.limits.defaultPage;
}

function pageOf(store: InspectorStore, query: URLSearchParams) {
  const number = (name: string) => {
    const value = query.get(name);
    return value !== null && /^[0-9]{1,15}$/.test(value) ? Number(value) : undefined;
  };
  return { before: number('before'), after: number('after'), limit: limitOf(store, query) };
}

function filterOf(query: URLSearchParams): RequestFilter {
  return {
    verdict: textOf(query, 'verdict'),
    type: textOf(query, 'type'),
    lead: textOf(query, 'lead'),
    space: textOf(query, 'space'),
    q: textOf(query, 'q'),
  };
}

function textOf(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value ? value.slice(0, MAX_QUERY_TEXT) : undefined;
}

function download(state: InspectorState, name: string, body: Buffer): Answer {
  const headers = { ...state.dataHeaders, 'content-disposition': `attachment; filename="${name}"` };
  return { status: 200, type: 'application/octet-stream', body, headers };
}

/** The copy commands, but no replay of a capture that is not the request as received (captureOf). */
function replayableOnly(request: InspectedRequest, commands: CopyCommands | undefined): CopyCommands {
  if (commands?.replay === undefined || cutNotes(request).length === 0) return commands ?? { notes: [] };
  const { replay: _cut, ...rest } = commands;
  const note = 'the inspector cut this request at its bounds (its capture says what): it is not replayed from here';
  return { ...rest, notes: [...rest.notes, note] };
}

/**
 * The request as `cai verify --request` and `cai replay --request` read it: request line, headers, blank line, body,
 * byte for byte as received. A request the inspector cut (limits.ts) is not that: its capture begins with `# ` lines
 * that say what was cut, and each cut ends in ASCII `...` (bytes the sender did not send, so said), so that no
 * reader takes it for the request as received (one that does not know these lines refuses the file: its first line
 * is not a request line).
 */
function captureOf(request: InspectedRequest): Buffer {
  const notes = cutNotes(request);
  // Names and values are latin1 as Node read them: a `…` (U+2026) at the end of one is the inspector's cut mark.
  const cutMark = (text: string) => (text.endsWith('…') ? `${text.slice(0, -1)}...` : text);
  const target = request.targetChars !== undefined ? cutMark(request.target) : request.target;
  const head = [
    ...(notes.length > 0
      ? [
          "# cai's inspector cut this request at its bounds: this is not the request as received",
          ...notes.map((note) => `# ${note}`),
        ]
      : []),
    `${request.method} ${target} HTTP/${request.httpVersion}`,
    ...headerPairs(request).map(([name, value]) => `${cutMark(name)}: ${cutMark(value)}`),
  ].join('\r\n');
  // Everything else is written back byte for byte.
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), request.body ?? Buffer.alloc(0)]);
}
