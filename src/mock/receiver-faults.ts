/**
 * The deliberate defects both reference receivers share (RECEIVER_FAULTS in faults.ts), as the pipeline steps
 * they bend: admission (what the wire must carry), the signed string (§5.2–§5.4), the schema (narrower §2.1
 * formats), the dedupe key (§6.1, §2.2). Each function returns what the correct receiver does when its fault is
 * not given.
 */
import type { IncomingMessage } from 'node:http';
import { headerValue, type Reply } from '../http/server.js';
import { Headers } from '../spec/constants.js';
import type { ValidationIssue } from '../spec/validate.js';
import type { Reject } from './pipeline.js';

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
export function wireCheck(faults: FaultSet): ((request: IncomingMessage, reject: Reject) => Reply | undefined) | undefined {
  const needsLength = faults.has('requires-content-length');
  const strictType = faults.has('strict-content-type');
  if (!needsLength && !strictType) return undefined;
  return (request, reject) => {
    if (needsLength && request.headers['content-length'] === undefined) return reject(411, 'length_required', 'a Content-Length is required');
    const type = headerValue(request, Headers.contentType);
    if (strictType && type !== 'application/json') return reject(415, 'unsupported_media_type', `Content-Type must be application/json, not ${JSON.stringify(type ?? '')}`);
    return undefined;
  };
}

/** Narrower format checks than §2.1's, by field name: `*_at` are date-times, `*_e164` telephone numbers. */
const NARROWINGS: readonly { fault: string; applies: (key: string) => boolean; refuses: (value: string) => boolean; message: string }[] = [
  { fault: 'date-time-without-fraction', applies: (key) => key.endsWith('_at'), refuses: (value) => /T\d\d:\d\d:\d\d\./.test(value), message: 'fractional seconds are not supported' },
  { fault: 'date-time-numeric-offset-only', applies: (key) => key.endsWith('_at'), refuses: (value) => /Z$/i.test(value), message: 'the offset must be ±hh:mm' },
  { fault: 'date-time-positive-offset-only', applies: (key) => key.endsWith('_at'), refuses: (value) => /-\d\d:\d\d$/.test(value), message: 'the offset must be +hh:mm or Z' },
  { fault: 'e164-max-14-digits', applies: (key) => key.endsWith('_e164'), refuses: (value) => value.replace(/\D/g, '').length > 14, message: 'at most 14 digits' },
  { fault: 'e164-min-10-digits', applies: (key) => key.endsWith('_e164'), refuses: (value) => value.replace(/\D/g, '').length < 10, message: 'at least 10 digits' },
  { fault: 'date-time-whole-hour-offset', applies: (key) => key.endsWith('_at'), refuses: (value) => /[+-]\d\d:(?!00)\d\d$/.test(value), message: 'the offset must be a whole number of hours' },
  { fault: 'date-time-fraction-max-6', applies: (key) => key.endsWith('_at'), refuses: (value) => /T\d\d:\d\d:\d\d\.\d{7,}/.test(value), message: 'at most six fractional digits' },
  { fault: 'language-two-part-only', applies: (key) => key === 'language', refuses: (value) => !/^[a-z]{2,3}(-[A-Z]{2})?$/.test(value), message: 'expected ll or ll-CC' },
];

/** The schema problems a receiver with the format faults finds in a document the spec calls valid. */
export function narrowedFormatIssues(document: unknown, faults: FaultSet): ValidationIssue[] {
  const active = NARROWINGS.filter((narrowing) => faults.has(narrowing.fault));
  if (active.length === 0) return [];
  const issues: ValidationIssue[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (typeof child === 'string') {
        for (const narrowing of active) {
          if (narrowing.applies(key) && narrowing.refuses(child)) issues.push({ path: at, code: 'format', message: narrowing.message });
        }
      } else walk(child, at);
    }
  };
  walk(document, '');
  return issues;
}
