/**
 * The inspector's data layer fed by a real platform mock (its observer hook): what it keeps of each request, the
 * list newest first with its filters and pages, and its bounds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { InspectorStore } from '../../../src/inspector/store.js';
import { headerOf } from '../../../src/inspector/capture.js';
import { LIVE_SECRET, TEST_SECRET, event, post } from '../../helpers/mock-client.js';

const running: RunningMockPlatform[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

async function start(
  store: InspectorStore,
  extra: Parameters<typeof startMockPlatform>[0] extends infer O ? Partial<O> : never = {},
) {
  const mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    testProviderCode: 'acme-test',
    testSecrets: [TEST_SECRET],
    observe: store.observe,
    ...extra,
  });
  running.push(mock);
  return mock;
}

describe('InspectorStore fed by the platform mock', () => {
  it('keeps each request answered: headers and body as received, the answer, the ids; newest first', async () => {
    const store = new InspectorStore();
    const mock = await start(store);
    const first = event({ lead_id: 'lead-a' });
    expect((await post(mock.url, first)).status).toBe(202);
    expect((await post(mock.url, first)).status).toBe(202);
    const badSignature = event({ lead_id: 'lead-b' });
    expect((await post(mock.url, badSignature, { secret: 'not-the-secret' })).status).toBe(401);
    expect((await post(mock.url, event({ direction: 'sideways' }))).status).toBe(400);
    expect(
      (await post(mock.url, event({ lead_id: 'lead-a' }), { provider: 'acme-test', secret: TEST_SECRET })).status,
    ).toBe(202);

    const page = store.requestPage({}, {});
    expect(page.items.map((row) => [row.id, row.status, row.verdict, row.space])).toEqual([
      [5, 202, 'accepted', 'test'],
      [4, 400, 'rejected', 'live'],
      [3, 401, 'rejected', 'live'],
      [2, 202, 'duplicate', 'live'],
      [1, 202, 'accepted', 'live'],
    ]);
    expect(page).toMatchObject({ matched: 5, kept: 5, evicted: 0, next: 6, more: false });
    // Refused before the mock parsed it, a request still shows what its body says it is.
    expect(page.items[2]).toMatchObject({
      reason: 'invalid_signature',
      event: 'conversation.message',
      event_id: badSignature.event_id,
      lead_id: 'lead-b',
    });

    const kept = store.request(1);
    expect(kept?.body?.toString('utf8')).toBe(JSON.stringify(first));
    expect(kept?.bodyBytes).toBe(Buffer.byteLength(JSON.stringify(first)));
    expect(kept?.method).toBe('POST');
    expect(kept?.target).toBe('/events');
    expect(kept && headerOf(kept, 'X-CAI-Provider')).toBe('acme');
    expect(kept?.reply.status).toBe(202);
    expect(kept?.reply.body?.toString()).toBe('{"ok":true}');
    expect(store.request(2)?.reply.body?.toString()).toBe('{"ok":true,"duplicate":true}');
  });

  it('filters by verdict, type, lead, space and text (ids any case, body bytes exactly), and pages', async () => {
    const store = new InspectorStore();
    const mock = await start(store);
    for (let n = 0; n < 6; n++)
      await post(
        mock.url,
        event({ lead_id: n % 2 ? 'lead-odd' : 'lead-even', text: n === 3 ? 'Mañana a las 10' : 'hello' }),
      );
    await post(mock.url, event({ event: 'job.closed', outcome: 'no_answer', attempts: 3, lead_id: 'lead-odd' }));
    await post(mock.url, event(), { secret: 'wrong' });
    const ids = (filter: Parameters<InspectorStore['requestPage']>[0], page = {}) =>
      store.requestPage(filter, page).items.map((row) => row.id);
    expect(ids({ verdict: 'rejected' })).toEqual([8]);
    expect(ids({ type: 'job.closed' })).toEqual([7]);
    expect(ids({ lead: 'lead-odd' })).toEqual([7, 6, 4, 2]);
    expect(ids({ lead: 'lead-odd', verdict: 'accepted', type: 'conversation.message' })).toEqual([6, 4, 2]);
    expect(ids({ q: 'LEAD-ODD' })).toEqual([7, 6, 4, 2]);
    expect(ids({ q: 'Mañana' })).toEqual([4]);
    expect(ids({ q: 'mañana' })).toEqual([]);
    expect(ids({ q: 'invalid_signature' })).toEqual([8]);
    expect(ids({ space: 'test' })).toEqual([]);
    expect(ids({}, { limit: 3 })).toEqual([8, 7, 6]);
    expect(store.requestPage({}, { limit: 3 }).more).toBe(true);
    expect(ids({}, { before: 6, limit: 3 })).toEqual([5, 4, 3]);
    expect(ids({}, { after: 6 })).toEqual([8, 7]);
    expect(ids({ lead: 'lead-even' }, { before: 5 })).toEqual([3, 1]);
    expect(store.requestPage({ lead: 'lead-even' }, { before: 5 }).matched).toBe(3);
  });

  it('keeps the last N requests and a body up to its bound, and says so', async () => {
    const store = new InspectorStore({ maxRequests: 3, maxBodyBytes: 64 });
    const mock = await start(store);
    for (let n = 0; n < 5; n++) await post(mock.url, event({ text: 'x'.repeat(200) }));
    const page = store.requestPage({}, {});
    expect(page.items.map((row) => row.id)).toEqual([5, 4, 3]);
    expect(page).toMatchObject({ kept: 3, evicted: 2, next: 6 });
    expect(store.request(1)).toBeUndefined();
    const kept = store.request(5);
    expect(kept?.body?.length).toBe(64);
    expect(kept?.bodyBytes).toBeGreaterThan(200);
    expect(page.items[0]?.body_bytes).toBe(kept?.bodyBytes);
  });

  it('feeds listeners only while subscribed; an observer that throws does not change the answer', async () => {
    const store = new InspectorStore();
    const seen: number[] = [];
    const mock = await start(store);
    const off = store.subscribe((update) => {
      if (update.kind === 'request') seen.push(update.summary.id);
      throw new Error('a listener that fails');
    });
    await post(mock.url, event());
    off();
    await post(mock.url, event());
    expect(seen).toEqual([1]);

    const throwing = await startMockPlatform({
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      observe: () => {
        throw new Error('observer bug');
      },
    });
    running.push(throwing);
    const answer = await post(throwing.url, event());
    expect(answer.status).toBe(202);
    expect(answer.json).toEqual({ ok: true });
  });
});
