import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { startMockProvider, type MockProviderOptions, type RunningMockProvider } from '../../../src/mock/provider.js';
import { parseScenario } from '../../../src/mock/conversation.js';
import { readMockLog } from '../../../src/mock/log.js';
import { LIVE_SECRET, post } from '../../helpers/mock-client.js';

const JOBS_SECRET = 'jobs-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'cai-mock-provider-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

let jobCount = 0;
function job(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  jobCount += 1;
  return {
    lead_id: `lead-${jobCount}`,
    event_id: `job_${process.pid}_${Date.now()}_${jobCount}`,
    branch_code: 'MAD-01',
    city: 'Madrid',
    contact: { name: 'Ana García', phone_e164: '+34600111222', email: 'ana@example.com', language: 'es-ES' },
    origin: {
      channel: 'landing_form',
      source: 'https://example.com/offer',
      campaign: 'autumn',
      captured_at: '2026-11-22T12:59:00+01:00',
    },
    brief: { intent: 'book_appointment', notes: 'Wants a first consultation, mornings' },
    callback_url: 'http://127.0.0.1:9/events',
    ...overrides,
  };
}

async function platform(): Promise<RunningMockPlatform> {
  const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET] });
  running.push(mock);
  return mock;
}

async function provider(options: Partial<MockProviderOptions> = {}): Promise<RunningMockProvider> {
  const mock = await startMockProvider({
    providerCode: 'acme',
    secrets: [JOBS_SECRET],
    callbackSecrets: [LIVE_SECRET],
    speed: 100_000,
    retry: { initialDelayMs: 5, maxDelayMs: 20, retryForMs: 5_000 },
    ...options,
  });
  running.push(mock);
  return mock;
}

const sendJob = (mock: RunningMockProvider, doc: unknown, options: Parameters<typeof post>[2] = {}) =>
  post(`${mock.url}/contact-jobs`, doc, {
    secret: JOBS_SECRET,
    provider: null,
    headers: { 'x-cai-source': 'platform-1' },
    ...options,
  });

describe('startMockProvider: jobs (§4.1)', () => {
  it('acknowledges a job with 202 {provider_job_id, assigned_number_e164}, stable per branch, and the same ack for a repeat', async () => {
    const events = await platform();
    const mock = await provider({ scenario: { kind: 'booked' } });
    const doc = job({ callback_url: events.url });
    const first = await sendJob(mock, doc);
    expect(first.status).toBe(202);
    const ack = first.json as { provider_job_id: string; assigned_number_e164: string };
    expect(ack.provider_job_id).toMatch(/^pj_[0-9a-f]{16}$/);
    expect(ack.assigned_number_e164).toMatch(/^\+447700900[0-9]{3}$/);
    const repeat = await sendJob(mock, doc);
    expect(repeat.json).toEqual(ack);
    const other = await sendJob(mock, job({ callback_url: events.url }));
    expect((other.json as typeof ack).assigned_number_e164).toBe(ack.assigned_number_e164);
    expect((other.json as typeof ack).provider_job_id).not.toBe(ack.provider_job_id);
    await mock.idle();
    // Two jobs, two conversations: the repeat started nothing.
    expect(new Set(mock.sent.map((e) => e.provider_job_id)).size).toBe(2);
  });

  it('takes the number from --catalog when the branch has one', async () => {
    const mock = await provider({
      catalog: [{ branch_code: 'MAD-01', name: 'Madrid Centro', number_e164: '+34910000001' }],
    });
    expect(((await sendJob(mock, job())).json as { assigned_number_e164: string }).assigned_number_e164).toBe(
      '+34910000001',
    );
  });

  it('answers 100 concurrent repeats of one event_id with one job', async () => {
    const mock = await provider({
      sendEvent: async () => ({ outcome: 'accepted', status: 202, attempts: 1, interrupted: false }),
    });
    const doc = job();
    const answers = await Promise.all(Array.from({ length: 100 }, () => sendJob(mock, doc)));
    expect(new Set(answers.map((a) => JSON.stringify(a.json))).size).toBe(1);
    expect(mock.records.filter((r) => r.verdict === 'accepted')).toHaveLength(1);
  });

  it('answers 401, 400, 413 and 404 like the platform mock', async () => {
    const mock = await provider({ sourceId: 'platform-1' });
    expect((await sendJob(mock, job(), { secret: 'wrong-secret-12345' })).json).toMatchObject({
      error: 'invalid_signature',
    });
    expect((await sendJob(mock, job(), { timestamp: Math.floor(Date.now() / 1000) - 400 })).json).toMatchObject({
      error: 'timestamp_outside_window',
    });
    expect((await sendJob(mock, job(), { headers: { 'x-cai-source': 'someone' } })).json).toMatchObject({
      error: 'unknown_source',
    });
    const missing = await sendJob(mock, job({ contact: { name: 'Ana' } }));
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toContain('phone_e164');
    expect((await sendJob(mock, undefined, { raw: '{"lead_id":' })).status).toBe(400);
    expect((await sendJob(mock, job({ brief: { notes: 'x'.repeat(270_000) } }))).status).toBe(413);
    expect((await post(`${mock.url}/other`, job(), { secret: JOBS_SECRET })).status).toBe(404);
  });

  it('reloads its acknowledgments from the same log on restart', async () => {
    const log = join(dir, 'jobs.ndjson');
    const quiet = async () => ({ outcome: 'accepted' as const, status: 202, attempts: 1, interrupted: false });
    const first = await provider({ logFile: log, sendEvent: quiet });
    const doc = job();
    const ack = (await sendJob(first, doc)).json;
    await first.close();
    const second = await provider({ logFile: log, sendEvent: quiet });
    expect((await sendJob(second, doc)).json).toEqual(ack);
    const records = (await readMockLog(log)).records;
    expect(records.map((r) => [r.interface, r.kind, r.verdict])).toEqual([
      ['A', 'job', 'accepted'],
      ['A', 'job', 'duplicate'],
    ]);
    expect(records[0]).toMatchObject({ branch_code: 'MAD-01', lead_id: doc.lead_id, provider_code: 'acme' });
  });
});

describe('mock provider driving whole conversations into mock platform', () => {
  const cases: [string, string[]][] = [
    [
      'booked',
      [
        'conversation.message',
        'conversation.message',
        'conversation.message',
        'conversation.message',
        'appointment.booked',
        'conversation.message',
      ],
    ],
    ['rescheduled', ['appointment.booked', 'appointment.rescheduled']],
    ['cancelled', ['appointment.booked', 'appointment.cancelled']],
    ['closed:no_answer', ['conversation.message', 'conversation.message', 'conversation.message', 'job.closed']],
    ['closed:opted_out', ['conversation.message', 'conversation.message', 'conversation.message', 'job.closed']],
  ];
  for (const [name, expected] of cases) {
    it(`plays "${name}" and the two mocks agree on every event`, async () => {
      const events = await platform();
      const mock = await provider({ scenario: parseScenario(name) });
      const doc = job({ callback_url: events.url });
      const ack = (await sendJob(mock, doc)).json as { provider_job_id: string; assigned_number_e164: string };
      await mock.idle();
      expect(mock.sent.every((e) => e.outcome === 'accepted' && e.status === 202)).toBe(true);
      const received = events.records.filter((r) => r.verdict === 'accepted');
      expect(received.map((r) => r.event_id)).toEqual(mock.sent.map((e) => e.event_id));
      const types = received.map((r) => r.event);
      if (name === 'booked') expect(types).toEqual(expected);
      else
        expect(types.filter((t) => t !== 'conversation.message')).toEqual(
          expected.filter((t) => t !== 'conversation.message'),
        );
      expect(types).toContain('conversation.message');
      for (const record of received) {
        const event = record.document as Record<string, unknown>;
        expect(event.lead_id).toBe(doc.lead_id);
        expect(record.provider_code).toBe('acme');
        if (event.event === 'conversation.message') {
          expect(event.provider_job_id).toBe(ack.provider_job_id);
          expect(event.from_number_e164).toBe(
            event.direction === 'outbound' ? ack.assigned_number_e164 : '+34600111222',
          );
        }
        if (event.event === 'job.closed') expect(event.outcome).toBe(name.slice('closed:'.length));
        if (String(event.event).startsWith('appointment.')) expect(event.branch_code).toBe('MAD-01');
      }
      const directions = received
        .filter((r) => r.event === 'conversation.message')
        .map((r) => (r.document as { direction: string }).direction);
      if (name !== 'closed:no_answer') expect(new Set(directions)).toEqual(new Set(['inbound', 'outbound']));
    });
  }

  it('chooses the ending from brief.intent when no scenario is given', async () => {
    const events = await platform();
    const mock = await provider();
    await sendJob(mock, job({ callback_url: events.url, brief: { intent: 'reschedule' } }));
    await sendJob(mock, job({ callback_url: events.url, brief: { intent: 'pricing_information' } }));
    await mock.idle();
    const endings = events.records
      .map((r) => r.document as Record<string, unknown>)
      .filter((e) => e.event !== 'conversation.message');
    expect(endings.map((e) => (e.event === 'job.closed' ? `closed:${String(e.outcome)}` : e.event)).sort()).toEqual(
      ['appointment.booked', 'appointment.rescheduled', 'closed:callback_later'].sort(),
    );
  });

  it("retries through the platform's injected failures with the toolkit's sender", async () => {
    const events = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], failFirst: 2 });
    running.push(events);
    const mock = await provider({ scenario: { kind: 'closed', outcome: 'not_interested' } });
    await sendJob(mock, job({ callback_url: events.url }));
    await mock.idle();
    expect(mock.sent.length).toBe(4);
    expect(mock.sent.every((e) => e.outcome === 'accepted' && e.attempts === 3)).toBe(true);
    expect(events.records.filter((r) => r.verdict === 'accepted')).toHaveLength(4);
  });
});

describe('provider faults (--break)', () => {
  async function brokenRun(fault: string) {
    const events = await platform();
    const mock = await provider({ faults: [fault], scenario: { kind: 'booked' } });
    const doc = job({ callback_url: events.url });
    const first = await sendJob(mock, doc);
    return { events, mock, doc, first };
  }

  it('no-dedupe: a repeat gets a new provider_job_id', async () => {
    const { mock, doc, first } = await brokenRun('no-dedupe');
    expect((await sendJob(mock, doc)).json).not.toEqual(first.json);
  });

  it('no-signature-check: an unsigned job is accepted', async () => {
    const mock = await provider({
      faults: ['no-signature-check'],
      sendEvent: async () => ({ outcome: 'accepted', attempts: 1, interrupted: false }),
    });
    expect((await sendJob(mock, job(), { secret: null })).status).toBe(202);
  });

  it('bad-ack: the number is not E.164', async () => {
    const { first } = await brokenRun('bad-ack');
    expect((first.json as { assigned_number_e164: string }).assigned_number_e164).not.toMatch(/^\+[1-9][0-9]{6,14}$/);
  });

  it('5xx-on-bad-json: 500 for a body that is not JSON', async () => {
    const mock = await provider({ faults: ['5xx-on-bad-json'] });
    expect((await sendJob(mock, undefined, { raw: '{oops' })).status).toBe(500);
  });

  it('callback faults are caught by the reference platform', async () => {
    const lead = await brokenRun('callback-lead-changed');
    await lead.mock.idle();
    expect(lead.events.records.every((r) => r.lead_id !== lead.doc.lead_id)).toBe(true);
    for (const [fault, reason] of [
      ['callback-wrong-secret', 'invalid_signature'],
      ['callback-wrong-provider', 'unknown_provider'],
      ['callback-invalid-event', 'invalid_document'],
    ] as const) {
      const run = await brokenRun(fault);
      await run.mock.idle();
      expect(run.mock.sent, fault).toHaveLength(1);
      expect(run.mock.sent[0]).toMatchObject({
        outcome: 'rejected',
        status: fault === 'callback-invalid-event' ? 400 : 401,
      });
      expect(run.events.records, reason).toHaveLength(0);
    }
  });
});

describe('startMockProvider: callbacks that fail are retried out loud', () => {
  it('reports each retry of an event whose callback_url refuses connections, then the failure', async () => {
    const retries: { event: string; attempt: number; reason: string }[] = [];
    const mock = await provider({
      retry: { initialDelayMs: 5, maxDelayMs: 10, maxAttempts: 3, retryForMs: 5_000 },
      onCallbackRetry: (retry) => retries.push({ event: retry.event, attempt: retry.attempt, reason: retry.reason }),
    });
    expect(
      (
        await post(`${mock.url}/contact-jobs`, job({ callback_url: 'http://127.0.0.1:9/events' }), {
          secret: JOBS_SECRET,
        })
      ).status,
    ).toBe(202);
    await mock.idle();
    expect(retries.map((retry) => retry.attempt)).toEqual([1, 2]);
    expect(retries[0]?.event).toBe('conversation.message');
    expect(retries[0]?.reason).toMatch(/refused|ECONNREFUSED|reach/);
    expect(mock.sent.at(-1)?.outcome).toBe('failed');
  });
});
