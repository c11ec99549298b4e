import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type MockPlatformOptions, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { PLATFORM_FAULTS, RECEIVER_FAULTS } from '../../../src/mock/faults.js';
import { LIVE_SECRET, event, post } from '../../helpers/mock-client.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const running: RunningMockPlatform[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

async function broken(fault: string, options: Partial<MockPlatformOptions> = {}): Promise<RunningMockPlatform> {
  const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], faults: [fault], ...options });
  running.push(mock);
  return mock;
}

async function reference(): Promise<RunningMockPlatform> {
  const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET] });
  running.push(mock);
  return mock;
}

/** Each deliberate fault shows exactly the defect it names, where the reference behaves. */
describe('platform faults (--break)', () => {
  it('lists every fault of the brief', () => {
    expect(Object.keys(PLATFORM_FAULTS).sort()).toEqual(
      [
        'no-dedupe',
        'racy-dedupe',
        'dedupe-before-auth',
        'reserialising-verifier',
        'no-window',
        'past-only-window',
        'no-size-limit',
        'reject-unknown-fields',
        'reject-unknown-lead',
        'lax-schema',
        '5xx-on-bad-json',
        'any-provider',
        'duplicate-without-body',
        'no-retry-after',
        'accepted-200',
        'event-id-utf16-length',
        'size-in-characters',
        'records-before-validation',
        'size-declared-only',
        'integer-strings',
        ...Object.keys(RECEIVER_FAULTS),
      ].sort(),
    );
  });

  it('no-dedupe: a repeat is accepted as new', async () => {
    const mock = await broken('no-dedupe');
    const doc = event();
    expect((await post(mock.url, doc)).json).toEqual({ ok: true });
    expect((await post(mock.url, doc)).json).toEqual({ ok: true });
  });

  it('racy-dedupe: sequential repeats are caught, concurrent ones are not', async () => {
    const mock = await broken('racy-dedupe', { logFile: join(dir, 'racy.ndjson') });
    const doc = event();
    expect((await post(mock.url, doc)).json).toEqual({ ok: true });
    expect((await post(mock.url, doc)).json).toEqual({ ok: true, duplicate: true });
    const burst = event();
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(mock.url, burst)));
    expect(answers.filter((a) => JSON.stringify(a.json) === '{"ok":true}').length).toBeGreaterThan(1);
  });

  it('dedupe-before-auth: an unauthenticated repeat is answered as a duplicate', async () => {
    const mock = await broken('dedupe-before-auth');
    const doc = event();
    expect((await post(mock.url, doc)).status).toBe(202);
    expect((await post(mock.url, doc, { secret: 'forged-secret-xyz' })).json).toEqual({ ok: true, duplicate: true });
  });

  it('reserialising-verifier: a body signed exactly as sent, with spacing, is rejected', async () => {
    const mock = await broken('reserialising-verifier');
    const raw = JSON.stringify(event(), null, 2);
    expect((await post(mock.url, undefined, { raw })).status).toBe(401);
    expect((await post(mock.url, event())).status).toBe(202);
  });

  it('no-window and past-only-window: stale or future timestamps get through', async () => {
    const now = Math.floor(Date.now() / 1000);
    const none = await broken('no-window');
    expect((await post(none.url, event(), { timestamp: now - 3600 })).status).toBe(202);
    const pastOnly = await broken('past-only-window');
    expect((await post(pastOnly.url, event(), { timestamp: now - 3600 })).status).toBe(401);
    expect((await post(pastOnly.url, event(), { timestamp: now + 3600 })).status).toBe(202);
  });

  it('no-size-limit: a body over 256 KB is accepted', async () => {
    const mock = await broken('no-size-limit');
    expect((await post(mock.url, event({ text: 'a'.repeat(300_000) }))).status).toBe(202);
  });

  it('reject-unknown-fields and reject-unknown-lead: what §9.2 and §6.3 allow is refused', async () => {
    const fields = await broken('reject-unknown-fields');
    expect((await post(fields.url, event({ sentiment: 'positive' }))).status).toBe(400);
    const leads = await broken('reject-unknown-lead', { knownLeads: ['lead-1001'] });
    expect((await post(leads.url, event())).status).toBe(202);
    expect((await post(leads.url, event({ lead_id: 'lead-new' }))).status).toBe(400);
  });

  it('lax-schema: an invalid event is accepted', async () => {
    const mock = await broken('lax-schema');
    expect((await post(mock.url, { event: 'whatever', event_id: 'e1', direction: 'sideways' })).status).toBe(202);
  });

  it('5xx-on-bad-json: a body that is not JSON gets 500', async () => {
    const mock = await broken('5xx-on-bad-json');
    expect((await post(mock.url, undefined, { raw: '{not json' })).status).toBe(500);
  });

  it('any-provider: an unknown X-CAI-Provider is accepted', async () => {
    const mock = await broken('any-provider');
    expect((await post(mock.url, event(), { provider: 'someone-else' })).status).toBe(202);
  });

  it('duplicate-without-body: a repeat gets an empty 202', async () => {
    const mock = await broken('duplicate-without-body');
    const doc = event();
    await post(mock.url, doc);
    const repeat = await post(mock.url, doc);
    expect(repeat.status).toBe(202);
    expect(repeat.text).toBe('');
  });

  it('no-retry-after: 429 without the header', async () => {
    const mock = await broken('no-retry-after', { rateLimit: 0.1 });
    await post(mock.url, event());
    const limited = await post(mock.url, event());
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeUndefined();
  });

  it('accepted-200: an accepted event is answered 200, a repeat still 202 with the §2.13 body', async () => {
    const mock = await broken('accepted-200');
    const doc = event();
    expect((await post(mock.url, doc)).status).toBe(200);
    expect(await post(mock.url, doc)).toMatchObject({ status: 202, json: { ok: true, duplicate: true } });
  });

  it('event-id-utf16-length: 120 characters outside the BMP are refused as too long', async () => {
    const id = '😀'.repeat(120);
    expect((await post((await broken('event-id-utf16-length')).url, event({ event_id: id }))).status).toBe(400);
    expect((await post((await reference()).url, event({ event_id: id }))).status).toBe(202);
  });

  it('size-in-characters: 262 145 bytes of two-byte text pass, 262 145 ASCII bytes do not', async () => {
    const mock = await broken('size-in-characters');
    const base = Buffer.byteLength(JSON.stringify(event({ text: '' })));
    const twoByte = 'é'.repeat(Math.floor((262_145 - base) / 2)) + 'a'.repeat((262_145 - base) % 2);
    expect(Buffer.byteLength(JSON.stringify(event({ text: twoByte })))).toBe(262_145);
    expect((await post(mock.url, event({ text: twoByte }))).status).toBe(202);
    expect((await post(mock.url, event({ text: 'a'.repeat(262_145 - base) }))).status).toBe(413);
    expect((await post((await reference()).url, event({ text: twoByte }))).status).toBe(413);
  });

  it('the receiver faults it shares with the provider mock: identifiers, formats, the signed timestamp, the wire', async () => {
    const repeatAnswer = async (fault: string, first: string, second: string) => {
      const mock = await broken(fault);
      await post(mock.url, event({ event_id: first }));
      return (await post(mock.url, event({ event_id: second }))).json;
    };
    const id = `evt_${Date.now()}_mixed`;
    expect(await repeatAnswer('dedupe-case-insensitive', id, id.toUpperCase())).toEqual({ ok: true, duplicate: true });
    expect(await repeatAnswer('dedupe-normalises-unicode', `${id}-caf\u00e9`, `${id}-cafe\u0301`)).toEqual({
      ok: true,
      duplicate: true,
    });
    expect(await repeatAnswer('dedupe-trims-event-id', id, `${id} `)).toEqual({ ok: true, duplicate: true });

    expect(
      (
        await post(
          (
            await broken('date-time-without-fraction')
          ).url,
          event({ occurred_at: '2026-11-22T13:00:00.123456+01:00' }),
        )
      ).status,
    ).toBe(400);
    expect(
      (await post((await broken('date-time-numeric-offset-only')).url, event({ occurred_at: '2026-11-22T12:00:00Z' })))
        .status,
    ).toBe(400);
    expect(
      (
        await post(
          (
            await broken('date-time-positive-offset-only')
          ).url,
          event({ occurred_at: '2026-11-22T07:00:00-05:00' }),
        )
      ).status,
    ).toBe(400);
    expect(
      (await post((await broken('e164-max-14-digits')).url, event({ from_number_e164: '+493012345678901' }))).status,
    ).toBe(400);
    expect((await post((await broken('e164-min-10-digits')).url, event({ from_number_e164: '+6834002' }))).status).toBe(
      400,
    );

    const now = Math.floor(Date.now() / 1000);
    const padded = (url: string) => post(url, event(), { timestamp: `0${now}`, signAs: String(now) });
    expect((await padded((await broken('signs-parsed-timestamp')).url)).status).toBe(202);
    expect((await padded((await reference()).url)).status).toBe(401);

    const charset = { headers: { 'content-type': 'application/json; charset=utf-8' } };
    expect((await post((await broken('strict-content-type')).url, event(), charset)).status).toBe(415);
    expect((await post((await reference()).url, event(), charset)).status).toBe(202);
    expect((await post((await broken('requires-content-length')).url, event(), { chunked: true })).status).toBe(411);
    expect((await post((await reference()).url, event(), { chunked: true })).status).toBe(202);
  });

  it('the reference itself rejects what the faults accept', async () => {
    const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET] });
    running.push(mock);
    const raw = JSON.stringify(event(), null, 2);
    expect((await post(mock.url, undefined, { raw })).status).toBe(202);
    expect((await post(mock.url, event({ sentiment: 'positive' }))).status).toBe(202);
    expect((await post(mock.url, undefined, { raw: '{not json' })).status).toBe(400);
  });
});
