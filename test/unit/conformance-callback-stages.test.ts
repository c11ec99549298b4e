/**
 * The callback listener of an Interface A run, driven by a provider written here (undici posting to the job's
 * callback_url): each job has a stage of its own, scripted on its first event, over once the conversation has
 * ended and nothing more came for --observe; the events are the sender checks' evidence.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/conformance/evidence.js';
import { startCallbackListener, type CallbackHarness } from '../../src/conformance/probe/callbacks.js';

const running: CallbackHarness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

async function listener(): Promise<CallbackHarness> {
  const harness = await startCallbackListener({
    host: '127.0.0.1',
    port: 0,
    secrets: ['events-secret'],
    providerCode: 'acme',
    waitMs: 5_000,
    observeMs: 150,
  });
  running.push(harness);
  return harness;
}

async function post(url: string, document: unknown): Promise<number> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(document),
  });
  await response.body.dump();
  return response.statusCode;
}

/** The answer a provider gives a job: 202 with an acknowledgment (what the stage records as the job's answer). */
const accepted = (): Exchange => ({
  request: { url: 'x', headers: {}, body: Buffer.alloc(0), recipe: { body: Buffer.alloc(0) }, sentAtMs: 0 },
  status: 202,
  headers: {},
  body: Buffer.from('{}'),
  latencyMs: 1,
  answeredAtMs: 1,
  rateLimitedRetries: 0,
});

describe('the callback stages', () => {
  it('answers the first event of a 503 job 503 and its redelivery 202; the others 202 at once; ends after the conversation and --observe', async () => {
    const harness = await listener();
    const statuses: number[] = [];
    const stage = await harness.gather({
      name: 'answered-503',
      scenario: 'callback-503',
      build: (callbackUrl) => ({ event_id: 'job-1', lead_id: 'lead-1', callback_url: callbackUrl }),
      send: async (doc) => {
        // The provider under test: three events, the first retried once.
        setTimeout(async () => {
          const url = String(doc.callback_url);
          statuses.push(await post(url, { event: 'conversation.message', event_id: 'e-1' }));
          statuses.push(await post(url, { event: 'conversation.message', event_id: 'e-1' }));
          statuses.push(await post(url, { event: 'conversation.message', event_id: 'e-2' }));
          statuses.push(await post(url, { event: 'job.closed', event_id: 'e-3' }));
        }, 10);
        return accepted();
      },
      signal: new AbortController().signal,
    });
    expect(statuses).toEqual([503, 202, 202, 202]);
    expect(stage.record.attempts.map((attempt) => attempt.key)).toEqual(['id:e-1', 'id:e-1', 'id:e-2', 'id:e-3']);
    expect(stage.record.interrupted).toBeUndefined();
    const evidence = harness.evidence([stage]);
    expect(evidence).toMatchObject({ interface: 'B', identity: 'acme', secrets: ['events-secret'], observeMs: 150 });
    // The job's callback_url carries a query, part of its address (RFC 3986 §3.4): the events must come to both.
    const target = new URL(stage.record.targetUrl);
    expect(target.search).toMatch(/^\?job=[0-9a-f]+$/);
    expect(evidence.records[0]?.expectedPath).toBe(`${target.pathname}${target.search}`);
  });

  it('answers an event over the §8 limit 413 as the platform would, whatever the script, and records it by its size', async () => {
    const harness = await listener();
    const statuses: number[] = [];
    const stage = await harness.gather({
      name: 'callbacks',
      scenario: 'callbacks',
      build: (callbackUrl) => ({ event_id: 'job-1', lead_id: 'lead-1', callback_url: callbackUrl }),
      send: async (doc) => {
        setTimeout(async () => {
          const url = String(doc.callback_url);
          const large = { event: 'conversation.message', event_id: 'e-big', text: 'x'.repeat(300_000) };
          statuses.push(await post(url, large));
          statuses.push(await post(url, { event: 'job.closed', event_id: 'e-2', text: 'x'.repeat(262_000) }));
        }, 10);
        return accepted();
      },
      signal: new AbortController().signal,
    });
    expect(statuses).toEqual([413, 202]);
    expect(stage.record.attempts.map((attempt) => attempt.bodyBytes > 262_144)).toEqual([true, false]);
  });

  it('waits no longer than --callback-wait for a provider that never calls back, and says it was not interrupted', async () => {
    const harness = await startCallbackListener({
      host: '127.0.0.1',
      port: 0,
      secrets: ['s'],
      providerCode: 'acme',
      waitMs: 300,
      observeMs: 100,
    });
    running.push(harness);
    const stage = await harness.gather({
      name: 'callbacks',
      scenario: 'callbacks',
      build: (url) => ({ event_id: 'j', lead_id: 'l', callback_url: url }),
      send: async () => accepted(),
      signal: new AbortController().signal,
    });
    expect(stage.record.attempts).toEqual([]);
    expect(stage.record.interrupted).toBeUndefined();
    expect(stage.waitedMs).toBeGreaterThanOrEqual(300);
  });

  it('stops at once when the run is interrupted, and says so', async () => {
    const harness = await listener();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const stage = await harness.gather({
      name: 'callbacks',
      scenario: 'callbacks',
      build: (url) => ({ event_id: 'j', lead_id: 'l', callback_url: url }),
      send: async () => accepted(),
      signal: stop.signal,
    });
    expect(stage.record.interrupted).toBe(true);
  });
});
