/**
 * What the reference receivers read off a request, once for both: the headers kept in the log and the path
 * (the body as JSON and its `event_id` are src/spec/json.ts's).
 */
import type { IncomingMessage } from 'node:http';
import { headerValue } from '../http/server.js';
import { Headers } from '../spec/constants.js';

/** The headers worth keeping in the log (no secret travels in a header; the signature is not a secret). */
const LOGGED_HEADERS = [
  Headers.provider,
  Headers.source,
  Headers.timestamp,
  Headers.signature,
  Headers.contentType,
] as const;

/** The identity, signing and type headers as received, for the log record (absent ones are left out). */
export function receivedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of LOGGED_HEADERS) {
    const value = headerValue(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/**
 * The path of a request target, without its query: the origin form (`/events?x`) as is, and the absolute form
 * (`http://host:port/events`), which a server must accept too (RFC 9112 §3.2.2), by its path.
 */
export function targetPath(target: string | undefined): string | undefined {
  if (target === undefined) return undefined;
  // The origin form, what every sender uses, is not matched against the pattern.
  if (!target.startsWith('/') && /^https?:\/\//i.test(target)) {
    try {
      return new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}
