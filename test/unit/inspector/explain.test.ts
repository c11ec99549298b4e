/**
 * Why a request was refused, in the tool's words: the signature diagnosis of `cai verify` attached to 401s (a
 * re-serialised body, a timestamp in milliseconds, the clock skew, another credential's or the other direction's
 * secret), validation errors with their paths and spec sections for 400s. Real mocks, real requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'undici';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { startMockProvider } from '../../../src/mock/provider.js';
import { InspectorStore } from '../../../src/inspector/store.js';
import { explain, type InspectorSigning } from '../../../src/inspector/explain.js';
import { sign } from '../../../src/signing/sign.js';
import { sampleJob } from '../../../src/spec/sample.js';
import { LIVE_SECRET, TEST_SECRET, event, post } from '../../helpers/mock-client.js';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

const PLATFORM_SIGNING: InspectorSigning = {
  identity: 'provider',
  credentials: [
    { code: 'acme', space: 'live', secrets: [LIVE_SECRET] },
    { code: 'acme-test', space: 'test', secrets: [TEST_SECRET] },
  ],
};

async function platform(): Promise<{
  mock: RunningMockPlatform;
  store: InspectorStore;
  last: () => ReturnType<typeof explain>;
}> {
  const store = new InspectorStore();
  const mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    testProviderCode: 'acme-test',
    testSecrets: [TEST_SECRET],
    observe: store.observe,
  });
  running.push(mock);
  const last = () => explain(store.request(store.requests.next - 1)!, PLATFORM_SIGNING);
  return { mock, store, last };
}

const codes = (explanation: ReturnType<typeof explain>) =>
  explanation.signature?.diagnoses.map((diagnosis) => diagnosis.code);

describe('explain: 401s get the signature diagnosis', () => {
  it('names a body signed in another form than the one sent (re-serialised, §5.2)', async () => {
    const { mock, last } = await platform();
    const document = event();
    const pretty = JSON.stringify(document, null, 2);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answer = await post(mock.url, undefined, {
      raw: pretty,
      headers: {
        'x-cai-signature': sign(LIVE_SECRET, timestamp, JSON.stringify(document)),
        'x-cai-timestamp': timestamp,
      },
    });
    expect(answer.status).toBe(401);
    const explanation = last();
    expect(explanation).toMatchObject({ status: 401, reason: 'invalid_signature' });
    expect(explanation.signature).toMatchObject({
      reason: 'signature_mismatch',
      timestamp,
      skewSeconds: expect.any(Number),
      windowSeconds: 300,
      checkedWith: 'the live credential (acme)',
      body: { bytes: Buffer.byteLength(pretty) },
    });
    expect(codes(explanation)).toEqual(['body_reserialised']);
    expect(explanation.signature?.diagnoses[0]?.message).toContain(
      'the sender signed the minified form of the JSON, not the bytes it sent',
    );
  });

  it('names a timestamp in milliseconds, and says the body was not compared (it was never read)', async () => {
    const { mock, last } = await platform();
    expect((await post(mock.url, event(), { timestamp: Date.now() })).status).toBe(401);
    const signature = last().signature;
    expect(signature?.reason).toBe('malformed_timestamp');
    expect(codes(last())).toEqual(['timestamp_in_milliseconds']);
    expect(signature?.note).toBe(
      'the body was not read: the headers alone decided the answer, so the signature was not compared with it',
    );
    expect(signature?.body).toBeUndefined();
  });

  it('gives the skew of a stale timestamp, in seconds and as a date', async () => {
    const { mock, last } = await platform();
    const timestamp = Math.floor(Date.now() / 1000) - 3600;
    expect((await post(mock.url, event(), { timestamp })).status).toBe(401);
    const signature = last().signature;
    expect(signature).toMatchObject({
      reason: 'timestamp_too_old',
      timestamp: String(timestamp),
      timestampDate: new Date(timestamp * 1000).toISOString(),
    });
    expect(signature?.skewSeconds).toBeGreaterThanOrEqual(3600);
    expect(codes(last())).toEqual(['clock_skew']);
    expect(signature?.diagnoses[0]?.message).toMatch(/^the timestamp is 36[0-9]{2} s in the past/);
  });

  it("recognises the other credential's secret (test signed, sent as live) and says nothing of a secret's value", async () => {
    const { mock, last } = await platform();
    expect((await post(mock.url, event(), { secret: TEST_SECRET })).status).toBe(401);
    const explanation = last();
    expect(explanation.signature?.diagnoses).toEqual([
      {
        code: 'other_direction_secret',
        message:
          'the request was signed with the secret of the test credential (acme-test); each credential has its own secret (§5.6, §1)',
      },
    ]);
    expect((await post(mock.url, event(), { secret: 'some-other-secret' })).status).toBe(401);
    expect(codes(last())).toEqual(['signature_over_other_content']);
    for (const text of [JSON.stringify(explanation), JSON.stringify(last())]) {
      expect(text).not.toContain(LIVE_SECRET);
      expect(text).not.toContain(TEST_SECRET);
    }
  });

  it("recognises a job signed with the provider mock's events secret (the other direction, §5.1)", async () => {
    const store = new InspectorStore();
    const mock = await startMockProvider({
      providerCode: 'acme',
      secrets: ['jobs-secret-0123456789'],
      callbackSecrets: ['events-secret-0123456789'],
      observe: store.observe,
      sendEvent: async () => ({ outcome: 'accepted', status: 202, attempts: 1, interrupted: false }),
    });
    running.push(mock);
    const body = JSON.stringify(sampleJob());
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answer = await httpRequest(`${mock.url}/contact-jobs`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-cai-source': 'platform',
        'x-cai-timestamp': timestamp,
        'x-cai-signature': sign('events-secret-0123456789', timestamp, body),
      },
    });
    await answer.body.text();
    expect(answer.statusCode).toBe(401);
    const explanation = explain(store.request(1)!, {
      identity: 'source',
      credentials: [{ code: 'acme', space: 'live', secrets: ['jobs-secret-0123456789'] }],
      otherSecrets: ['events-secret-0123456789'],
    });
    expect(codes(explanation)).toEqual(['other_direction_secret']);
    expect(explanation.signature?.diagnoses[0]?.message).toBe(
      "the request was signed with the other direction's secret; each direction has its own (§5.1)",
    );
  });
});

describe('explain: 400s get their validation errors with paths and sections', () => {
  it('lists the schema errors of an invalid event with the sections that state each rule', async () => {
    const { mock, last } = await platform();
    expect(
      (await post(mock.url, event({ direction: 'sideways', occurred_at: 'yesterday', event_id: 'e'.repeat(121) })))
        .status,
    ).toBe(400);
    const errors = last().validation?.errors.map((issue) => [issue.path, issue.code, issue.sections]);
    expect(errors).toEqual(
      expect.arrayContaining([
        ['direction', 'enum', ['§2.4', '§2.10']],
        ['occurred_at', 'format', ['§2.4', '§2.1']],
        ['event_id', 'too_long', ['§2.4', '§6.1', '§8']],
      ]),
    );
    expect(last().signature).toBeUndefined();
  });

  it('gives a body that is not JSON its position, under §2', async () => {
    const { mock, last } = await platform();
    expect((await post(mock.url, undefined, { raw: '{"event": "conversation.message",}' })).status).toBe(400);
    expect(last().validation?.errors).toMatchObject([{ path: '', code: 'not_json', sections: ['§2'] }]);
    expect(last().validation?.errors[0]?.message).toMatch(/line 1, column/);
  });

  it('gives an accepted event the warnings `cai validate --strict` would (unknown fields, §9.2)', async () => {
    const { mock, last } = await platform();
    expect((await post(mock.url, event({ colour: 'blue' }))).status).toBe(202);
    expect(last().validation).toMatchObject({
      errors: [],
      warnings: [{ path: 'colour', code: 'unknown_field', sections: ['§2.4', '§9.2'] }],
    });
  });
});
