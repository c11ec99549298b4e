/**
 * A kept request or callback in full, as the inspector serves it (JSON, and the HTML view built from the same
 * value): headers, the body (text when it is UTF-8, else a summary), the answer, why it got that answer, and the
 * commands to send it again. Everything in it has been through the Redactor.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  bodyCut,
  headerPairs,
  replyHeaders,
  summarise,
  type HeaderPair,
  type InspectedRequest,
  type RequestSummary,
} from './capture.js';
import { explain, type Explanation, type InspectorSigning } from './explain.js';
import type { Redactor } from './redact.js';
import { summariseCallback, type CallbackSummary, type InspectedCallback, type RetryNote } from './store.js';

/** A body as a page shows it (src/output/html/bodies.ts BodyRecord, plus how much of it is kept). */
export interface BodyDetail {
  /** Its full length as received. */
  bytes: number;
  /** The bytes kept (fewer when cut at the bound). */
  kept: number;
  /** The text, when the bytes kept are UTF-8. */
  text?: string;
  truncated: boolean;
  sha256: string;
  /** The first bytes in hex, for a body that is not UTF-8. */
  hexPrefix?: string;
}

/**
 * A kept request as commands to send it again, for the page's copy buttons; the caller's (the CLI words them as
 * `cai replay` and `cai sign | curl` lines, src/commands/mock/copy-commands.ts).
 */
export interface CopyCommands {
  replay?: string;
  curl?: string;
  /** Why a command is missing, or what to do before running it. */
  notes: string[];
}

/** The copy commands of a request, given the inspector's own URL (the capture and the body are fetched from it). */
export type CopyCommandsOf = (request: InspectedRequest, inspectorUrl: string) => CopyCommands;

export interface RequestDetail {
  summary: RequestSummary;
  request: {
    method: string;
    target: string;
    http_version: string;
    remote_address?: string;
    headers: readonly HeaderPair[];
    headers_cut: number;
    body?: BodyDetail;
  };
  answer: { status: number; headers: readonly HeaderPair[]; body?: BodyDetail };
  explanation: Explanation;
  commands: CopyCommands;
}

export interface CallbackDetail {
  summary: CallbackSummary;
  headers: readonly HeaderPair[];
  body: BodyDetail;
  retries: readonly RetryNote[];
}

const HEX_PREFIX_BYTES = 64;

export function requestDetail(
  request: InspectedRequest,
  signing: InspectorSigning,
  commands: CopyCommands,
  redactor: Redactor,
): RequestDetail {
  const detail: RequestDetail = {
    summary: summarise(request),
    request: {
      method: request.method,
      target: request.target,
      http_version: request.httpVersion,
      ...(request.remoteAddress !== undefined ? { remote_address: request.remoteAddress } : {}),
      headers: headerPairs(request),
      headers_cut: request.headersCut,
      ...(request.body !== undefined
        ? { body: bodyDetail(request.body, request.bodyBytes ?? request.body.length, bodyCut(request)) }
        : {}),
    },
    answer: {
      status: request.reply.status,
      headers: replyHeaders(request.reply),
      ...(request.reply.body !== undefined
        ? { body: bodyDetail(request.reply.body, request.reply.body.length, false) }
        : {}),
    },
    explanation: explain(request, signing),
    commands,
  };
  return redactor.json(detail);
}

export function callbackDetail(callback: InspectedCallback, redactor: Redactor): CallbackDetail {
  return redactor.json({
    summary: summariseCallback(callback),
    headers: callback.headers,
    body: bodyDetail(callback.body, callback.body.length, false),
    retries: callback.retries,
  });
}

function bodyDetail(bytes: Buffer, total: number, truncated: boolean): BodyDetail {
  const text = isUtf8(bytes) ? bytes.toString('utf8') : truncated ? utf8Prefix(bytes) : undefined;
  return {
    bytes: total,
    kept: bytes.length,
    ...(text !== undefined ? { text } : { hexPrefix: bytes.subarray(0, HEX_PREFIX_BYTES).toString('hex') }),
    truncated,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** A body cut at the bound may end inside a character: the text up to the last whole one, if the rest is UTF-8. */
function utf8Prefix(bytes: Buffer): string | undefined {
  for (let end = bytes.length; end > bytes.length - 4 && end > 0; end--)
    if (isUtf8(bytes.subarray(0, end))) return bytes.subarray(0, end).toString('utf8');
  return undefined;
}
