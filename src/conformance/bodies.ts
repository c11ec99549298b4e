/**
 * The documents and byte layouts checks send. Every document is valid except for the one thing a check
 * varies, with a fresh event_id, so a receiver's fault fails only the checks that name it.
 */
import { sampleEvent, sampleJob } from '../spec/sample.js';
import type { EventType } from '../spec/constants.js';

export type Doc = Record<string, unknown>;

/**
 * A valid event of `type` with the given event_id (records' sample generator, §2.4–§2.7). Appointment events
 * carry `branchCode` when given, so a platform that checks its catalog (§1) accepts them.
 */
export function eventDoc(type: EventType, eventId: string, leadId: string, branchCode?: string): Doc {
  const doc = sampleEvent(type, { leadId, ...(branchCode ? { branchCode } : {}) });
  doc.event_id = eventId;
  doc.lead_id = leadId;
  if (branchCode && 'branch_code' in doc) doc.branch_code = branchCode;
  return doc;
}

/** A valid contact job (§2.2) with the given ids and callback_url. */
export function jobDoc(eventId: string, leadId: string, callbackUrl: string, branchCode: string | undefined): Doc {
  const doc = sampleJob({ callbackUrl, ...(branchCode ? { branchCode } : {}) });
  doc.event_id = eventId;
  doc.lead_id = leadId;
  doc.callback_url = callbackUrl;
  if (branchCode) doc.branch_code = branchCode;
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
    const entries = Object.entries(doc).map(([key, value]) => `${pad}${JSON.stringify(key)}  :   ${looseLayout(value, depth + 1)}`);
    return `{\r\n${entries.join(' ,\r\n')}\r\n${'\t'.repeat(depth)}}`;
  }
  return JSON.stringify(doc);
}

/** Keys in reverse order (no sorted or insertion order a re-serialiser might restore). */
export function reversedKeys(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(reversedKeys);
  if (typeof doc === 'object' && doc !== null) {
    return Object.fromEntries(Object.entries(doc).reverse().map(([key, value]) => [key, reversedKeys(value)]));
  }
  return doc;
}

/** Compact JSON in which every character of the string at `field` is written as a `\uXXXX` escape or `\/`. */
export function escapedField(doc: Doc, field: string): string {
  const marker = '\u0000CAI-ESCAPE\u0000';
  const value = doc[field];
  if (typeof value !== 'string') return JSON.stringify(doc);
  const escaped = [...value]
    .map((char) => {
      if (char === '/') return '\\/';
      const code = char.codePointAt(0) ?? 0;
      if (code > 0xffff) {
        const high = Math.floor((code - 0x10000) / 0x400) + 0xd800;
        const low = ((code - 0x10000) % 0x400) + 0xdc00;
        return `\\u${high.toString(16).padStart(4, '0')}\\u${low.toString(16).padStart(4, '0')}`;
      }
      return `\\u${code.toString(16).padStart(4, '0')}`;
    })
    .join('');
  return JSON.stringify({ ...doc, [field]: marker }).replace(JSON.stringify(marker), `"${escaped}"`);
}

/** Non-ASCII text used by the raw-bytes checks: accents, CJK, an emoji (4-byte UTF-8), a right-to-left word. */
export const NON_ASCII_TEXT = 'Olá, ¿mañana a las 10:00 h? Ünïcödé — 予約できますか 👍 مرحبا / ok';

/** Pads the string at `field` so that the compact body is exactly `size` bytes. */
export function bodyOfSize(doc: Doc, field: string, size: number): Buffer {
  const base = compact({ ...doc, [field]: '' }).length;
  const padding = size - base;
  if (padding < 0) throw new Error(`document already larger than ${size} bytes`);
  const body = compact({ ...doc, [field]: 'a'.repeat(padding) });
  if (body.length !== size) throw new Error(`padding produced ${body.length} bytes, not ${size}`);
  return body;
}
