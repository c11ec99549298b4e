/**
 * cai's listener as a sender model reads it, over real HTTP on 127.0.0.1: every arrival carries how much earlier it
 * may have come (its slack) and when its connection was opened; an answer may wait (a slow receiver), and a sender
 * that closes the connection before it comes never heard it (to the sender, a cut).
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonReply } from '../../src/http/server.js';
import { startListener, type Arrival, type Handled, type Listener } from '../../src/http/listener.js';

let listener: Listener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

/** A listener that answers every request 202 after `delayMs`, and notes what it saw and how each answer went. */
async function listenWith(delayMs: number) {
  const seen: { arrival: Arrival; unheard?: boolean; answered: boolean }[] = [];
  let done: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (done = resolve));
  listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    option: 'listen',
    handle: (arrival): Handled => {
      const entry: (typeof seen)[number] = { arrival, answered: false };
      seen.push(entry);
      return {
        response: { kind: 'reply', reply: jsonReply(202, { ok: true }) },
        delayMs,
        answered: (_mono, unheard) => {
          entry.answered = true;
          if (unheard) entry.unheard = true;
          done();
        },
      };
    },
  });
  return { url: listener.url, seen, answered };
}

function post(url: string, abortAfterMs?: number): Promise<number | 'aborted'> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('aborted'));
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
    req.end('{"event":"job.closed","event_id":"evt-1"}');
  });
}

describe('the listener, as the sender model reads it', () => {
  it("notes each arrival's slack and the opening of its connection", async () => {
    const { url, seen } = await listenWith(0);
    expect(await post(url)).toBe(202);
    const [first] = seen;
    expect(first?.arrival.slackMs).toBeGreaterThanOrEqual(0);
    expect(first?.arrival.openedMono).toBeLessThanOrEqual(first?.arrival.arrivedMono ?? 0);
    expect(first?.arrival.queued).toBeUndefined();
  });

  it('answers a slow answer late, heard by a sender that waits for it', async () => {
    const { url, seen, answered } = await listenWith(200);
    expect(await post(url)).toBe(202);
    await answered;
    expect(seen[0]).toMatchObject({ answered: true });
    expect(seen[0]?.unheard).toBeUndefined();
  });

  it('a sender that closes the connection before a slow answer never heard it', async () => {
    const { url, seen, answered } = await listenWith(5_000);
    expect(await post(url, 100)).toBe('aborted');
    await answered;
    expect(seen[0]).toMatchObject({ answered: true, unheard: true });
  });
});
