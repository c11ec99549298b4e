/**
 * The answers the servers write themselves (the mocks, a conformance run's listener, the inspector's errors): a
 * status, a JSON body or none, extra headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every mock answers with: a status, a JSON body (or none) and extra headers. */
export interface Reply {
  status: number;
  body?: Buffer;
  headers?: Record<string, string>;
  /** Close the connection after answering (413: the rest of the body is never read). */
  close?: boolean;
}

const JSON_TYPE = 'application/json';

export function jsonReply(status: number, document: unknown, headers?: Record<string, string>): Reply {
  return { status, body: Buffer.from(JSON.stringify(document)), headers };
}

/** The error body every mock uses: `{"ok":false,"error":code,"message":…}` plus details. */
export function errorReply(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): Reply {
  return jsonReply(status, { ok: false, error: code, message, ...extra }, headers);
}

/** Answers; the response is handed to the socket at once (nothing to wait for on the hot path). */
export function sendReply(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
  if (response.headersSent || response.destroyed) return;
  const headers: Record<string, string | number> = reply.headers === undefined ? {} : { ...reply.headers };
  if (reply.body !== undefined) headers['content-type'] = JSON_TYPE;
  headers['content-length'] = reply.body?.length ?? 0;
  if (reply.close) {
    headers.connection = 'close';
    // 413: stop reading the rest of an oversized body; the connection goes once the answer is out.
    response.once('finish', () => request.socket.destroySoon());
  }
  response.writeHead(reply.status, headers);
  // As latin1 text, byte for byte: Node sends the head and a string body in one write, a Buffer body in two.
  if (reply.body === undefined) response.end();
  else response.end(reply.body.toString('latin1'), 'latin1');
}
