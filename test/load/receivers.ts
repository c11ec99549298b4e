/**
 * Independent receivers for the `cai load` tests, written in plain Node (no cai code): each checks the signature
 * with its own HMAC (§5.2–§5.5) and remembers every event_id, so the tests judge cai load against something it did
 * not write. A correct fast one (202, §2.13 duplicates), and broken ones: slow, 503-ing, 429-ing with Retry-After.
 * Bound to 127.0.0.1 port 0 and stopped by the test that started it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour = 'correct' | 'slow' | '503' | '429';

export interface TestReceiver {
  url: string;
  /** Requests received, badly signed ones included. */
  requests: number;
  badSignatures: number;
  /** First-time event_ids, in order, and the repeats answered as duplicates. */
  ids: string[];
  duplicates: number;
  close(): Promise<void>;
}

export async function startReceiver(
  behaviour: Behaviour,
  secret: string,
  options: { delayMs?: number } = {},
): Promise<TestReceiver> {
  const seen = new Set<string>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const receiver: TestReceiver = {
    url: '',
    requests: 0,
    badSignatures: 0,
    ids: [],
    duplicates: 0,
    close: async () => {},
  };
  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    receiver.requests += 1;
    const timestamp = String(req.headers['x-cai-timestamp'] ?? '');
    const signature = String(req.headers['x-cai-signature'] ?? '');
    const expected = 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
    if (
      !fresh ||
      signature.length !== expected.length ||
      !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))
    ) {
      receiver.badSignatures += 1;
      return answer(res, 401, { ok: false, error: 'invalid_signature' });
    }
    if (behaviour === '503') return answer(res, 503, { ok: false, error: 'unavailable' });
    if (behaviour === '429' && receiver.requests % 2 === 0)
      return answer(res, 429, { ok: false, error: 'rate_limited' }, { 'retry-after': '1' });
    const id = (JSON.parse(body.toString('utf8')) as { event_id: string }).event_id;
    if (seen.has(id)) {
      receiver.duplicates += 1;
      return answer(res, 202, { ok: true, duplicate: true });
    }
    seen.add(id);
    receiver.ids.push(id);
    answer(res, 202, { ok: true });
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (behaviour !== 'slow') return handle(req, res, body);
      const timer = setTimeout(() => {
        timers.delete(timer);
        handle(req, res, body);
      }, options.delayMs ?? 300);
      timers.add(timer);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      timers.forEach(clearTimeout);
      sockets.forEach((socket) => socket.destroy());
      server.close(() => resolve());
    });
  return receiver;
}
