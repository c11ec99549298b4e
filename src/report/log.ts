/**
 * The operation log read by `cai report` (NDJSON, one record per line), as the mocks write it and as a platform
 * can export its own. Only what the report needs is checked; unknown fields are ignored (§9.2 spirit).
 */
import { Headers } from '../spec/constants.js';

export interface LogRecord {
  v: 1;
  /** When the receiver got the request (ISO 8601). */
  receivedAt: number;
  /** `live` or `test` (§1: test credentials land in an isolated space). */
  space: string;
  interface: 'A' | 'B';
  kind: string;
  /** `accepted` (first time) or `duplicate`; other values (rejections) are skipped by the report. */
  verdict: string;
  providerCode?: string;
  eventId?: string;
  /** Interface B: the event type. */
  event?: string;
  leadId?: string;
  branchCode?: string;
  /** Interface B, from the document: when the provider says it happened. */
  occurredAt?: number;
  direction?: string;
  outcome?: string;
}

export type ParsedLine = { ok: true; record: LogRecord } | { ok: false; reason: string };

export function parseLogLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  if (!isRecord(value)) return { ok: false, reason: 'not a JSON object' };
  if (value.v === undefined) return { ok: false, reason: 'no "v" (expected "v": 1)' };
  if (value.v !== 1) return { ok: false, reason: `unsupported record version ${JSON.stringify(value.v)} (expected "v": 1)` };
  if (value.interface !== 'A' && value.interface !== 'B') return { ok: false, reason: 'missing "interface" ("A" or "B")' };
  const receivedAt = parseTime(value.received_at);
  if (receivedAt === undefined) return { ok: false, reason: 'missing or invalid "received_at" (ISO 8601 time)' };
  if (typeof value.verdict !== 'string') return { ok: false, reason: 'missing "verdict"' };
  const document = isRecord(value.document) ? value.document : {};
  const text = (key: string): string | undefined => {
    const top = value[key];
    if (typeof top === 'string') return top;
    const inner = document[key];
    return typeof inner === 'string' ? inner : undefined;
  };
  const headers = isRecord(value.headers) ? value.headers : {};
  const providerHeader = headers[Headers.provider];
  const record: LogRecord = {
    v: 1,
    receivedAt,
    space: typeof value.space === 'string' ? value.space : 'live',
    interface: value.interface,
    kind: typeof value.kind === 'string' ? value.kind : value.interface === 'A' ? 'job' : 'event',
    verdict: value.verdict,
    providerCode: typeof value.provider_code === 'string' ? value.provider_code : typeof providerHeader === 'string' ? providerHeader : undefined,
    eventId: text('event_id'),
    event: text('event'),
    leadId: text('lead_id'),
    branchCode: text('branch_code'),
    occurredAt: parseTime(document.occurred_at),
    direction: typeof document.direction === 'string' ? document.direction : undefined,
    outcome: typeof document.outcome === 'string' ? document.outcome : undefined,
  };
  if (record.interface === 'B' && record.event === undefined) return { ok: false, reason: 'an Interface B record without "event"' };
  return { ok: true, record };
}

/** ISO 8601 with an offset (§2.1); anything Date.parse cannot read is undefined. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
