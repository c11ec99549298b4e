import { afterEach, describe, expect, it } from 'vitest';
import { createEventSender, type EventRetry } from '../../../src/mock/sender.js';
import { verify } from '../../../src/signing/verify.js';
import { startScriptedServer, type ScriptedAnswer, type ScriptedServer } from '../../helpers/scripted-server.js';

const SECRET = 'events-secret-0123456789';
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * Sends one event through the mock's sender, with `faults`, against answers scripted in turn. Waits of a second
 * or more are not waited out: the sender is stopped at its first such retry, whose planned wait is returned.
 */
async function send(faults: string[], answers: ScriptedAnswer[], jobTimestamp?: string) {
  const server = await startScriptedServer(answers);
  servers.push(server);
  const stop = new AbortController();
  const retries: EventRetry[] = [];
  const sender = createEventSender({ retry: { initialDelayMs: 10, jitter: 0 }, faults: new Set(faults) });
  const body = Buffer.from(JSON.stringify({ event: 'conversation.message', event_id: 'evt-1', text: 'hola' }));
  const delivery = await sender(
    { url: server.url, body, secret: SECRET, headers: { 'Content-Type': 'application/json' }, jobTimestamp },
    stop.signal,
    (retry) => {
      retries.push(retry);
      if (retry.waitMs >= 1000) stop.abort();
    },
  );
  return { delivery, retries, requests: server.requests };
}

const RATE_LIMITED: ScriptedAnswer = { status: 429, headers: { 'retry-after': '5' } };
const OK: ScriptedAnswer = { status: 202, body: { ok: true } };

describe("the provider mock's sender, and its faults", () => {
  it('the reference waits Retry-After after 429, retries 503, never 400', async () => {
    expect((await send([], [RATE_LIMITED, OK])).retries.map((retry) => retry.waitMs)).toEqual([5000]);
    expect((await send([], [{ status: 503 }, OK])).delivery).toMatchObject({ outcome: 'accepted', attempts: 2 });
    expect((await send([], [{ status: 400 }, OK])).delivery).toMatchObject({ outcome: 'rejected', attempts: 1 });
  });

  it('callback-ignores-retry-after waits the backoff; callback-no-retry-on-429 gives up', async () => {
    const ignoring = await send(['callback-ignores-retry-after'], [RATE_LIMITED, OK]);
    expect(ignoring.retries.map((retry) => retry.waitMs)).toEqual([10]);
    expect(ignoring.delivery).toMatchObject({ outcome: 'accepted', attempts: 2 });
    expect((await send(['callback-no-retry-on-429'], [RATE_LIMITED, OK])).delivery).toMatchObject({
      outcome: 'failed',
      attempts: 1,
    });
  });

  it('callback-no-retry-on-5xx gives up on 503; callback-retries-400 retries a 400', async () => {
    expect((await send(['callback-no-retry-on-5xx'], [{ status: 503 }, OK])).delivery).toMatchObject({
      outcome: 'failed',
      attempts: 1,
    });
    expect((await send(['callback-retries-400'], [{ status: 400 }, OK])).delivery).toMatchObject({
      outcome: 'accepted',
      attempts: 2,
    });
  });

  it('callback-retry-stale-signature re-sends re-serialised bytes under the first signature', async () => {
    const { requests } = await send(['callback-retry-stale-signature'], [{ status: 503 }, OK]);
    const check = (index: number) => {
      const sent = requests[index];
      return verify({
        secrets: SECRET,
        signature: String(sent?.headers['x-cai-signature']),
        timestamp: String(sent?.headers['x-cai-timestamp']),
        rawBody: sent?.body ?? Buffer.alloc(0),
      }).valid;
    };
    expect(requests.length).toBe(2);
    expect(check(0)).toBe(true);
    expect(requests[1]?.headers['x-cai-signature']).toBe(requests[0]?.headers['x-cai-signature']);
    expect(requests[1]?.body.equals(requests[0]?.body ?? Buffer.alloc(0))).toBe(false);
    expect(check(1)).toBe(false);
  });

  it("callback-job-timestamp signs every attempt with the job's timestamp; the reference with the time of sending", async () => {
    const jobTimestamp = String(Math.floor(Date.now() / 1000) - 240);
    const broken = await send(['callback-job-timestamp'], [{ status: 503 }, OK], jobTimestamp);
    expect(broken.requests.map((sent) => sent.headers['x-cai-timestamp'])).toEqual([jobTimestamp, jobTimestamp]);
    const valid = broken.requests.map((sent) =>
      verify({
        secrets: SECRET,
        signature: String(sent.headers['x-cai-signature']),
        timestamp: jobTimestamp,
        rawBody: sent.body,
      }),
    );
    expect(valid.map((result) => result.valid)).toEqual([true, true]);
    const reference = await send([], [OK], jobTimestamp);
    expect(reference.requests[0]?.headers['x-cai-timestamp']).not.toBe(jobTimestamp);
  });
});
