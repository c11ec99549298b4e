/**
 * The deliberate defects both reference receivers share (RECEIVER_FAULTS in faults.ts), as the pipeline steps
 * they bend: admission (what the wire must carry), the signed string (§5.2–§5.4), the schema (narrower §2.1
 * formats), the dedupe key (§6.1, §2.2). Each function returns what the correct receiver does when its fault is
 * not given.
 */
import type { IncomingMessage } from 'node:http';
import { headerValue, type Reply } from '../http/server.js';
import { hmacHex } from '../signing/sign.js';
import { Headers, SIGNATURE_PREFIX, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import type { ValidationIssue } from '../spec/validate.js';
import type { Reject } from './pipeline/profile.js';

/** The faults a receiver was given, by name. */
export type FaultSet = ReadonlySet<string>;

/** The key an event_id is deduplicated under: the event_id itself, compared exactly (§6.1, §2.2). */
export function dedupeKeyOf(eventId: string, faults: FaultSet): string {
  let key = eventId;
  if (faults.has('dedupe-case-insensitive')) key = key.toLowerCase();
  if (faults.has('dedupe-normalises-unicode')) key = key.normalize('NFC');
  if (faults.has('dedupe-trims-event-id')) key = key.trim();
  return key;
}

/** The timestamp text the HMAC is checked over: the header as sent (§5.2, §5.4), unless `signs-parsed-timestamp`. */
export function signedTimestamp(faults: FaultSet): ((sent: string) => string) | undefined {
  if (!faults.has('signs-parsed-timestamp')) return undefined;
  return (sent) => (/^[+\s]*[0-9]+\s*$/.test(sent) ? String(Number.parseInt(sent.trim(), 10)) : sent);
}

/** `requires-content-length` (411) and `strict-content-type` (415): refused before anything else is read. */
export function wireCheck(
  faults: FaultSet,
): ((request: IncomingMessage, reject: Reject) => Reply | undefined) | undefined {
  const needsLength = faults.has('requires-content-length');
  const strictType = faults.has('strict-content-type');
  if (!needsLength && !strictType) return undefined;
  return (request, reject) => {
    if (needsLength && request.headers['content-length'] === undefined)
      return reject(411, 'length_required', 'a Content-Length is required');
    const type = headerValue(request, Headers.contentType);
    if (strictType && type !== 'application/json')
      return reject(
        415,
        'unsupported_media_type',
        `Content-Type must be application/json, not ${JSON.stringify(type ?? '')}`,
      );
    return undefined;
  };
}

const dateTime = (key: string) => key.endsWith('_at');
const e164 = (key: string) => key.endsWith('_e164');
const digits = (value: string) => value.replace(/\D/g, '').length;

/**
 * Narrower format checks than §2.1's, by field name (`*_at` are date-times, `*_e164` telephone numbers): the fault,
 * the fields it reads, what it refuses (a pattern a value matches, or a test) and the issue's message.
 */
const NARROWINGS: readonly [string, (key: string) => boolean, RegExp | ((value: string) => boolean), string][] = [
  ['date-time-without-fraction', dateTime, /T\d\d:\d\d:\d\d\./, 'fractional seconds are not supported'],
  ['date-time-numeric-offset-only', dateTime, /Z$/i, 'the offset must be ±hh:mm'],
  ['date-time-positive-offset-only', dateTime, /-\d\d:\d\d$/, 'the offset must be +hh:mm or Z'],
  ['e164-max-14-digits', e164, (value) => digits(value) > 14, 'at most 14 digits'],
  ['e164-min-10-digits', e164, (value) => digits(value) < 10, 'at least 10 digits'],
  ['date-time-whole-hour-offset', dateTime, /[+-]\d\d:(?!00)\d\d$/, 'the offset must be a whole number of hours'],
  ['date-time-fraction-max-6', dateTime, /T\d\d:\d\d:\d\d\.\d{7,}/, 'at most six fractional digits'],
  [
    'language-two-part-only',
    (key) => key === 'language',
    (value) => !/^[a-z]{2,3}(-[A-Z]{2})?$/.test(value),
    'expected ll or ll-CC',
  ],
];

/** The schema problems a receiver with the format faults finds in a document the spec calls valid. */
export function narrowedFormatIssues(document: unknown, faults: FaultSet): ValidationIssue[] {
  const active = faults.size === 0 ? [] : NARROWINGS.filter(([fault]) => faults.has(fault));
  if (active.length === 0) return [];
  const issues: ValidationIssue[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (typeof child === 'string') {
        for (const [, applies, refuses, message] of active) {
          if (applies(key) && (typeof refuses === 'function' ? refuses(child) : refuses.test(child)))
            issues.push({ path: at, code: 'format', message });
        }
      } else walk(child, at);
    }
  };
  walk(document, '');
  return issues;
}

/** `dedupe-expires`: how long an event_id is remembered. */
export const DEDUPE_EXPIRY_MS = 1_000;

/** The signature header as the verifier reads it: as sent, or lowercased (`signature-any-case`). */
export function signatureAsRead(sent: string | undefined, faults: FaultSet): string | undefined {
  return sent !== undefined && faults.has('signature-any-case') ? sent.toLowerCase() : sent;
}

/** `window-301-seconds`: the window's half-width, one second too wide. */
export function windowSecondsOf(windowSeconds: number | undefined, faults: FaultSet): number | undefined {
  return faults.has('window-301-seconds') && (windowSeconds ?? SIGNATURE_WINDOW_SECONDS) === SIGNATURE_WINDOW_SECONDS
    ? SIGNATURE_WINDOW_SECONDS + 1
    : windowSeconds;
}

/**
 * `window-from-date-header`: the clock the window reads, in unix seconds, so that the skew it finds is the Date
 * header's age (the timestamp header plus that age), when the request has a Date header.
 */
export function windowClock(
  nowSeconds: number,
  request: IncomingMessage,
  timestamp: string | undefined,
  faults: FaultSet,
): number {
  if (!faults.has('window-from-date-header') || timestamp === undefined || !/^[0-9]+$/.test(timestamp))
    return nowSeconds;
  const date = Date.parse(headerValue(request, 'date') ?? '');
  return Number.isNaN(date) ? nowSeconds : Number(timestamp) + (nowSeconds - Math.floor(date / 1000));
}

/**
 * A signature the correct HMAC comparison refused, let through by a fault: the HMAC over timestamp and body without
 * the dot (`signature-without-dot`), or one whose first 40 hex digits match (`signature-compares-40-digits`).
 */
export function signatureLetThrough(
  faults: FaultSet,
  secrets: readonly string[],
  sent: string | undefined,
  timestamp: string | undefined,
  body: Buffer,
): boolean {
  const withoutDot = faults.has('signature-without-dot');
  const prefixOnly = faults.has('signature-compares-40-digits');
  if ((!withoutDot && !prefixOnly) || sent === undefined || timestamp === undefined) return false;
  const given = sent.startsWith(SIGNATURE_PREFIX) ? sent.slice(SIGNATURE_PREFIX.length) : '';
  return secrets.some((secret) => {
    if (withoutDot && given === hmacHex(secret, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]))) return true;
    const expected = hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]));
    return prefixOnly && /^[0-9a-f]{64}$/.test(given) && given.slice(0, 40) === expected.slice(0, 40);
  });
}

/** The enumerations of both documents, by field name (`enum-case-folded`). */
const ENUM_FIELDS = new Set(['channel', 'direction', 'author', 'outcome', 'intent']);

/**
 * The document as a lenient receiver reads it before validation: enumeration values trimmed and lowercased
 * (`enum-case-folded`), digits-only telephone numbers given their + (`e164-plus-optional`), `attempts` of digits made
 * a number (`integer-strings`). Without those faults, the document itself.
 */
export function loosened(document: unknown, faults: FaultSet): unknown {
  const folds = faults.has('enum-case-folded');
  const plus = faults.has('e164-plus-optional');
  const integers = faults.has('integer-strings');
  if (!folds && !plus && !integers) return document;
  const walk = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        if (typeof child !== 'string') return [key, walk(child)];
        if (folds && ENUM_FIELDS.has(key)) return [key, child.trim().toLowerCase()];
        if (plus && key.endsWith('_e164') && /^[1-9][0-9]{7,14}$/.test(child)) return [key, `+${child}`];
        if (integers && key === 'attempts' && /^[0-9]+$/.test(child)) return [key, Number(child)];
        return [key, child];
      }),
    );
  };
  return walk(document);
}

/** `identity-case-folded`: the identity headers lowercased, as a lookup table of lowercased codes reads them. */
export function foldIdentity(request: IncomingMessage, faults: FaultSet): void {
  if (!faults.has('identity-case-folded')) return;
  for (const name of [Headers.provider, Headers.source]) {
    const value = request.headers[name];
    if (typeof value === 'string') request.headers[name] = value.toLowerCase();
  }
}
