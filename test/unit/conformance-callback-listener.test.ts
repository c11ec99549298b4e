import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startCallbackListener, type CallbackHarness } from '../../src/conformance/callback-listener.js';

const running: CallbackHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

async function listener(): Promise<CallbackHarness> {
  const harness = await startCallbackListener({ host: '127.0.0.1', port: 0, secrets: ['events-secret'] });
  running.push(harness);
  return harness;
}

async function post(url: string, document: unknown): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(document) });
  return { status: response.statusCode, headers: response.headers, json: await response.body.json() };
}

describe('the callback listener', () => {
  it('answers 202, and the §2.13 duplicate body for an event_id it accepted before', async () => {
    const harness = await listener();
    const url = harness.callbackUrlFor('plain');
    expect(await post(url, { event: 'job.closed', event_id: 'e-1' })).toMatchObject({ status: 202, json: { ok: true } });
    expect(await post(url, { event: 'job.closed', event_id: 'e-1' })).toMatchObject({ status: 202, json: { ok: true, duplicate: true } });
  });

  it("answers a token's requests by its script; an event answered 503 is new when it comes again", async () => {
    const harness = await listener();
    const token = harness.newToken();
    harness.script(token, (_body, index) => (index === 0 ? { status: 503 } : index === 1 ? { status: 429, headers: { 'Retry-After': '1' } } : undefined));
    const url = harness.callbackUrlFor(token);
    const answers = [];
    for (let n = 0; n < 4; n += 1) answers.push(await post(url, { event: 'conversation.message', event_id: 'e-2' }));
    expect(answers.map((answer) => answer.status)).toEqual([503, 429, 202, 202]);
    expect(answers[1]?.headers['retry-after']).toBe('1');
    expect(answers[2]?.json).toEqual({ ok: true });
    expect(answers[3]?.json).toEqual({ ok: true, duplicate: true });
    const received = harness.received(token);
    expect(received.map((entry) => entry.status)).toEqual([503, 429, 202, 202]);
    for (const entry of received) {
      expect(entry.arrivedAt).toBeLessThanOrEqual(entry.receivedAt);
      expect(entry.receivedAt).toBeLessThanOrEqual(entry.answeredAt);
    }
    // Another token is not scripted.
    expect((await post(harness.callbackUrlFor('other'), { event: 'job.closed', event_id: 'e-3' })).status).toBe(202);
  });

  it('stops waiting when the predicate holds, or when the signal aborts', async () => {
    const harness = await listener();
    const arrived = harness.waitFor('w', (requests) => requests.length === 1, 60_000);
    await post(harness.callbackUrlFor('w'), { event: 'job.closed', event_id: 'e-4' });
    expect((await arrived).length).toBe(1);
    const stop = new AbortController();
    const waiting = harness.waitFor('w', () => false, 60_000, stop.signal);
    stop.abort();
    expect((await waiting).length).toBe(1);
  });
});
