/**
 * A receiver that keeps answering 429 cannot keep a run going without end (§7: retry after the number in
 * `Retry-After`): the run's waits on 429s, all requests together, have a budget, past which no 429 is waited out; a
 * `Retry-After` longer than cai waits is not waited out at all; either way the check is not judged, with the reason.
 * A `Retry-After` that is no number is reported. The receivers here are plain node:http servers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/http/client.js';
import { Session, unhonoured429 } from '../../src/conformance/probe/session.js';
import { runConformance } from '../../src/conformance/run-receiver.js';

/** Answers the n-th request (from 1) as `answer` says: a status and its Retry-After, if any. */
async function startReceiver(answer: (n: number) => { status: number; retryAfter?: string }) {
  let count = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      count += 1;
      const { status, retryAfter } = answer(count);
      response.writeHead(status, {
        'content-type': 'application/json',
        ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
      });
      response.end(status === 202 ? '{"ok":true}' : '{"error":"rate_limited"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    requests: () => count,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const SECRET = 'whsec_rate_limited_0123456789';

function runAgainst(url: string, extra: { maxRetryAfterMs?: number } = {}) {
  return runConformance({
    interface: 'B',
    target: url,
    identity: 'acme',
    secrets: [SECRET],
    selection: { only: ['B-ACCEPT-001'], skip: [], include: [] },
    explore: false,
    ...extra,
  });
}

describe('conformance run: a receiver that keeps answering 429', () => {
  it("stops waiting once the run's budget for 429s is spent, and sends no request again after that", async () => {
    const receiver = await startReceiver(() => ({ status: 429, retryAfter: '0' }));
    const dispatcher = createDispatcher();
    try {
      // Waits of 50, 100, 200 ms… (a Retry-After of 0 is waited at least a floor that doubles): 300 ms hold two.
      const session = new Session({
        interface: 'B',
        identity: 'acme',
        secrets: [SECRET],
        url: receiver.url,
        timeoutMs: 10_000,
        dispatcher,
        rateLimitedRunBudgetMs: 300,
      });
      const body = Buffer.from('{}');
      const first = await session.send({ body });
      expect(first.status).toBe(429);
      expect(first.rateLimitedRetries).toBe(2);
      expect(unhonoured429(first)).toMatch(/^the receiver kept answering 429: the run's 300 ms of waiting on 429s/);
      const second = await session.send({ body });
      expect(second.rateLimitedRetries).toBe(0);
      expect(unhonoured429(second)).toBe(unhonoured429(first));
      expect(receiver.requests()).toBe(4);
    } finally {
      await dispatcher.close();
      await receiver.close();
    }
  });

  it('does not wait out a Retry-After longer than it waits: the check is not judged, and says why', async () => {
    // The clock probe and the preflight are accepted; the check's request is not.
    const receiver = await startReceiver((n) => (n <= 2 ? { status: 202 } : { status: 429, retryAfter: '999999999' }));
    try {
      const report = await runAgainst(receiver.url, { maxRetryAfterMs: 1_000 });
      const check = report.checks.find((entry) => entry.id === 'B-ACCEPT-001');
      expect(check?.verdict).toBe('not-judged');
      expect(check?.actual).toBe(
        'the receiver answered 429 with Retry-After: 999999999, longer than the 1 s cai waits',
      );
      expect(receiver.requests()).toBe(3);
    } finally {
      await receiver.close();
    }
  });

  it('reports a Retry-After that is no number, and backs off instead', async () => {
    const receiver = await startReceiver((n) => (n === 3 ? { status: 429, retryAfter: 'soon<b>' } : { status: 202 }));
    try {
      const report = await runAgainst(receiver.url);
      const check = report.checks.find((entry) => entry.id === 'B-ACCEPT-001');
      expect(check?.verdict).toBe('passed');
      expect(check?.notes).toContain(
        'before the answer, a 429 with Retry-After: soon<b>, neither a number of seconds nor an HTTP-date (§7): cai backed off instead',
      );
    } finally {
      await receiver.close();
    }
  });
});
