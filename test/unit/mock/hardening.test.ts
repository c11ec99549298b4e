/**
 * Issue 14, the receiver findings reproduced: each test sends what broke the mocks before and checks the answer
 * they give now. Short limits keep the time-outs quick; no test asserts a duration.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  startMockPlatform,
  type MockPlatformOptions,
  type MockRequestEntry,
  type RunningMockPlatform,
} from '../../../src/mock/platform.js';
import { startMockProvider } from '../../../src/mock/provider.js';
import { readMockLog } from '../../../src/mock/log.js';
import { parseLogLine } from '../../../src/report/log.js';
import { LIVE_SECRET, event, post, rawExchange, rawJson, signedHeaderLines } from '../../helpers/mock-client.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

async function start(
  options: Partial<MockPlatformOptions> = {},
): Promise<RunningMockPlatform & { entries: MockRequestEntry[] }> {
  const entries: MockRequestEntry[] = [];
  const mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    onRequest: (entry) => entries.push(entry),
    ...options,
  });
  running.push(mock);
  return Object.assign(mock, { entries });
}

/** A valid event with a field nested `depth` levels deep, pretty-printed (newlines) or on one line. */
function deepEvent(depth: number, pretty: boolean): { id: string; body: Buffer } {
  const doc = event();
  const head = pretty ? JSON.stringify(doc, null, 2).slice(0, -2) : JSON.stringify(doc).slice(0, -1);
  const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return {
    id: doc.event_id as string,
    body: Buffer.from(`${head},${pretty ? '\n  ' : ''}"nested":${nested}${pretty ? '\n}' : '}'}`),
  };
}

describe('finding 1: the log stores the body as received', () => {
  it('accepts a signed event with newlines and a field nested 5 000 levels deep, keeps its exact bytes, and dedupes it after a restart', async () => {
    const log = join(dir, 'deep.ndjson');
    const { id, body } = deepEvent(5_000, true);
    const first = await start({ logFile: log });
    const answer = await post(first.url, undefined, { raw: body });
    expect(answer.status).toBe(202);
    expect(answer.json).toEqual({ ok: true });

    const line = readFileSync(log, 'utf8').trimEnd();
    expect(line.split('\n')).toHaveLength(1);
    const record = JSON.parse(line) as { body_bytes: number; body_base64: string; document: { event_id: string } };
    expect(Buffer.from(record.body_base64, 'base64').equals(body)).toBe(true);
    expect(record.body_bytes).toBe(body.length);
    expect(record.document.event_id).toBe(id);
    // cai report reads the same line (src/report is unchanged).
    expect(parseLogLine(line)).toMatchObject({
      ok: true,
      record: { eventId: id, verdict: 'accepted', event: 'conversation.message' },
    });
    expect((await readMockLog(log)).records.map((r) => r.event_id)).toEqual([id]);

    await first.close();
    const second = await start({ logFile: log });
    expect(second.reloaded).toBe(1);
    expect((await post(second.url, undefined, { raw: body })).json).toEqual({ ok: true, duplicate: true });
  });

  it('accepts any nesting the body size allows (131 000 levels on one line), never a 5xx', async () => {
    const log = join(dir, 'deeper.ndjson');
    const mock = await start({ logFile: log });
    const { id, body } = deepEvent(40_000, false);
    const arrays = Buffer.from(
      JSON.stringify(event()).slice(0, -1) + `,"x":${'['.repeat(120_000)}${']'.repeat(120_000)}}`,
    );
    expect((await post(mock.url, undefined, { raw: body })).status).toBe(202);
    expect((await post(mock.url, undefined, { raw: arrays })).status).toBe(202);
    expect((await readMockLog(log)).records[0]?.event_id).toBe(id);
    // Deep but broken: a clear 400, never a 5xx.
    const broken = await post(mock.url, undefined, { raw: `{"event":${'['.repeat(100_000)}` });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ error: 'invalid_json' });
  });

  it('the provider mock logs a multi-line job as received too', async () => {
    const log = join(dir, 'jobs.ndjson');
    const mock = await startMockProvider({
      providerCode: 'acme',
      secrets: ['jobs-secret-0123456789'],
      callbackSecrets: [LIVE_SECRET],
      speed: 1e9,
      logFile: log,
      sendEvent: async () => ({ outcome: 'accepted', attempts: 1, interrupted: false, status: 202 }),
    });
    running.push(mock);
    const job = {
      lead_id: 'l-1',
      event_id: `job_${Date.now()}`,
      branch_code: 'B-1',
      contact: { name: 'Ana', phone_e164: '+34600111222' },
      callback_url: 'http://127.0.0.1:9/events',
    };
    const body = Buffer.from(
      `${JSON.stringify(job, null, 1).slice(0, -2)},\n "deep": ${'['.repeat(6_000)}${']'.repeat(6_000)}\n}`,
    );
    const answer = await post(`${mock.url}/contact-jobs`, undefined, {
      raw: body,
      secret: 'jobs-secret-0123456789',
      provider: null,
    });
    expect(answer.status).toBe(202);
    const [record] = (await readMockLog(log)).records;
    expect(Buffer.from(record?.body_base64 ?? '', 'base64').equals(body)).toBe(true);
  });
});

describe('finding 2: what needs no body is checked before the body is read', () => {
  const tooBig = 200_000;
  const headers = (lines: string) =>
    `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${tooBig}\r\n${lines}\r\n`;

  it('answers 401 for an unknown provider, a missing signature or a stale timestamp without waiting for the body, and closes', async () => {
    const mock = await start();
    const cases: [string, string][] = [
      ['unknown_provider', signedHeaderLines('x', { provider: 'someone-else' })],
      ['unknown_provider', 'X-CAI-Timestamp: 1\r\n'],
      ['missing_signature', 'X-CAI-Provider: acme\r\n'],
      ['timestamp_outside_window', signedHeaderLines('x', { timestamp: Math.floor(Date.now() / 1000) - 3_600 })],
      ['invalid_signature', 'X-CAI-Provider: acme\r\nX-CAI-Timestamp: 1795355720\r\nX-CAI-Signature: md5=abc\r\n'],
    ];
    for (const [reason, lines] of cases) {
      // Only the headers are sent: the answer comes anyway, and the connection goes with it.
      const answer = await rawExchange(mock.port, [headers(lines), '{"event":'], { waitMs: 5_000 });
      expect(answer.status, reason).toBe(401);
      expect(rawJson(answer)).toMatchObject({ error: reason });
      expect(answer.closed, reason).toBe(true);
    }
  });

  it('cuts slow headers after headersTimeoutMs and a stalled body with 408 after bodyIdleTimeoutMs', async () => {
    const mock = await start({
      limits: { headersTimeoutMs: 300, bodyIdleTimeoutMs: 300, bodyTimeoutMs: 2_000, requestTimeoutMs: 5_000 },
    });
    const slowHeaders = await rawExchange(mock.port, ['POST /events HTTP/1.1\r\nHost: x\r\n'], { waitMs: 8_000 });
    expect(slowHeaders.closed).toBe(true);
    const silent = await rawExchange(mock.port, [], { waitMs: 8_000 });
    expect(silent.closed).toBe(true);

    const body = JSON.stringify(event());
    const stalled = await rawExchange(
      mock.port,
      [
        `POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n${signedHeaderLines(body)}\r\n${body.slice(0, 20)}`,
      ],
      { waitMs: 8_000 },
    );
    expect(stalled.status).toBe(408);
    expect(rawJson(stalled)).toMatchObject({ error: 'request_timeout' });
    expect(stalled.closed).toBe(true);
    expect(mock.entries.at(-1)).toMatchObject({ status: 408, reason: 'request_timeout' });
  });

  it('cuts a body that trickles in past bodyTimeoutMs, however steady', async () => {
    const mock = await start({ limits: { bodyIdleTimeoutMs: 2_000, bodyTimeoutMs: 400 } });
    const body = JSON.stringify(event());
    const head = `POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n${signedHeaderLines(body)}\r\n`;
    const parts = [head, ...body.match(/.{1,10}/g)!];
    const answer = await rawExchange(mock.port, parts, { gapMs: 100, waitMs: 8_000 });
    expect(answer.status).toBe(408);
  });

  it('holds no more body bytes than maxBufferedBytes: over it 503 with Retry-After, and the next sender is served', async () => {
    const mock = await start({ limits: { maxBufferedBytes: 100_000, bodyIdleTimeoutMs: 1_000 } });
    const body = Buffer.alloc(90_000, 0x20);
    const head = `POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length + 10}\r\n${signedHeaderLines(body)}\r\n`;
    // Two senders each send 90 000 of their 90 010 bytes, then stall: both cannot be held at once.
    const answers = await Promise.all([rawExchange(mock.port, [head, body]), rawExchange(mock.port, [head, body])]);
    const overloaded = answers.filter((answer) => answer.status === 503);
    expect(overloaded).toHaveLength(1);
    expect(rawJson(overloaded[0]!)).toMatchObject({ error: 'overloaded', retry_after: 1 });
    expect(overloaded[0]!.text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(answers.map((answer) => answer.status).sort()).toEqual([408, 503]);
    expect((await post(mock.url, event())).status).toBe(202);
  });

  it('at maxConnections, idle connections make room for a new one; it is closed on arrival only when every slot has an authenticated request in flight', async () => {
    const mock = await start({ limits: { maxConnections: 3, headersTimeoutMs: 5_000 }, latencyMs: 1_500 });
    const { connect } = await import('node:net');
    const idle = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<import('node:net').Socket>((resolve) => {
            const socket = connect(mock.port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => {});
            socket.resume();
          }),
      ),
    );
    // Three signed events, each on a connection of its own: each takes the slot of an idle one, and holds it while
    // the mock waits its latency after authenticating it.
    const inFlight = Array.from({ length: 3 }, () => post(mock.url, event(), { headers: { connection: 'close' } }));
    await new Promise((wake) => setTimeout(wake, 500));
    expect(idle.every((socket) => socket.destroyed || socket.readableEnded)).toBe(true);
    const refused = await rawExchange(mock.port, ['GET /events HTTP/1.1\r\nHost: x\r\n\r\n'], { waitMs: 5_000 });
    expect(refused).toMatchObject({ closed: true, text: '' });
    expect((await Promise.all(inFlight)).map((answer) => answer.status)).toEqual([202, 202, 202]);
    idle.forEach((socket) => socket.destroy());
  });
});

describe('the dedupe index has an optional bound', () => {
  it('remembers at most dedupeCapacity events: past it the oldest is accepted again as new, on restart too', async () => {
    const log = join(dir, 'capped.ndjson');
    const mock = await start({ logFile: log, dedupeCapacity: 2 });
    const [a, b, c] = [event(), event(), event()];
    for (const doc of [a, b, c]) expect((await post(mock.url, doc)).json).toEqual({ ok: true });
    expect((await post(mock.url, c)).json).toEqual({ ok: true, duplicate: true });
    expect((await post(mock.url, b)).json).toEqual({ ok: true, duplicate: true });
    // a was the oldest of three with room for two: forgotten, so new again.
    expect((await post(mock.url, a)).json).toEqual({ ok: true });
    await mock.close();
    // The log holds a, b, c, a: a restart keeps the newest two accepted (c, a).
    const again = await start({ logFile: log, dedupeCapacity: 2 });
    expect(again.reloaded).toBe(4);
    expect((await post(again.url, a)).json).toEqual({ ok: true, duplicate: true });
    expect((await post(again.url, c)).json).toEqual({ ok: true, duplicate: true });
    expect((await post(again.url, b)).json).toEqual({ ok: true });
    await expect(
      startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], dedupeCapacity: 0 }),
    ).rejects.toMatchObject({ code: 'bad_dedupe_capacity' });
    await expect(
      startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], limits: { maxConnections: -1 } }),
    ).rejects.toMatchObject({ code: 'bad_limit' });
  });
});
