/**
 * The operation log read by `cai report` (NDJSON, one record per line), as the mocks write it and as a platform
 * can export its own. Only what the report needs is checked; unknown fields are ignored (§9.2 spirit).
 */
import { Headers } from '../spec/constants.js';
import { isObject } from '../spec/json.js';
import { parseJsonText } from '../spec/json-text.js';
import { interfaceSpec, isInterfaceId } from '../spec/interfaces.js';

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

/** Why a line that is no JSON at all is not a record. */
export const NOT_JSON = 'not valid JSON';

export type ParsedLine = { ok: true; record: LogRecord } | { ok: false; reason: string };

export function parseLogLine(line: string): ParsedLine {
  const parsed = parseJsonText(line);
  if (!parsed.ok) return { ok: false, reason: NOT_JSON };
  const value = parsed.value;
  if (!isObject(value)) return { ok: false, reason: 'not a JSON object' };
  if (value.v === undefined) return { ok: false, reason: 'no "v" (expected "v": 1)' };
  if (value.v !== 1)
    return { ok: false, reason: `unsupported record version ${JSON.stringify(value.v)} (expected "v": 1)` };
  if (!isInterfaceId(value.interface)) return { ok: false, reason: 'missing "interface" ("A" or "B")' };
  const spec = interfaceSpec(value.interface);
  const receivedAt = parseTime(value.received_at);
  if (receivedAt === undefined)
    return {
      ok: false,
      reason:
        typeof value.received_at === 'string' && Number.isFinite(Date.parse(value.received_at))
          ? '"received_at" is outside the years 0000 to 9999'
          : 'missing or invalid "received_at" (ISO 8601 time)',
    };
  if (typeof value.verdict !== 'string') return { ok: false, reason: 'missing "verdict"' };
  const document = isObject(value.document) ? value.document : NO_FIELDS;
  // provider_code first; the X-CAI-Provider header of the request otherwise.
  let providerCode = typeof value.provider_code === 'string' ? value.provider_code : undefined;
  if (providerCode === undefined && isObject(value.headers)) {
    const header = value.headers[Headers.provider];
    if (typeof header === 'string') providerCode = header;
  }
  const record: LogRecord = {
    v: 1,
    receivedAt,
    space: typeof value.space === 'string' ? value.space : 'live',
    interface: value.interface,
    kind: typeof value.kind === 'string' ? value.kind : spec.document,
    verdict: value.verdict,
    providerCode,
    eventId: textOf(value, document, 'event_id'),
    event: textOf(value, document, 'event'),
    leadId: textOf(value, document, 'lead_id'),
    branchCode: textOf(value, document, 'branch_code'),
    occurredAt: parseTime(document.occurred_at),
    direction: typeof document.direction === 'string' ? document.direction : undefined,
    outcome: typeof document.outcome === 'string' ? document.outcome : undefined,
  };
  if (spec.document === 'event' && record.event === undefined)
    return { ok: false, reason: `an Interface ${spec.id} record without "event"` };
  return { ok: true, record };
}

const NO_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({});

/** A field of the record itself, else of the document it logs: a string or nothing. */
function textOf(value: Record<string, unknown>, document: Record<string, unknown>, key: string): string | undefined {
  const top = value[key];
  if (typeof top === 'string') return top;
  const inner = document[key];
  return typeof inner === 'string' ? inner : undefined;
}

/** ISO 8601 with an offset (§2.1); anything Date.parse cannot read is undefined. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = parseUsualTime(value) ?? Date.parse(value);
  return Number.isFinite(ms) && ms >= FIRST_TIME_MS && ms <= LAST_TIME_MS ? ms : undefined;
}

/**
 * A time of a log is within years 0000 to 9999, the years ISO 8601 writes with four digits (as the mocks write
 * them and §2.1's date-times are): Date.parse also reads expanded years (`+275760-09-13T00:00:00Z`), which no
 * receiver logs and whose day no four-digit date can name.
 */
const FIRST_TIME_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_TIME_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The times the mocks write (`2026-11-01T08:00:00.000Z`, `…+01:00`), read three to four times faster than
 * Date.parse does (it ran twice per record of a log: a tenth of `cai report`), and without Date.UTC. Only where the result is
 * Date.parse's by construction: four-digit years from 1000, days up to 28 (no month rolls over), hours to 23,
 * seconds to 59, no or three fraction digits, `Z` or an offset within ±23:59. Anything else is undefined, and
 * parseTime asks Date.parse (test/unit/report-time.test.ts compares the two).
 */
export function parseUsualTime(text: string): number | undefined {
  const length = text.length;
  if (length !== 20 && length !== 24 && length !== 25 && length !== 29) return undefined;
  if (
    text.charCodeAt(4) !== 0x2d ||
    text.charCodeAt(7) !== 0x2d ||
    text.charCodeAt(10) !== 0x54 ||
    text.charCodeAt(13) !== 0x3a ||
    text.charCodeAt(16) !== 0x3a
  )
    return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (
    year < 1000 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 28 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  )
    return undefined;
  let at = 19;
  let millis = 0;
  if (text.charCodeAt(at) === 0x2e) {
    millis = digits(text, at + 1, 3);
    if (millis < 0) return undefined;
    at += 4;
  }
  let offsetMinutes = 0;
  const zone = text.charCodeAt(at);
  if (zone === 0x5a) {
    if (at + 1 !== length) return undefined;
  } else if (zone === 0x2b || zone === 0x2d) {
    if (at + 6 !== length || text.charCodeAt(at + 3) !== 0x3a) return undefined;
    const hours = digits(text, at + 1, 2);
    const minutes = digits(text, at + 4, 2);
    if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59) return undefined;
    offsetMinutes = (zone === 0x2b ? 1 : -1) * (hours * 60 + minutes);
  } else return undefined;
  return (
    daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis
  );
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil): Date.UTC's day, in arithmetic only. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The decimal number written by `count` ASCII digits at `from`; -1 when one is not a digit (so every range check fails). */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}
