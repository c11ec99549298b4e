/**
 * cai's one listener in a conformance run under hostile traffic, on loopback: as the receiver of `--role sender` and
 * as the callback listener of `--interface A`, it cuts slow bodies, refuses bodies with no room in the budget, stops
 * recording past the run's caps, and closes connections past their cap; what it refuses is answered (408 / 503
 * with Retry-After), never recorded, and counted. Small caps here; the real ones are LISTENER_CAPS (src/bounds.ts,
 * docs/limits.md).
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LISTENER_CAPS } from '../../src/bounds.js';
import type { GuardCaps } from '../../src/http/listener-guard.js';
import { startListener, type Arrival, type Handled, type Listener } from '../../src/http/listener.js';
import { startCallbackListener, type CallbackHarness } from '../../src/conformance/probe/callbacks.js';
import { DEFAULT_RECEIVER_LIMITS, jsonReply } from '../../src/http/server.js';
import { rawExchange, rawJson } from '../helpers/mock-client.js';

const caps: GuardCaps = {
  idleSocketTimeoutMs: 300,
  bodyIdleTimeoutMs: 200,
  bodyTimeoutMs: 1_000,
  bufferedBytes: 1_000,
  keptRequests: 3,
  keptBodyBytes: 10_000,
};
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function senderListener(
  limits = DEFAULT_RECEIVER_LIMITS,
  guardCaps = caps,
): Promise<{ listener: Listener; port: number; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const handle = (arrival: Arrival): Handled => {
    arrivals.push(arrival);
    return { response: { kind: 'reply', reply: jsonReply(202, { ok: true }) }, answered: () => undefined };
  };
  const listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    option: 'listen',
    handle,
    caps: guardCaps,
    limits,
  });
  stops.push(() => listener.close());
  return { listener, port: Number(new URL(listener.url).port), arrivals };
}

async function callbackListener(): Promise<{ harness: CallbackHarness; port: number }> {
  const harness = await startCallbackListener({
    host: '127.0.0.1',
    port: 0,
    secrets: ['s'],
    providerCode: 'acme',
    waitMs: 1_000,
    observeMs: 100,
    caps,
  });
  stops.push(() => harness.close());
  return { harness, port: Number(new URL(harness.listenUrl).port) };
}

const head = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const post = (path: string, body: string) => head(path, Buffer.byteLength(body)) + body;

describe('the sender listener (--role sender)', () => {
  it('cuts a body that stalls: 408, the connection closed, no attempt recorded', async () => {
    const { listener, port, arrivals } = await senderListener();
    const answer = await rawExchange(port, [head('/accept/events', 100) + '{"event_id":']);
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
    expect(arrivals).toEqual([]);
    expect(listener.refused()).toBe(1);
  });

  it('answers a stalled body 408 when the idle-connection cut is as long as the body idle time-out (as in LISTENER_CAPS)', async () => {
    expect(LISTENER_CAPS.idleSocketTimeoutMs).toBe(LISTENER_CAPS.bodyIdleTimeoutMs);
    const { port } = await senderListener(DEFAULT_RECEIVER_LIMITS, { ...caps, idleSocketTimeoutMs: 200 });
    const answer = await rawExchange(port, [head('/accept/events', 100) + '{"event_id":']);
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
  });

  it('cuts a body that trickles in past the total time-out, however steady', async () => {
    const { port, arrivals } = await senderListener();
    const parts = [head('/accept/events', 40), ...Array.from({ length: 40 }, () => ' ')];
    const answer = await rawExchange(port, parts, { gapMs: 60 });
    expect(answer.status).toBe(408);
    expect(arrivals).toEqual([]);
  });

  it('holds no more body bytes than the budget: a body with no room gets 503 with Retry-After; the next is served', async () => {
    // The body time-outs long enough that the held body is still held when the next request comes, however late a
    // loaded machine sends it (at 200 ms it was cut first, and the next request found room).
    const { port, arrivals } = await senderListener(DEFAULT_RECEIVER_LIMITS, {
      ...caps,
      bodyIdleTimeoutMs: 60_000,
      bodyTimeoutMs: 60_000,
    });
    // 900 of the 1 000 bytes taken by a body that stays open...
    const holder = connect(port, '127.0.0.1');
    holder.on('error', () => {});
    await new Promise<void>((resolve) => holder.once('connect', () => resolve()));
    holder.write(head('/accept/events', 950) + 'x'.repeat(900));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await rawExchange(port, [
      post('/accept/events', JSON.stringify({ event_id: 'e', pad: 'y'.repeat(400) })),
    ]);
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(rawJson(refused)).toMatchObject({ error: 'busy' });
    holder.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const served = await rawExchange(port, [post('/accept/events', '{"event_id":"e2"}')]);
    expect(served.status).toBe(202);
    expect(arrivals.map((arrival) => arrival.body.toString())).toEqual(['{"event_id":"e2"}']);
  });

  it('records at most its cap of requests in a run: past it 503 with Retry-After, unrecorded, counted', async () => {
    const { listener, port, arrivals } = await senderListener();
    const statuses = [];
    for (let n = 0; n < 5; n += 1)
      statuses.push((await rawExchange(port, [post('/accept/events', `{"event_id":"e${n}"}`)])).status);
    expect(statuses).toEqual([202, 202, 202, 503, 503]);
    expect(arrivals).toHaveLength(3);
    expect(listener.refused()).toBe(2);
  });

  it('closes connections past its cap, and idle ones that never send a byte; then serves again', async () => {
    const { port, arrivals } = await senderListener({ ...DEFAULT_RECEIVER_LIMITS, maxConnections: 10 });
    const sockets: Socket[] = [];
    const closed = await Promise.all(
      Array.from({ length: 40 }, () => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => {});
        return new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
      }),
    );
    expect(closed.every(Boolean)).toBe(true);
    const served = await rawExchange(port, [post('/accept/events', '{"event_id":"after"}')]);
    expect(served.status).toBe(202);
    expect(arrivals).toHaveLength(1);
  });
});

describe('the callback listener (--interface A): the same listener, the same bounds', () => {
  it('cuts a stalled body with 408, refuses an unknown path with 404 (it counts toward the caps), and records at most its cap', async () => {
    const { harness, port } = await callbackListener();
    const path = new URL(harness.backgroundUrl('job1')).pathname;
    const stalled = await rawExchange(port, [head(path, 100) + '{']);
    expect(stalled.status).toBe(408);
    expect((await rawExchange(port, [post('/elsewhere', '{"event_id":"x"}')])).status).toBe(404);
    expect(harness.strays()).toEqual({ count: 1, shown: ['POST /elsewhere'] });
    const statuses = [];
    for (let n = 0; n < 5; n += 1)
      statuses.push((await rawExchange(port, [post(path, `{"event_id":"e${n}"}`)])).status);
    expect(statuses).toEqual([202, 202, 503, 503, 503]);
    expect(harness.refused()).toBe(4);
  });
});

describe('the caps', () => {
  it('are stated once (src/bounds.ts) and are what the listeners use by default', () => {
    expect(LISTENER_CAPS).toMatchObject({
      maxConnections: 256,
      bufferedBytes: 64 * 1024 * 1024,
      keptRequests: 2_000,
      keptBodyBytes: 256 * 1024 * 1024,
    });
  });
});
