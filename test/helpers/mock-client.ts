import { request } from 'undici';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { sign } from '../../src/signing/sign.js';

export const LIVE_SECRET = 'live-secret-0123456789';
export const OLD_SECRET = 'old-secret-9876543210';
export const TEST_SECRET = 'test-secret-abcdefghij';

let counter = 0;
export function event(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    event: 'conversation.message',
    event_id: `evt_${process.pid}_${Date.now()}_${counter}`,
    lead_id: 'lead-1001',
    provider_job_id: 'pj_1',
    channel: 'whatsapp',
    from_number_e164: '+447700900123',
    direction: 'outbound',
    author: 'agent',
    text: 'Hello Ana, this is Clínica Sol about your appointment request.',
    occurred_at: new Date().toISOString(),
    ...overrides,
  };
}

export interface PostOptions {
  secret?: string | null;
  provider?: string | null;
  timestamp?: number | string;
  headers?: Record<string, string>;
  raw?: string | Buffer;
  /** Sign over this timestamp text instead of the one sent. */
  signAs?: string;
  /** Send the body with chunked transfer encoding, without Content-Length. */
  chunked?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** POSTs a document (or raw bytes) signed as a provider would (§5), over real HTTP. */
export async function post(url: string, document: unknown, options: PostOptions = {}): Promise<Answer> {
  const body = options.raw !== undefined ? Buffer.from(options.raw) : Buffer.from(JSON.stringify(document));
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-cai-timestamp': timestamp };
  if (options.provider !== null) headers['x-cai-provider'] = options.provider ?? 'acme';
  if (options.secret !== null)
    headers['x-cai-signature'] = sign(options.secret ?? LIVE_SECRET, options.signAs ?? timestamp, body);
  // A stream has no length to declare: undici sends it chunked.
  const sent = options.chunked ? Readable.from([body]) : body;
  const response = await request(url, { method: 'POST', headers: { ...headers, ...options.headers }, body: sent });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** The signing headers (§5) for `body`, as raw header lines; `timestamp` defaults to now. */
export function signedHeaderLines(
  body: Buffer | string,
  options: { secret?: string; provider?: string; timestamp?: number } = {},
): string {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const provider = options.provider === undefined ? 'acme' : options.provider;
  return `X-CAI-Provider: ${provider}\r\nX-CAI-Timestamp: ${timestamp}\r\nX-CAI-Signature: ${sign(options.secret ?? LIVE_SECRET, timestamp, body)}\r\n`;
}

export interface RawAnswer {
  /** Everything the server sent before it closed the connection (or before `waitMs`). */
  text: string;
  /** The status of the first answer in `text`, when there is one. */
  status?: number;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Writes `parts` to a fresh connection, one after another with `gapMs` between them, and collects the answer
 * until the server closes the connection (or `waitMs` passes: then `closed` is false). Write errors (the server
 * closed first) are part of the game.
 */
export function rawExchange(
  port: number,
  parts: readonly (string | Buffer)[],
  options: { gapMs?: number; waitMs?: number; halfClose?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 ([0-9]{3}) /.exec(text)?.[1];
      resolve({ text, closed, status: status === undefined ? undefined : Number(status) });
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
    socket.on('connect', async () => {
      for (const [index, part] of parts.entries()) {
        if (done || socket.destroyed) return;
        if (index > 0 && options.gapMs) await new Promise((wake) => setTimeout(wake, options.gapMs));
        socket.write(part);
      }
      // The sender's side ends (FIN) and it waits for the answer, as a client that gives up writing does.
      if (options.halfClose && !done && !socket.destroyed) socket.end();
    });
  });
}

/** The JSON body of a raw answer (after the blank line), or undefined. */
export function rawJson(answer: RawAnswer): unknown {
  const at = answer.text.indexOf('\r\n\r\n');
  try {
    return at === -1 ? undefined : JSON.parse(answer.text.slice(at + 4));
  } catch {
    return undefined;
  }
}
