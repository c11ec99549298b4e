/**
 * The documents and byte layouts checks send. Every document is valid except for the one thing a check
 * varies, with a fresh event_id, so a receiver's fault fails only the checks that name it.
 */
import { formatDateTime, sampleEvent, sampleJob } from '../../spec/sample.js';
import type { EventType } from '../../spec/constants.js';

export type Doc = Record<string, unknown>;

/**
 * The offset of every date-time in the suite's documents (§2.1), whatever the host's time zone: `+01:00`, the
 * common numeric form. The format checks (checks/formats.ts) vary it one shape at a time (`Z`, a negative offset,
 * a fraction), so a receiver that refuses one shape fails only that check.
 */
const BASE_OFFSET_MINUTES = 60;

/** A §2.1 date-time of `date`: `±hh:mm` by default; `fraction` digits after the seconds; `Z` for UTC. */
export function dateTime(date: Date, shape: { offsetMinutes?: number; fraction?: string; utc?: boolean } = {}): string {
  const text = shape.utc
    ? formatDateTime(date, 0).replace(/\+00:00$/, 'Z')
    : formatDateTime(date, shape.offsetMinutes ?? BASE_OFFSET_MINUTES);
  return shape.fraction ? text.replace(/(T\d\d:\d\d:\d\d)/, `$1.${shape.fraction}`) : text;
}

/** Rewrites the date-time fields present (dotted paths) at the base offset, keeping their instants. */
function atBaseOffset(doc: Doc, paths: readonly string[]): void {
  for (const path of paths) {
    const parts = path.split('.');
    const parent = parts
      .slice(0, -1)
      .reduce<Doc | undefined>((node, part) => (node?.[part] as Doc | undefined) ?? undefined, doc);
    const key = parts[parts.length - 1] as string;
    const value = parent?.[key];
    if (parent && typeof value === 'string') parent[key] = dateTime(new Date(value));
  }
}

/**
 * A valid event of `type` with the given event_id (records' sample generator, §2.4–§2.7). Appointment events
 * carry `branchCode` when given, so a platform that checks its catalog (§1) accepts them.
 */
export function eventDoc(type: EventType, eventId: string, leadId: string, branchCode?: string): Doc {
  const doc = sampleEvent(type, { leadId, ...(branchCode ? { branchCode } : {}) });
  doc.event_id = eventId;
  atBaseOffset(doc, ['occurred_at', 'scheduled_at']);
  return doc;
}

/** A valid contact job (§2.2) with the given ids and callback_url. */
export function jobDoc(eventId: string, leadId: string, callbackUrl: string, branchCode: string | undefined): Doc {
  const doc = sampleJob({ callbackUrl, ...(branchCode ? { branchCode } : {}) });
  doc.event_id = eventId;
  doc.lead_id = leadId;
  atBaseOffset(doc, ['origin.captured_at']);
  return doc;
}

export function compact(doc: unknown): Buffer {
  return Buffer.from(JSON.stringify(doc), 'utf8');
}

/** Deep copy with one path set (dotted); `undefined` removes it. */
export function withPath(doc: Doc, path: string, value: unknown): Doc {
  const copy = structuredClone(doc);
  const parts = path.split('.');
  let node: Doc = copy;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null) node[part] = {};
    node = node[part] as Doc;
  }
  const last = parts[parts.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** Valid JSON, not in any canonical form: odd spacing, tabs, CRLF, spaces before colons (§5.2). */
export function looseLayout(doc: unknown, depth = 0): string {
  const pad = '\t'.repeat(depth + 1);
  if (Array.isArray(doc)) return `[ ${doc.map((item) => looseLayout(item, depth + 1)).join(' ,  ')} ]`;
  if (typeof doc === 'object' && doc !== null) {
    const entries = Object.entries(doc).map(
      ([key, value]) => `${pad}${JSON.stringify(key)}  :   ${looseLayout(value, depth + 1)}`,
    );
    return `{\r\n${entries.join(' ,\r\n')}\r\n${'\t'.repeat(depth)}}`;
  }
  return JSON.stringify(doc);
}

/** Keys in reverse order (no sorted or insertion order a re-serialiser might restore). */
export function reversedKeys(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(reversedKeys);
  if (typeof doc === 'object' && doc !== null) {
    return Object.fromEntries(
      Object.entries(doc)
        .reverse()
        .map(([key, value]) => [key, reversedKeys(value)]),
    );
  }
  return doc;
}

/** Compact JSON in which every character of the string at `field` is written as a `\uXXXX` escape or `\/`. */
export function escapedField(doc: Doc, field: string): string {
  const marker = '\u0000CAI-ESCAPE\u0000';
  const value = doc[field];
  if (typeof value !== 'string') return JSON.stringify(doc);
  // Each UTF-16 unit escaped: a character outside the BMP as its surrogate pair, as JSON writes it (RFC 8259 §7).
  const escaped = value
    .split('')
    .map((unit) => (unit === '/' ? '\\/' : `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`))
    .join('');
  return JSON.stringify({ ...doc, [field]: marker }).replace(JSON.stringify(marker), `"${escaped}"`);
}

/** Non-ASCII text used by the raw-bytes checks: accents, CJK, an emoji (4-byte UTF-8), a right-to-left word. */
export const NON_ASCII_TEXT = 'Olá, ¿mañana a las 10:00 h? Ünïcödé — 予約できますか 👍 مرحبا / ok';

/**
 * Pads the string at `field` so that the compact body is exactly `size` bytes: with `filler` (one character, any
 * UTF-8 width, never escaped by JSON) as far as it fits, then ASCII `a`s for the bytes left over.
 */
export function bodyOfSize(doc: Doc, field: string, size: number, filler = 'a'): Buffer {
  const base = compact({ ...doc, [field]: '' }).length;
  const padding = size - base;
  if (padding < 0) throw new Error(`document already larger than ${size} bytes`);
  const width = Buffer.byteLength(filler, 'utf8');
  const count = Math.floor(padding / width);
  const body = compact({ ...doc, [field]: filler.repeat(count) + 'a'.repeat(padding - count * width) });
  if (body.length !== size) throw new Error(`padding produced ${body.length} bytes, not ${size}`);
  return body;
}

/** Characters outside the Basic Multilingual Plane: each one code point, two UTF-16 units, four UTF-8 bytes. */
const ASTRAL = ['😀', '🚀', '𝄞', '𐍈', '🌍', '𝒜'];

/** `prefix` followed by astral characters up to `length` code points in all (§8 counts characters). */
export function astralPadded(prefix: string, length: number): string {
  const head = [...prefix].slice(0, length);
  const tail = Array.from({ length: length - head.length }, (_, index) => ASTRAL[index % ASTRAL.length] as string);
  return head.join('') + tail.join('');
}
