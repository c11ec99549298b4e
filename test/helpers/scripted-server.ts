/**
 * A real HTTP(S) server on 127.0.0.1:0 that answers from a script, one entry per request (the last one
 * repeats), and records every request it received with its exact body bytes. Stopped by the test.
 */
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsOptions } from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Answer only after this long (to run past a client's time-out). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  remoteAddress: string | undefined;
}

export interface ScriptedServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Script = ScriptedAnswer[] | ((request: RecordedRequest, index: number) => ScriptedAnswer);

const TLS_DIR = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
export const TLS_FIXTURE = {
  caFile: `${TLS_DIR}ca.pem`,
  ca: readFileSync(`${TLS_DIR}ca.pem`),
  cert: readFileSync(`${TLS_DIR}server.pem`),
  key: readFileSync(`${TLS_DIR}server.key`),
};

export async function startScriptedServer(
  script: Script,
  options: { tls?: HttpsOptions; path?: string } = {},
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        remoteAddress: req.socket.remoteAddress,
      };
      const index = requests.length;
      requests.push(recorded);
      const answer =
        typeof script === 'function'
          ? script(recorded, index)
          : (script[Math.min(index, script.length - 1)] as ScriptedAnswer);
      const send = () => {
        const body =
          answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        const headers: Record<string, string> = {
          ...(answer.body !== undefined && typeof answer.body !== 'string'
            ? { 'content-type': 'application/json' }
            : {}),
          ...answer.headers,
        };
        res.writeHead(answer.status, headers);
        res.end(body);
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) send();
        }, answer.delayMs);
        timers.add(timer);
      } else send();
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A failed TLS handshake is what some tests want; keep it from surfacing as an unhandled error.
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}${options.path ?? ''}`,
    port,
    requests,
    close: async () => {
      timers.forEach((timer) => clearTimeout(timer));
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Records the waits asked for and returns at once: retries are tested without real time passing. */
export function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}
