/**
 * `cai replay`: a captured raw HTTP request sent again, the same body bytes with a fresh signature (§5), or with
 * its captured X-CAI-Timestamp and X-CAI-Signature unchanged (to test staleness, §5.5).
 */
import { usageError } from '../errors.js';
import { deliver, type DeliverOptions } from '../http/deliver.js';
import { parseRawRequest, type RawRequest } from '../http/raw-request.js';
import { judge, type SendResult } from '../http/send.js';
import { readFileInput } from '../input.js';
import { isTimestampText } from '../signing/verify.js';
import type { Io } from '../io.js';
import { ACKNOWLEDGMENT_CHECKS, type AckCheck } from '../spec/acknowledgment.js';
import { Headers, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { interfaceOfHeaders } from '../spec/interfaces.js';
import { assertSendableHeaders } from './dry-run.js';

/** Headers that belong to one connection or one message framing, not to the request: never re-sent as captured. */
const HOP_BY_HOP = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

/** Reads and parses the capture of `--request FILE`. */
export async function readCapture(file: string, io: Io): Promise<RawRequest> {
  const parsed = parseRawRequest(await readFileInput(file, io, 'request'));
  if (!parsed.ok) {
    throw usageError(
      'bad_request_file',
      `${file} is not a raw HTTP request: ${parsed.message}`,
      'capture it as: request line, headers, one blank line, then the body bytes',
    );
  }
  // What is replayed is checked before anything is built from it: a header of the capture HTTP cannot carry stops here.
  assertSendableHeaders(parsed.request.headerLines, `the capture ${file}`);
  return parsed.request;
}

interface ReplayPlan {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The interface the capture belongs to, by its identity header; unknown when it has neither. */
  interface?: 'A' | 'B';
  /** The captured signature is sent unchanged (`--keep-timestamp`). */
  keepSignature: boolean;
}

/** What is sent: `to` (with the captured path when it has none), the captured headers but the hop-by-hop ones. */
export function planReplay(captured: RawRequest, to: string, keepSignature: boolean): ReplayPlan {
  const iface = interfaceOfHeaders(Object.keys(captured.headers))?.id;
  return {
    url: targetUrl(to, captured.target),
    headers: replayHeaders(captured, keepSignature),
    body: captured.body,
    ...(iface ? { interface: iface } : {}),
    keepSignature,
  };
}

/** `--to` as given, or with the captured path when it has none. */
function targetUrl(to: string, capturedTarget: string): string {
  const url = new URL(to);
  if ((url.pathname === '/' || url.pathname === '') && url.search === '' && capturedTarget.startsWith('/')) {
    return new URL(capturedTarget, url).toString();
  }
  return url.toString();
}

function replayHeaders(captured: RawRequest, keep: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of captured.headerLines) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (!keep && (lower === Headers.timestamp || lower === Headers.signature)) continue;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** A kept timestamp against the §5.5 window: missing, or its age (negative: in the future) and whether it is inside. */
export type KeptTimestamp =
  | { present: false }
  | { present: true; timestamp: string; malformed: true }
  | { present: true; timestamp: string; malformed: false; ageSeconds: number; inside: boolean };

export function keptTimestamp(captured: RawRequest, nowMs: number): KeptTimestamp {
  const timestamp = captured.headers[Headers.timestamp];
  if (timestamp === undefined || captured.headers[Headers.signature] === undefined) return { present: false };
  if (!isTimestampText(timestamp)) return { present: true, timestamp, malformed: true };
  const ageSeconds = Math.floor(nowMs / 1000) - Number(timestamp);
  return {
    present: true,
    timestamp,
    malformed: false,
    ageSeconds,
    inside: Math.abs(ageSeconds) <= SIGNATURE_WINDOW_SECONDS,
  };
}

/** Sends the plan, signing afresh with `secret` unless the captured signature is kept, and judges the answer. */
export async function replay(
  plan: ReplayPlan,
  secret: string | undefined,
  options: DeliverOptions,
): Promise<SendResult> {
  const delivery = await deliver(
    { url: plan.url, body: plan.body, secret: secret ?? '', headers: plan.headers },
    { ...options, keepSignature: plan.keepSignature },
  );
  // A capture of neither interface: any 2xx is accepted.
  const check =
    plan.interface !== undefined ? ACKNOWLEDGMENT_CHECKS[plan.interface] : (): AckCheck => ({ ok: true, problems: [] });
  return judge(plan.interface ?? 'B', plan.url, plan.body, delivery, check);
}
