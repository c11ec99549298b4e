/**
 * What the inspector keeps of one request: a bounded copy of what the mock handed its observer (the headers as
 * received, the body bytes, the answer), and the one-line summary the list shows.
 */
import type { Reply } from '../http/server.js';
import type { ObservedRequest } from '../mock/pipeline.js';
import type { MockRequestEntry } from '../mock/platform.js';
import { asObject, parseJson } from '../spec/json.js';
import type { Arena } from './arena.js';
import type { InspectorLimits } from './limits.js';
import type { Sized } from './ring.js';
import { documentLabel } from '../spec/interfaces.js';

export type HeaderPair = readonly [name: string, value: string];

/**
 * An observed request as kept: its target cut at MAX_TARGET characters, its headers and body within the bounds (the
 * body absent when the answer came before it was read), the answer as the pipeline built it (never changed once sent).
 */
export interface InspectedRequest extends Sized, ObservedRequest {
  /**
   * For a request refused before the mock parsed it (a bad signature): the event type and ids its body claims, so
   * that the list can show and filter them too. Absent otherwise: the entry has them (see idsOf).
   */
  claimed?: Ids;
  /** Header lines past the bound, or with their name or value cut. */
  headersCut: number;
  /** Of those, the lines past the bound, left out (the rest are kept with a name or value cut, ending in `…`). */
  headersLeftOut?: number;
  /** The target's full length in characters, when it was cut (it then ends in `…`). */
  targetChars?: number;
  /** The body's full length in bytes (more than `body.length` when cut). */
  bodyBytes?: number;
}

type Ids = Pick<MockRequestEntry, 'event' | 'event_id' | 'lead_id'>;

/** One row of the list: what the mock's line says of the request, its id and its body's size. */
export type RequestSummary = Pick<
  MockRequestEntry,
  | 'received_at'
  | 'interface'
  | 'status'
  | 'verdict'
  | 'reason'
  | 'message'
  | 'space'
  | 'provider_code'
  | 'event'
  | 'event_id'
  | 'lead_id'
  | 'lead_known'
  | 'provider_job_id'
> & {
  id: number;
  body_bytes?: number;
  /** What the request carried, as a line names it: its event type, or `contact job` (src/spec/interfaces.ts). */
  document: string;
};

const MAX_TARGET = 2048;
// Counted for each kept request beyond its bytes: the objects and strings around them.
const OVERHEAD_BYTES = 512;

/**
 * What is kept of an observed request: a copy of the body (into the store's arena), the rest
 * by reference (Node's header array and the mock's answer are not changed after the answer). Few objects a
 * request: with 10 000 kept, every one costs the garbage collector.
 */
export function captureRequest(
  id: number,
  observed: ObservedRequest,
  limits: InspectorLimits,
  arena: Arena,
): InspectedRequest {
  const { rawHeaders, cut, leftOut } = boundedHeaders(observed.rawHeaders, limits);
  const body =
    observed.body === undefined
      ? undefined
      : arena.copy(observed.body, Math.min(observed.body.length, limits.maxBodyBytes));
  const target = observed.target.length > MAX_TARGET ? `${observed.target.slice(0, MAX_TARGET)}…` : observed.target;
  const { entry, reply } = observed;
  const bytes =
    OVERHEAD_BYTES +
    target.length +
    headerBytes(rawHeaders) +
    (body?.length ?? 0) +
    (reply.body?.length ?? 0) +
    (entry.message?.length ?? 0);
  const request: InspectedRequest = {
    id,
    bytes,
    entry,
    method: observed.method,
    target,
    httpVersion: observed.httpVersion,
    rawHeaders,
    headersCut: cut,
    ...(leftOut > 0 ? { headersLeftOut: leftOut } : {}),
    ...(target !== observed.target ? { targetChars: observed.target.length } : {}),
    remoteAddress: observed.remoteAddress,
    body,
    bodyBytes: observed.body?.length,
    reply,
  };
  if (body !== undefined && entry.event_id === undefined && entry.lead_id === undefined)
    request.claimed = claimedIds(body);
  return request;
}

/** The event type and ids of a kept request: the mock's, or what its body claims. */
export function idsOf(request: InspectedRequest): Ids {
  return request.claimed ?? request.entry;
}

/** The headers as name/value pairs. */
export function headerPairs(request: InspectedRequest): HeaderPair[] {
  const pairs: HeaderPair[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2)
    pairs.push([request.rawHeaders[index] as string, request.rawHeaders[index + 1] as string]);
  return pairs;
}

/** The answer's headers as sendReply (src/http/server.ts) writes them. */
export function replyHeaders(reply: Reply): HeaderPair[] {
  const headers: HeaderPair[] = Object.entries(reply.headers ?? {}).map(([name, value]) => [name, value] as const);
  if (reply.body !== undefined) headers.push(['content-type', 'application/json']);
  headers.push(['content-length', String(reply.body?.length ?? 0)]);
  if (reply.close) headers.push(['connection', 'close']);
  return headers;
}

export function summarise(request: InspectedRequest): RequestSummary {
  const { entry } = request;
  const ids = idsOf(request);
  return {
    id: request.id,
    received_at: entry.received_at,
    interface: entry.interface,
    status: entry.status,
    verdict: entry.verdict,
    ...pick(entry, ['reason', 'message', 'space', 'provider_code', 'lead_known', 'provider_job_id']),
    ...pick(ids, ['event', 'event_id', 'lead_id']),
    ...(request.bodyBytes !== undefined ? { body_bytes: request.bodyBytes } : {}),
    document: documentLabel(entry.interface, ids.event, '-'),
  };
}

/** The value of the first header `name` (any case), as kept. */
export function headerOf(request: InspectedRequest, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2)
    if ((request.rawHeaders[index] as string).toLowerCase() === lower) return request.rawHeaders[index + 1];
  return undefined;
}

/**
 * What the inspector cut of a request, in lines for the top of its capture (routes.ts captureOf); none when it kept
 * it whole. Counts only, never bytes from the network.
 */
export function cutNotes(request: InspectedRequest): string[] {
  const notes: string[] = [];
  if (request.targetChars !== undefined)
    notes.push(
      `the request target: its first ${request.target.length - 1} of ${request.targetChars} characters, then "..."`,
    );
  const leftOut = request.headersLeftOut ?? 0;
  if (leftOut > 0) notes.push(`the headers: ${leftOut} lines past the inspector's bound left out, at the end`);
  if (request.headersCut > leftOut)
    notes.push(
      `the headers: ${request.headersCut - leftOut} lines with a name or value past the bound, cut and ending in "..."`,
    );
  if (bodyCut(request))
    notes.push(
      `the body: its first ${request.body?.length} of ${request.bodyBytes} bytes (Content-Length says all of them)`,
    );
  return notes;
}

/** The body was cut to the bound (so it is not the bytes that were signed). */
export function bodyCut(request: InspectedRequest): boolean {
  return request.body !== undefined && request.bodyBytes !== undefined && request.bodyBytes > request.body.length;
}

// Bodies up to this size are read for their ids when the mock did not parse them (refused before that step).
const MAX_IDS_BODY = 64 * 1024;

function claimedIds(body: Buffer): Ids | undefined {
  if (body.length > MAX_IDS_BODY) return undefined;
  const parsed = parseJson(body);
  const document = parsed.ok ? asObject(parsed.value) : undefined;
  if (!document) return undefined;
  const ids: Ids = {};
  for (const name of ['event', 'event_id', 'lead_id'] as const) {
    const value = document[name];
    if (typeof value === 'string') ids[name] = value;
  }
  return ids;
}

function pick<T extends object, K extends keyof T>(entry: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (entry[key] !== undefined) out[key] = entry[key];
  return out;
}

/** Node's header array itself when within the bounds (the usual case), else a bounded copy. */
function boundedHeaders(
  raw: readonly string[],
  limits: InspectorLimits,
): { rawHeaders: readonly string[]; cut: number; leftOut: number } {
  let within = raw.length <= limits.maxHeaders * 2;
  for (let index = 0; within && index < raw.length; index++)
    within = (raw[index] as string).length <= limits.maxHeaderBytes;
  if (within) return { rawHeaders: raw, cut: 0, leftOut: 0 };
  const kept: string[] = [];
  let cut = 0;
  let leftOut = 0;
  const bounded = (text: string) =>
    text.length > limits.maxHeaderBytes ? `${text.slice(0, limits.maxHeaderBytes)}…` : text;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string;
    const value = raw[index + 1] as string;
    if (kept.length >= limits.maxHeaders * 2) {
      cut++;
      leftOut++;
      continue;
    }
    if (name.length > limits.maxHeaderBytes || value.length > limits.maxHeaderBytes) cut++;
    kept.push(bounded(name), bounded(value));
  }
  return { rawHeaders: kept, cut, leftOut };
}

function headerBytes(raw: readonly string[]): number {
  let total = 0;
  for (const text of raw) total += text.length + 8;
  return total;
}
