/**
 * An address that is plainly not an endpoint of the interface (§4.1, §4.2), judged from its first answer: a 404 (no
 * such path), a 405 (no POST there), a 501 (no POST at all: a static file server), an HTML page (a web site, a
 * gateway's error page), or a refused connection. Every signed document sent there would be answered the same way,
 * so every command that sends stops at once with the same words: the sending commands (deliver.ts: no retries for
 * two minutes on a 501) and a conformance run's first request (src/conformance/preflight.ts: no flood of failed
 * checks). The one place that judges it.
 */
import { STATUS_CODES } from 'node:http';
import { hintOf } from '../errors.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';

/** An answer as the judgement reads it: a status with its headers and body, or the error that came instead. */
interface FirstAnswer {
  status?: number;
  /** Header names lower-cased. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  error?: { code?: string; message: string };
}

/** What makes an answer plainly not an endpoint's, described (`501 Not Implemented, an HTML page ("Error")`); undefined when it may be one. */
export function notTheEndpoint(answer: FirstAnswer): string | undefined {
  if (answer.status === undefined) {
    return /ECONNREFUSED/.test(answer.error?.message ?? '') ? 'a refused connection (ECONNREFUSED)' : undefined;
  }
  const status = `${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trim();
  const type = (answer.headers['content-type'] ?? '').toLowerCase();
  const text = answer.body.subarray(0, 4096).toString('utf8');
  // A 2xx labelled text/html with an empty or non-page body may still be an endpoint that labels its answer badly.
  const page =
    type.startsWith('text/html') && (answer.status < 200 || answer.status >= 300 || /<html|<!doctype html/i.test(text));
  const title = /<title[^>]*>([^<]{1,80})<\/title>/i.exec(text)?.[1]?.trim();
  const html = page ? `, an HTML page${title ? ` ("${title}")` : ''}` : '';
  if (answer.status === 404 || answer.status === 405 || answer.status === 501 || page) return `${status}${html}`;
  return undefined;
}

interface NotAnEndpoint {
  message: string;
  hint: string;
}

/**
 * The error of a document sent to an address that is not the endpoint: what came back, what was expected, and where
 * the address should point (the hint, worded by the command: `not_an_endpoint` with the interface). `sent` names
 * what was sent (`a valid, correctly signed event`); the interface is undefined when the request does not say (a
 * replayed capture without the identity header).
 */
export function notAnEndpoint(iface: InterfaceId | undefined, url: string, wrong: string, sent: string): NotAnEndpoint {
  const hint = hintOf('not_an_endpoint', { interface: iface });
  if (iface === undefined) return { message: `${url} is not an endpoint of the interface: ${sent} got ${wrong}`, hint };
  const spec = interfaceSpec(iface);
  const expected = spec.document === 'event' ? '202 (§4.2, §7)' : '202 with the acknowledgment of §2.3 (§4.1)';
  return { message: `${url} is not ${spec.endpointKind}: ${sent} got ${wrong}; expected ${expected}`, hint };
}
