import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { deliveryError, errnoCode, errorMessage, usageError } from '../errors.js';

/** What every mock answers with: a status, a JSON body (or none) and extra headers. */
export interface Reply {
  status: number;
  body?: Buffer;
  headers?: Record<string, string>;
  /** Close the connection after answering (413: the rest of the body is never read). */
  close?: boolean;
}

const JSON_TYPE = 'application/json';
// How long close() lets answered connections finish before cutting them.
const CLOSE_GRACE_MS = 1_000;

export function jsonReply(status: number, document: unknown, headers?: Record<string, string>): Reply {
  return { status, body: Buffer.from(JSON.stringify(document)), headers };
}

/** The error body every mock uses: `{"ok":false,"error":code,"message":…}` plus details. */
export function errorReply(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): Reply {
  return jsonReply(status, { ok: false, error: code, message, ...extra }, headers);
}

/** Answers; the response is handed to the socket at once (nothing to wait for on the hot path). */
export function sendReply(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
  if (response.headersSent || response.destroyed) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.body !== undefined) {
    headers['content-type'] = JSON_TYPE;
    headers['content-length'] = reply.body.length;
  } else {
    headers['content-length'] = 0;
  }
  if (reply.close) {
    headers.connection = 'close';
    // 413: stop reading the rest of an oversized body; the connection goes once the answer is out.
    response.once('finish', () => request.socket.destroySoon());
  }
  response.writeHead(reply.status, headers);
  response.end(reply.body);
}

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Reads a request body, counting bytes as they arrive: over `limit` it stops reading at once (§8: 413
 * without reading the rest), whatever Content-Length claimed.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.pause();
        finish({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onError);
  });
}

/** The declared Content-Length, or undefined when absent or not a plain number. */
export function declaredLength(request: IncomingMessage): number | undefined {
  const value = request.headers['content-length'];
  if (value === undefined || !/^[0-9]+$/.test(value)) return undefined;
  return Number(value);
}

/** A header as one string (the first value when repeated); undefined when absent. */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface ListeningServer {
  server: Server;
  url: string;
  port: number;
  /** Stops accepting, waits for requests in flight (`drain`), then closes every connection. */
  close(drain: () => Promise<void>): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Starts an HTTP (or HTTPS, §5.8) server on host:port (0 = any free port). */
export async function listen(handler: Handler, options: { host: string; port: number; path: string; tls?: TlsFiles }): Promise<ListeningServer> {
  let server: Server;
  try {
    server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' }, handler) : createHttpServer(handler);
  } catch (error) {
    throw usageError('bad_tls_files', `the TLS certificate or key cannot be used: ${errorMessage(error)}`, 'pass a PEM certificate with --tls-cert and its PEM private key with --tls-key', error);
  }
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: unknown) => reject(listenError(error, options.host, options.port));
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `${options.tls ? 'https' : 'http'}://${host}:${address.port}${options.path}`;
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    port: address.port,
    close(drain) {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await drain();
        // Answers just handed to the sockets get a moment to go out; then whatever is left is cut.
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
        clearTimeout(timer);
        server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}

function listenError(error: unknown, host: string, port: number) {
  const code = errnoCode(error);
  if (code === 'EADDRINUSE') return usageError('port_in_use', `port ${port} on ${host} is already in use`, 'choose another --port, or --port 0 for any free port');
  if (code === 'EACCES') return usageError('port_denied', `not allowed to listen on port ${port} on ${host}`, 'use a port above 1023, or --port 0 for any free port');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return usageError('bad_host', `cannot listen on ${host}: no such local address`, 'use --host 127.0.0.1 (or 0.0.0.0 for every interface)');
  return deliveryError('listen_failed', `cannot listen on ${host}:${port}: ${errorMessage(error)}`, 'check --host and --port', error);
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
