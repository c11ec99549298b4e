/**
 * What the reference receivers read off a request, once for both: the headers kept in the log, the body as
 * JSON, and the `event_id` of a body.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { headerValue } from '../http/server.js';
import { Headers } from '../spec/constants.js';

/** The headers worth keeping in the log (no secret travels in a header; the signature is not a secret). */
const LOGGED_HEADERS = [Headers.provider, Headers.source, Headers.timestamp, Headers.signature, Headers.contentType] as const;

/** The identity, signing and type headers as received, for the log record (absent ones are left out). */
export function receivedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of LOGGED_HEADERS) {
    const value = headerValue(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** Every header as received, names lowercased, a repeated header's values joined with ", " (as Node joins them). */
export function flatHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The request body as JSON, or `ok: false` when it is not UTF-8 (§2) or not JSON. Checked with isUtf8 first:
 * toString would quietly turn bad bytes into U+FFFD and the mock would store changed text.
 */
export function parseJsonBody(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (!isUtf8(body)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

/** The JSON object of a document, or undefined for any other JSON value. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The string `event_id` of a body, if it is a JSON object that has one. Never throws. */
export function eventIdOf(body: Buffer): string | undefined {
  const parsed = parseJsonBody(body);
  const id = parsed.ok ? objectOf(parsed.value)?.event_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The path of a request target, without its query: the origin form (`/events?x`) as is, and the absolute form
 * (`http://host:port/events`), which a server must accept too (RFC 9112 §3.2.2), by its path.
 */
export function targetPath(target: string | undefined): string | undefined {
  if (target === undefined) return undefined;
  if (/^https?:\/\//i.test(target)) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  return target.split('?', 1)[0];
}
