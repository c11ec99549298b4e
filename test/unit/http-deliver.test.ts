import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import { CaiError, useWords } from '../../src/errors.js';
import { SHARED_HINTS } from '../../src/commands/common/hints.js';
import { createDispatcher, postOnce, proxyFromEnv } from '../../src/http/client.js';
import { deliver, type DeliveryRequest } from '../../src/http/deliver.js';
import { verify } from '../../src/signing/verify.js';
import { startConnectProxy } from '../helpers/connect-proxy.js';
import { recordingSleep, startScriptedServer, TLS_FIXTURE, type ScriptedServer } from '../helpers/scripted-server.js';

const SECRET = 'whsec_deliver_test';
const BODY = Buffer.from('{"event":"conversation.message","event_id":"evt_fixed_0001","text":"hé"}');

let servers: ScriptedServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  servers = [];
});

async function serve(...args: Parameters<typeof startScriptedServer>): Promise<ScriptedServer> {
  const server = await startScriptedServer(...args);
  servers.push(server);
  return server;
}

function request(url: string): DeliveryRequest {
  return { url, body: BODY, secret: SECRET, headers: { 'X-CAI-Provider': 'acme' } };
}

function expectEveryRequestSignedFresh(server: ScriptedServer): void {
  for (const received of server.requests) {
    expect(received.body.equals(BODY)).toBe(true);
    expect(JSON.parse(received.body.toString('utf8')).event_id).toBe('evt_fixed_0001');
    expect(received.headers['x-cai-provider']).toBe('acme');
    expect(received.headers['content-type']).toBe('application/json');
    const result = verify({
      secrets: SECRET,
      signature: received.headers['x-cai-signature'] as string,
      timestamp: received.headers['x-cai-timestamp'] as string,
      rawBody: received.body,
    });
    expect(result.reason).toBe('ok');
  }
}

// The hints in the CLI's words, as the commands that deliver print them.
beforeAll(() => useWords(SHARED_HINTS));

describe('deliver against scripted receivers', () => {
  it('503, 503, then 202: three attempts, backoff waits, each freshly signed over the same bytes', async () => {
    const server = await serve([{ status: 503 }, { status: 503 }, { status: 202, body: { ok: true } }]);
    const { waits, sleep } = recordingSleep();
    let tick = Date.parse('2026-11-22T13:00:00Z');
    // The clock moves 10 s per reading, so every attempt has a different X-CAI-Timestamp.
    const clock = () => (tick += 10_000);
    const seen: number[] = [];
    const result = await deliver(request(server.url), {
      sleep,
      clock,
      random: () => 0,
      onAttempt: (a) => seen.push(a.attempt),
    });
    expect(result.outcome).toBe('accepted');
    expect(result.attempts.map((a) => [a.status, a.decision])).toEqual([
      [503, 'retry'],
      [503, 'retry'],
      [202, 'accepted'],
    ]);
    expect(seen).toEqual([1, 2, 3]);
    expect(waits).toEqual([1000, 2000]);
    expect(server.requests).toHaveLength(3);
    const timestamps = server.requests.map((r) => r.headers['x-cai-timestamp']);
    expect(new Set(timestamps).size).toBe(3);
    for (const received of server.requests) {
      const ts = Number(received.headers['x-cai-timestamp']);
      expect(
        verify({
          secrets: SECRET,
          signature: received.headers['x-cai-signature'] as string,
          timestamp: ts,
          rawBody: received.body,
          now: ts,
        }).valid,
      ).toBe(true);
      expect(received.body.equals(BODY)).toBe(true);
    }
    expect(result.attempts.map((a) => a.timestamp)).toEqual(timestamps);
  });

  it('429 with Retry-After in seconds, then as an HTTP date: waits exactly that long', async () => {
    const now = Date.parse('2026-11-22T13:00:00Z');
    const server = await serve([
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 429, headers: { 'retry-after': new Date(now + 5000).toUTCString() } },
      { status: 202 },
    ]);
    const { waits, sleep } = recordingSleep();
    const result = await deliver(request(server.url), { sleep, clock: () => now, random: () => 0 });
    expect(result.outcome).toBe('accepted');
    expect(waits).toEqual([2000, 5000]);
    expect(result.attempts.map((a) => a.retryAfter)).toEqual(['2', new Date(now + 5000).toUTCString(), undefined]);
  });

  it('signs with the real clock: every attempt verifies now', async () => {
    const server = await serve([{ status: 500 }, { status: 202 }]);
    const { sleep } = recordingSleep();
    const result = await deliver(request(server.url), { sleep });
    expect(result.outcome).toBe('accepted');
    expectEveryRequestSignedFresh(server);
  });

  it('400 is rejected at once, never retried', async () => {
    const server = await serve([{ status: 400, body: { error: 'bad schema' } }]);
    const { waits, sleep } = recordingSleep();
    const result = await deliver(request(server.url), { sleep });
    expect(result.outcome).toBe('rejected');
    expect(result.attempts).toHaveLength(1);
    expect(result.response?.status).toBe(400);
    expect(JSON.parse(result.response?.body.toString('utf8') ?? '')).toEqual({ error: 'bad schema' });
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a slow receiver past the time-out: time-outs are retried, then the delivery fails', async () => {
    const server = await serve([{ status: 202, delayMs: 10_000 }]);
    const { waits, sleep } = recordingSleep();
    // The time-out is long enough for each attempt's request to reach the server on a busy machine (with 150 ms, a
    // held-up loop once timed the second attempt out before it was written): the server counts both.
    const result = await deliver(request(server.url), {
      sleep,
      timeoutMs: 2_000,
      retry: { maxAttempts: 2 },
      random: () => 0,
    });
    expect(result.outcome).toBe('failed');
    expect(result.attempts.map((a) => a.error?.code)).toEqual(['timeout', 'timeout']);
    expect(result.error?.code).toBe('retries_exhausted');
    expect(result.error?.message).toContain('2 attempts');
    expect(waits).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  it('a redirect is not followed: one attempt, a failure naming the Location', async () => {
    const server = await serve([{ status: 307, headers: { location: 'https://elsewhere.example/events' } }]);
    const result = await deliver(request(server.url), { sleep: recordingSleep().sleep });
    expect(result.outcome).toBe('failed');
    expect(result.error?.code).toBe('redirect');
    expect(result.error?.message).toContain('https://elsewhere.example/events');
    expect(result.attempts).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('--no-retry: one attempt on 503', async () => {
    const server = await serve([{ status: 503 }, { status: 202 }]);
    const result = await deliver(request(server.url), { retry: { enabled: false } });
    expect(result.outcome).toBe('failed');
    expect(result.error?.code).toBe('retries_exhausted');
    expect(server.requests).toHaveLength(1);
  });

  it('--retry-for caps the total: no wait that would pass it', async () => {
    const server = await serve([{ status: 503 }]);
    let tick = 0;
    const waits: number[] = [];
    const result = await deliver(request(server.url), {
      clock: () => tick,
      sleep: async (ms) => {
        waits.push(ms);
        tick += ms;
      },
      random: () => 0,
      retry: { retryForMs: 5000 },
    });
    expect(waits).toEqual([1000, 2000]);
    expect(result.attempts).toHaveLength(3);
    expect(result.error?.message).toContain('the retry period of 5 s');
  });

  it('unreachable: retried as a connection error, then reported', async () => {
    const closed = await serve([{ status: 202 }]);
    const url = closed.url;
    await closed.close();
    servers = [];
    const result = await deliver(request(url), { sleep: recordingSleep().sleep, retry: { maxAttempts: 2 } });
    expect(result.outcome).toBe('failed');
    expect(result.attempts.map((a) => a.error?.code)).toEqual(['unreachable', 'unreachable']);
  });

  it('a stop signal lets the attempt finish and makes no further one', async () => {
    const server = await serve([{ status: 503 }]);
    const stop = new AbortController();
    const result = await deliver(request(server.url), {
      stopSignal: stop.signal,
      onAttempt: () => stop.abort(),
      sleep: (ms, signal) =>
        new Promise((resolve, reject) => (signal.aborted ? reject(new Error('stopped')) : setTimeout(resolve, ms))),
    });
    expect(result.interrupted).toBe(true);
    expect(result.error?.code).toBe('interrupted');
    expect(result.attempts).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('keepSignature sends the captured X-CAI-Timestamp and X-CAI-Signature unchanged', async () => {
    const server = await serve([{ status: 401 }]);
    const result = await deliver(
      {
        url: server.url,
        body: BODY,
        secret: '',
        headers: { 'x-cai-timestamp': '1700000000', 'x-cai-signature': 'sha256=' + 'a'.repeat(64) },
      },
      { keepSignature: true },
    );
    expect(result.outcome).toBe('rejected');
    expect(server.requests[0]?.headers['x-cai-timestamp']).toBe('1700000000');
    expect(server.requests[0]?.headers['x-cai-signature']).toBe('sha256=' + 'a'.repeat(64));
  });

  it('one headers object passed for many deliveries (a batch): each attempt gets its own copy, signed fresh or kept as given', async () => {
    const server = await serve([{ status: 202 }, { status: 202 }, { status: 401 }, { status: 202 }]);
    const headers = {
      'X-CAI-Provider': 'acme',
      'x-cai-timestamp': '1700000000',
      'x-cai-signature': 'sha256=' + 'b'.repeat(64),
    };
    const first = await deliver({ url: server.url, body: BODY, secret: SECRET, headers }, {});
    const second = await deliver({ url: server.url, body: BODY, secret: SECRET, headers }, {});
    const kept = await deliver({ url: server.url, body: BODY, secret: '', headers }, { keepSignature: true });
    const again = await deliver({ url: server.url, body: BODY, secret: SECRET, headers }, {});
    expect([first.outcome, second.outcome, kept.outcome, again.outcome]).toEqual([
      'accepted',
      'accepted',
      'rejected',
      'accepted',
    ]);
    // The caller's object is never written to, and no attempt shares its header object with another.
    expect(headers).toEqual({
      'X-CAI-Provider': 'acme',
      'x-cai-timestamp': '1700000000',
      'x-cai-signature': 'sha256=' + 'b'.repeat(64),
    });
    const sent = [first, second, kept, again].map((result) => result.attempts[0]?.requestHeaders);
    expect(new Set(sent).size).toBe(4);
    expect(Object.keys(sent[0] ?? {})).toEqual([
      'X-CAI-Provider',
      'Content-Type',
      'X-CAI-Timestamp',
      'X-CAI-Signature',
    ]);
    expect(sent[2]).toEqual({
      'X-CAI-Provider': 'acme',
      'X-CAI-Timestamp': '1700000000',
      'X-CAI-Signature': 'sha256=' + 'b'.repeat(64),
      'Content-Type': 'application/json',
    });
    expect(server.requests[2]?.headers['x-cai-signature']).toBe('sha256=' + 'b'.repeat(64));
    expectEveryRequestSignedFresh({
      ...server,
      requests: [0, 1, 3].map((index) => server.requests[index]!),
    } as ScriptedServer);
  });

  it('a headers object changed between two deliveries: the second sends what it holds then (deliver is public)', async () => {
    const server = await serve([{ status: 202 }, { status: 202 }]);
    const headers: Record<string, string> = { 'X-CAI-Provider': 'acme' };
    await deliver({ url: server.url, body: BODY, secret: SECRET, headers }, {});
    headers['X-CAI-Provider'] = 'other';
    headers['Content-Type'] = 'application/json; charset=utf-8';
    await deliver({ url: server.url, body: BODY, secret: SECRET, headers }, {});
    expect(
      server.requests.map((request) => [request.headers['x-cai-provider'], request.headers['content-type']]),
    ).toEqual([
      ['acme', 'application/json'],
      ['other', 'application/json; charset=utf-8'],
    ]);
  });
});

describe('TLS (§5.8)', () => {
  it('refuses an unknown authority, accepts it with --ca, and with --insecure', async () => {
    const server = await serve([{ status: 202 }], { tls: { key: TLS_FIXTURE.key, cert: TLS_FIXTURE.cert } });
    const plain = createDispatcher();
    const withCa = createDispatcher({ ca: TLS_FIXTURE.ca });
    const insecure = createDispatcher({ insecure: true });
    cleanups.push(
      () => plain.close(),
      () => withCa.close(),
      () => insecure.close(),
    );

    const refused = await deliver(request(server.url), { dispatcher: plain });
    expect(refused.outcome).toBe('failed');
    expect(refused.error?.code).toBe('tls');
    expect(refused.error?.hint).toContain('--ca');
    expect(refused.attempts).toHaveLength(1);

    expect((await deliver(request(server.url), { dispatcher: withCa })).outcome).toBe('accepted');
    expect((await deliver(request(server.url.replace('127.0.0.1', 'localhost')), { dispatcher: withCa })).outcome).toBe(
      'accepted',
    );
    expect((await deliver(request(server.url), { dispatcher: insecure })).outcome).toBe('accepted');
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a receiver that offers only TLS 1.1, even with --insecure', async () => {
    const server = await serve([{ status: 202 }], {
      tls: {
        key: TLS_FIXTURE.key,
        cert: TLS_FIXTURE.cert,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT:@SECLEVEL=0',
      },
    });
    const insecure = createDispatcher({ insecure: true });
    cleanups.push(() => insecure.close());
    const error = await postOnce({ url: server.url, headers: {}, body: BODY, dispatcher: insecure }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CaiError);
    expect((error as CaiError).code).toBe('tls');
    expect(server.requests).toHaveLength(0);
  });
});

describe('postOnce', () => {
  it('sends exactly the headers and bytes given and returns status, headers, body, latency', async () => {
    const server = await serve([
      { status: 202, headers: { 'content-type': 'application/json', 'x-extra': '1' }, body: '{"ok":true}' },
    ]);
    const response = await postOnce({
      url: server.url,
      headers: { 'x-a': 'b', 'content-type': 'application/json' },
      body: BODY,
    });
    expect(response.status).toBe(202);
    expect(response.headers['x-extra']).toBe('1');
    expect(response.body.toString('utf8')).toBe('{"ok":true}');
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    expect(server.requests[0]?.headers['x-a']).toBe('b');
    expect(server.requests[0]?.body.equals(BODY)).toBe(true);
  });

  it('throws a delivery error with code timeout', async () => {
    const server = await serve([{ status: 202, delayMs: 10_000 }]);
    const error = await postOnce({ url: server.url, headers: {}, body: BODY, timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaiError);
    expect((error as CaiError).kind).toBe('delivery');
    expect((error as CaiError).code).toBe('timeout');
  });

  it('sends from the given local address', async () => {
    const server = await serve([{ status: 202 }]);
    const dispatcher = createDispatcher({ localAddress: '127.0.0.1' });
    cleanups.push(() => dispatcher.close());
    await postOnce({ url: server.url, headers: {}, body: BODY, dispatcher });
    expect(server.requests[0]?.remoteAddress).toBe('127.0.0.1');
  });

  it('goes through a proxy with CONNECT', async () => {
    const target = await serve([{ status: 202 }]);
    const proxy = await startConnectProxy();
    cleanups.push(proxy.close);
    const dispatcher = createDispatcher({ proxy: proxy.url });
    cleanups.unshift(() => dispatcher.close());
    const response = await postOnce({ url: target.url, headers: {}, body: BODY, dispatcher });
    expect(response.status).toBe(202);
    expect(proxy.tunnels).toEqual([`127.0.0.1:${target.port}`]);
    expect(target.requests).toHaveLength(1);
  });
});

describe('proxyFromEnv', () => {
  it('picks HTTPS_PROXY for https and HTTP_PROXY for http, honouring NO_PROXY', () => {
    const env = {
      HTTPS_PROXY: 'http://proxy:3128',
      http_proxy: 'http://p2:8080',
      NO_PROXY: 'localhost,.internal.example',
    };
    expect(proxyFromEnv(env, 'https://platform.example/events')).toBe('http://proxy:3128');
    expect(proxyFromEnv(env, 'http://platform.example/events')).toBe('http://p2:8080');
    expect(proxyFromEnv(env, 'https://localhost:8443/x')).toBeUndefined();
    expect(proxyFromEnv(env, 'https://api.internal.example/x')).toBeUndefined();
    expect(proxyFromEnv({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '*' }, 'https://a.example/')).toBeUndefined();
    expect(proxyFromEnv({}, 'https://a.example/')).toBeUndefined();
  });
});

describe('a signal shared by many requests', () => {
  it('raises no MaxListeners warning and aborts them all', async () => {
    const server = await serve([{ status: 202, delayMs: 5000 }]);
    const dispatcher = createDispatcher({ connections: 20 });
    cleanups.push(() => dispatcher.destroy());
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const requests = Array.from({ length: 20 }, () =>
      postOnce({ url: server.url, headers: {}, body: BODY, dispatcher, signal: controller.signal }).catch(
        (e: unknown) => e,
      ),
    );
    while (server.requests.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const errors = await Promise.all(requests);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(errors.map((e) => (e as CaiError).code)).toEqual(Array.from({ length: 20 }, () => 'aborted'));
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('aborts a request still queued for a connection, sends none when aborted before, and leaves no listener behind', async () => {
    const server = await serve([{ status: 202, delayMs: 5000 }]);
    const dispatcher = createDispatcher({ connections: 1 });
    cleanups.push(() => dispatcher.destroy());
    const controller = new AbortController();
    const first = postOnce({ url: server.url, headers: {}, body: BODY, dispatcher, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    const queued = postOnce({ url: server.url, headers: {}, body: BODY, dispatcher, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    while (server.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(((await first) as CaiError).code).toBe('aborted');
    expect(((await queued) as CaiError).code).toBe('aborted');
    const before = await postOnce({
      url: server.url,
      headers: {},
      body: BODY,
      dispatcher,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect((before as CaiError).code).toBe('aborted');
    expect(server.requests).toHaveLength(1);

    const quick = await serve([{ status: 202, body: '{"ok":true}' }]);
    const live = new AbortController();
    for (let i = 0; i < 3; i += 1)
      expect(
        (await postOnce({ url: quick.url, headers: {}, body: BODY, dispatcher, signal: live.signal })).status,
      ).toBe(202);
    expect(getEventListeners(live.signal, 'abort')).toHaveLength(0);
  });
});
