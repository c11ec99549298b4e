import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { sign, verifyRequest, type VerifyRequestResult } from '../../src/index.js';

const secret = 'whsec_verify_request_secret';
let server: Server;
let url: string;
let handle: (req: IncomingMessage) => Promise<VerifyRequestResult>;

beforeAll(async () => {
  server = createServer((req, res) => {
    handle(req).then((result) => {
      res.writeHead(result.valid ? 202 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ valid: result.valid, reason: result.reason, body: result.rawBody?.toString('base64') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(body: Buffer, headers: Record<string, string>) {
  const answer = await request(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return {
    status: answer.statusCode,
    json: (await answer.body.json()) as { valid: boolean; reason: string; body?: string },
  };
}

describe('verifyRequest (library API for node:http receivers)', () => {
  const body = Buffer.from('{ "event" :"job.closed",\r\n"event_id":"evt_vr", "text":"¿sí?" }');

  it('verifies over the exact bytes received and hands them back', async () => {
    handle = (req) => verifyRequest(req, { secrets: [secret] });
    const t = Math.floor(Date.now() / 1000);
    const answer = await post(body, { 'x-cai-timestamp': String(t), 'x-cai-signature': sign(secret, t, body) });
    expect(answer.status).toBe(202);
    expect(Buffer.from(answer.json.body ?? '', 'base64').equals(body)).toBe(true);
  });

  it('rejects a signature made with another secret, and accepts it during rotation', async () => {
    const t = Math.floor(Date.now() / 1000);
    const headers = { 'x-cai-timestamp': String(t), 'x-cai-signature': sign('whsec_old_secret_value', t, body) };
    handle = (req) => verifyRequest(req, { secrets: secret });
    expect((await post(body, headers)).json.reason).toBe('signature_mismatch');
    handle = (req) => verifyRequest(req, { secrets: [secret, 'whsec_old_secret_value'] });
    expect((await post(body, headers)).status).toBe(202);
  });

  it('reports missing headers as reasons, not exceptions', async () => {
    handle = (req) => verifyRequest(req, { secrets: [secret] });
    expect((await post(body, {})).json.reason).toBe('missing_signature');
  });

  it('stops reading a body over the limit', async () => {
    handle = (req) => verifyRequest(req, { secrets: [secret], maxBodyBytes: 1024 });
    const answer = await post(Buffer.alloc(4096, 0x61), { 'x-cai-timestamp': '1', 'x-cai-signature': 'sha256=0' });
    expect(answer.json.reason).toBe('body_too_large');
  });

  it('takes an already-read raw body', async () => {
    const t = Math.floor(Date.now() / 1000);
    handle = async (req) => {
      req.resume();
      return verifyRequest(req, { secrets: [secret], rawBody: body });
    };
    const answer = await post(Buffer.from('ignored'), {
      'x-cai-timestamp': String(t),
      'x-cai-signature': sign(secret, t, body),
    });
    expect(answer.status).toBe(202);
  });
});
