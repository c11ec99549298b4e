/**
 * The inspector's HTTP server on loopback: GET only, security headers on every answer and no CORS, a foreign
 * Host refused, bounded pages and streams, live updates, and the secret: every byte it serves is searched for
 * the mock's secrets, after requests that carry a secret in a header and in the body by mistake.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform } from '../../../src/mock/platform.js';
import { InspectorStore } from '../../../src/inspector/store.js';
import { REDACTED } from '../../../src/inspector/redact.js';
import { encodeLead } from '../../../src/inspector/lead-path.js';
import { parseRawRequest } from '../../../src/http/raw-request.js';
import { startInspectorServer, type RunningInspector } from '../../../src/inspector/server.js';
import { LIVE_SECRET, TEST_SECRET, event, post } from '../../helpers/mock-client.js';
import { copyCommandsFor } from '../../../src/commands/mock/copy-commands.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function setUp(limits: ConstructorParameters<typeof InspectorStore>[0] = {}) {
  const store = new InspectorStore(limits);
  const mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    testProviderCode: 'acme-test',
    testSecrets: [TEST_SECRET],
    observe: store.observe,
  });
  closing.push(() => mock.close());
  const inspector = await startInspectorServer({
    kind: 'platform',
    store,
    signing: {
      identity: 'provider',
      credentials: [
        { code: 'acme', space: 'live', secrets: [LIVE_SECRET] },
        { code: 'acme-test', space: 'test', secrets: [TEST_SECRET] },
      ],
    },
    mockUrl: mock.url,
    postUrl: mock.url,
    copyCommands: copyCommandsFor({
      postUrl: mock.url,
      identity: 'provider',
      secretFlags: { live: '--secret-env CAI_SECRET', test: '--secret-env ACME_TEST' },
    }),
    secrets: [LIVE_SECRET, TEST_SECRET],
  });
  closing.push(() => inspector.close());
  return { store, mock, inspector };
}

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with node:http (full control of method and Host). */
function get(
  inspector: RunningInspector,
  path: string,
  options: { method?: string; host?: string } = {},
): Promise<Got> {
  const url = new URL(path, inspector.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.host ? { host: options.host } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One request written as raw bytes (headers node:http would not send), and the whole answer, as text. */
function rawExchange(inspector: RunningInspector, head: string): Promise<string> {
  const { hostname, port } = new URL(inspector.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.end(head.replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n')),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** Opens the live stream and collects what it sends until `stop()`. */
function stream(
  inspector: RunningInspector,
): Promise<{ status: number; text: () => string; stop: () => void; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = httpRequest(new URL('/api/stream', inspector.url), (res) => {
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('error', () => {});
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, stop: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const until = async (test: () => boolean) => {
  for (let n = 0; n < 400 && !test(); n++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('the inspector server', () => {
  it('answers GET only, with security headers and without any CORS header, on every endpoint', async () => {
    const { mock, inspector } = await setUp();
    await post(mock.url, event({ lead_id: 'lead-1' }));
    for (const path of [
      '/',
      '/api/info',
      '/api/requests',
      '/api/requests/1',
      '/api/requests/1/request.http',
      '/view/requests/1',
      '/api/conversations',
      '/view/conversations/live/lead-1',
      '/api/nothing',
    ]) {
      const answer = await get(inspector, path);
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
      expect(answer.headers['x-frame-options'], path).toBe('DENY');
      expect(answer.headers['referrer-policy'], path).toBe('no-referrer');
      expect(String(answer.headers['content-security-policy']), path).toMatch(
        /^default-src 'none'; .*frame-ancestors 'none'/,
      );
      expect(
        Object.keys(answer.headers).filter((name) => name.startsWith('access-control-')),
        path,
      ).toEqual([]);
    }
    const page = await get(inspector, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(String(page.headers['content-security-policy'])).toMatch(
      /script-src 'sha256-[^']+'; img-src data:; connect-src 'self';/,
    );
    expect(page.body.toString()).toContain('<meta http-equiv="Content-Security-Policy"');
    expect((await get(inspector, '/api/nothing')).status).toBe(404);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
      const answer = await get(inspector, '/api/requests', { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('GET');
    }
  });

  it('refuses a Host that is neither its address nor localhost (a DNS-rebinding page)', async () => {
    const { inspector } = await setUp();
    const port = new URL(inspector.url).port;
    expect((await get(inspector, '/api/requests', { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get(inspector, '/api/requests', { host: '127.0.0.1:1' })).status).toBe(421);
    expect((await get(inspector, '/api/requests', { host: `localhost:${port}` })).status).toBe(200);
    expect((await get(inspector, '/api/requests', { host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('answers 400 to more than one Host and judges an absolute-form target by its own authority (RFC 9112 §3.2)', async () => {
    const { inspector } = await setUp();
    const own = new URL(inspector.url).host;
    const status = async (head: string) => /^HTTP\/1\.1 ([0-9]{3})/.exec(await rawExchange(inspector, head))?.[1];
    expect(await status(`GET /api/info HTTP/1.1\r\nHost: ${own}\r\nHost: evil.example\r\n\r\n`)).toBe('400');
    expect(await status(`GET /api/info HTTP/1.1\r\nHost: evil.example\r\nHost: ${own}\r\n\r\n`)).toBe('400');
    expect(await status(`GET http://evil.example/api/info HTTP/1.1\r\nHost: ${own}\r\n\r\n`)).toBe('421');
    expect(await status(`GET http://${own}/api/info HTTP/1.1\r\nHost: evil.example\r\n\r\n`)).toBe('200');
    expect(await status(`GET /api/info HTTP/1.1\r\nHost: ${own}\r\n\r\n`)).toBe('200');
  });

  it('opens the conversation of every lead accepted: empty, `.`, `..`, one of 2 000 CJK characters, a lone surrogate', async () => {
    const { mock, inspector } = await setUp();
    const leads = ['', '.', '..', '一'.repeat(2000), 'L\ud800x', 'lead.1'];
    for (const lead of leads) expect((await post(mock.url, event({ lead_id: lead }))).status).toBe(202);
    for (const lead of leads) {
      const path = encodeLead(lead);
      expect(path.length, JSON.stringify(lead.slice(0, 4))).toBeLessThanOrEqual(1024);
      expect(path).not.toMatch(/^\.{0,2}$/);
      const api = await get(inspector, `/api/conversations/live/${path}`);
      expect(api.status, path).toBe(200);
      const conversation = JSON.parse(api.body.toString()) as { lead_id: string; messages: unknown[] };
      expect(conversation.lead_id === lead, path).toBe(true);
      expect(conversation.messages).toHaveLength(1);
      const view = await get(inspector, `/view/conversations/live/${path}`);
      expect(view.body.toString(), path).toContain('<article class="conversation">');
    }
    expect(encodeLead('lead.1')).toBe('lead.1');
    const list = JSON.parse((await get(inspector, '/api/conversations')).body.toString()) as {
      items: { lead_id: string; path: string }[];
    };
    for (const item of list.items) expect(item.path).toBe(encodeLead(item.lead_id));
    const unknown = await get(inspector, `/api/conversations/live/%h${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    const detail = await get(inspector, '/view/requests/4');
    expect(detail.body.toString()).toContain(`href="#/conversations/live/${encodeLead(leads[3] as string)}"`);
  });

  it('begins the capture of a request it cut with lines saying what, marks each cut in ASCII, and keeps a whole one exact', async () => {
    const { mock, inspector } = await setUp({ maxHeaders: 20, maxHeaderBytes: 1000 });
    const body = JSON.stringify(event({ lead_id: 'lead-cut' }));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac('sha256', LIVE_SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
    const { host } = new URL(mock.url);
    const request = (target: string, extra: string[]) =>
      [
        `POST ${target} HTTP/1.1`,
        `Host: ${host}`,
        'X-CAI-Provider: acme',
        `X-CAI-Timestamp: ${timestamp}`,
        `X-CAI-Signature: ${signature}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...extra,
      ].join('\r\n');
    const long = [`X-Long: ${'v'.repeat(1500)}`, ...Array.from({ length: 20 }, (_, index) => `X-N${index}: ${index}`)];
    const mockPort = { url: mock.url } as RunningInspector;
    await rawExchange(
      mockPort,
      `${request(`${new URL(mock.url).pathname}?q=${'a'.repeat(3000)}`, long)}\r\n\r\n${body}`,
    );
    await rawExchange(mockPort, `${request(new URL(mock.url).pathname, [])}\r\n\r\n${body}`);
    const cut = (await get(inspector, '/api/requests/1/request.http')).body.toString('latin1');
    const lines = cut.slice(0, cut.indexOf('\r\n\r\n')).split('\r\n');
    expect(lines[0]).toMatch(/^# cai's inspector cut this request/);
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(4);
    expect(cut).not.toContain('&');
    expect(lines.find((line) => line.startsWith('POST '))).toMatch(/^POST \/events\?q=a+\.\.\. HTTP\/1\.1$/);
    expect(lines.find((line) => line.startsWith('X-Long: '))).toBe(`X-Long: ${'v'.repeat(1000)}...`);
    expect(parseRawRequest(Buffer.from(cut, 'latin1'))).toEqual({
      ok: false,
      message:
        "the first lines are comments (`# `): an inspector's capture of a request it cut at its bounds, not the request as received",
    });
    const commands = (JSON.parse((await get(inspector, '/api/requests/1')).body.toString()) as { commands: object })
      .commands as { replay?: string; curl?: string; notes: string[] };
    expect(commands.replay).toBeUndefined();
    expect(commands.curl).toBeDefined();
    expect(commands.notes.join(' ')).toContain('cut this request at its bounds');
    const whole = (await get(inspector, '/api/requests/2/request.http')).body.toString('utf8');
    expect(whole).toBe(`${request(new URL(mock.url).pathname, [])}\r\n\r\n${body}`);
  });

  it('bounds its pages and its live streams, and streams new requests in batches', async () => {
    const { mock, inspector } = await setUp({ maxPage: 5, maxStreams: 2 });
    for (let n = 0; n < 7; n++) await post(mock.url, event());
    const page = JSON.parse((await get(inspector, '/api/requests?limit=100000')).body.toString()) as {
      items: unknown[];
      more: boolean;
      matched: number;
    };
    expect(page.items).toHaveLength(5);
    expect(page).toMatchObject({ more: true, matched: 7 });
    const first = await stream(inspector);
    const second = await stream(inspector);
    closing.push(async () => {
      first.stop();
      second.stop();
    });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const third = await get(inspector, '/api/stream');
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('5');
    const sent = event({ lead_id: 'lead-live' });
    await post(mock.url, sent);
    await until(() => first.text().includes('event: requests'));
    const data = /event: requests\ndata: (.*)\n\n/.exec(first.text())?.[1];
    expect(JSON.parse(data ?? 'null')).toMatchObject({
      items: [{ id: 8, event_id: sent.event_id, lead_id: 'lead-live', verdict: 'accepted' }],
      kept: 8,
      next: 9,
    });
    // A stream that goes frees its place (once the server has seen it go).
    second.stop();
    let again = await stream(inspector);
    for (let n = 0; n < 200 && again.status !== 200; n++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      again = await stream(inspector);
    }
    expect(again.status).toBe(200);
    again.stop();
  });

  it('never serves a secret spelled with JSON escapes in a body (RFC 8259 §7), which the page would show decoded', async () => {
    const { mock, inspector } = await setUp();
    const escapeOne = (secret: string, at: number) =>
      `${secret.slice(0, at)}\\u${secret.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}${secret.slice(at + 1)}`;
    const everyOne = (secret: string) =>
      [...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const spellings = [escapeOne(LIVE_SECRET, 5), everyOne(LIVE_SECRET), escapeOne(TEST_SECRET, 0)];
    for (const spelling of spellings) {
      const raw = JSON.stringify(event({ lead_id: 'lead-escaped', text: 'x' })).replace(
        '"text":"x"',
        `"text":"${spelling}"`,
      );
      expect(JSON.parse(raw).text).not.toBe('x');
      expect((await post(mock.url, undefined, { raw })).status).toBe(202);
    }
    const decoded = (text: string) =>
      text.replace(/\\+u([0-9a-fA-F]{4})/g, (_, unit: string) => String.fromCharCode(parseInt(unit, 16)));
    for (let id = 1; id <= spellings.length; id++)
      for (const path of [
        `/api/requests/${id}`,
        `/view/requests/${id}`,
        `/api/requests/${id}/body`,
        `/api/requests/${id}/request.http`,
      ]) {
        const served = decoded((await get(inspector, path)).body.toString('utf8'));
        for (const secret of [LIVE_SECRET, TEST_SECRET]) expect(served.includes(secret), path).toBe(false);
        expect(served, path).toContain(REDACTED);
      }
  });

  it('never serves a secret: every byte of every endpoint and of the stream, after secrets sent by mistake', async () => {
    const { mock, inspector } = await setUp();
    const live = await stream(inspector);
    closing.push(async () => live.stop());
    // A secret in a header, in the body, in a refused body (bad signature) and in the test space, by mistake.
    await post(mock.url, event({ lead_id: 'lead-1', text: `my secret is ${LIVE_SECRET}` }), {
      headers: { 'x-debug': LIVE_SECRET },
    });
    await post(mock.url, event({ lead_id: 'lead-1', text: `signed with ${LIVE_SECRET}` }), { secret: 'wrong' });
    await post(mock.url, event({ lead_id: 'lead-1', notes: TEST_SECRET }), {
      provider: 'acme-test',
      secret: TEST_SECRET,
    });
    await post(mock.url, event({ lead_id: 'lead-2', direction: 'sideways', text: TEST_SECRET }));
    await post(mock.url, event({ lead_id: 'lead-2' }), { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    await until(() => (live.text().match(/"id":/g) ?? []).length >= 5);
    const paths = ['/', '/favicon.ico', '/api/info', '/api/requests?limit=500', '/api/conversations', '/api/callbacks'];
    for (let id = 1; id <= 5; id++)
      paths.push(
        `/api/requests/${id}`,
        `/api/requests/${id}/request.http`,
        `/api/requests/${id}/body`,
        `/view/requests/${id}`,
      );
    for (const [space, lead] of [
      ['live', 'lead-1'],
      ['test', 'lead-1'],
      ['live', 'lead-2'],
    ])
      paths.push(`/api/conversations/${space}/${lead}`, `/view/conversations/${space}/${lead}`);
    const served: [string, Buffer][] = [];
    for (const path of paths) served.push([path, (await get(inspector, path)).body]);
    served.push(['/api/stream', Buffer.from(live.text())]);
    for (const [path, body] of served) {
      for (const secret of [LIVE_SECRET, TEST_SECRET])
        expect(body.includes(secret), `${path} holds a secret`).toBe(false);
    }
    const all = Buffer.concat(served.map(([, body]) => body)).toString('utf8');
    // The places where a secret was are marked, so the test saw them.
    expect(all).toContain(`x-debug: ${REDACTED}`);
    expect(all).toContain(`my secret is ${REDACTED}`);
    expect(served.find(([path]) => path === '/api/requests/1/body')?.[1].toString()).toContain(REDACTED);
    expect(served.find(([path]) => path === '/api/requests/2')?.[1].toString()).toContain(
      'signature_over_other_content',
    );
  });
});
