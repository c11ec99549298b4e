import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'undici';
import {
  startMockPlatform,
  type MockPlatformOptions,
  type MockRequestEntry,
  type RunningMockPlatform,
} from '../../../src/mock/platform.js';
import { readMockLog } from '../../../src/mock/log.js';
import { sign } from '../../../src/signing/sign.js';
import { LIVE_SECRET, OLD_SECRET, TEST_SECRET, event, post } from '../../helpers/mock-client.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-platform-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: RunningMockPlatform[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((mock) => mock.close()));
});

let logCount = 0;
function logPath(): string {
  logCount += 1;
  return join(dir, `events-${logCount}.ndjson`);
}

async function start(
  options: Partial<MockPlatformOptions> = {},
): Promise<RunningMockPlatform & { entries: MockRequestEntry[] }> {
  const entries: MockRequestEntry[] = [];
  const mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    onRequest: (entry) => entries.push(entry),
    ...options,
  });
  running.push(mock);
  return Object.assign(mock, { entries });
}

describe('startMockPlatform: group commit of the log (one synced write for the records of concurrent requests)', () => {
  it('answers each of many concurrent events 202 only once its own record is in the file', async () => {
    const log = logPath();
    const mock = await start({ logFile: log });
    const docs = Array.from({ length: 60 }, () => event());
    const answers = await Promise.all(
      docs.map(async (doc) => {
        const answer = await post(mock.url, doc);
        // Read at the moment this answer arrived: its record must already be written (synced, O_DSYNC).
        return { answer, onDisk: readFileSync(log, 'utf8').includes(`"event_id":"${String(doc.event_id)}"`) };
      }),
    );
    expect(answers.map(({ answer }) => answer.status)).toEqual(docs.map(() => 202));
    expect(answers.every(({ onDisk }) => onDisk)).toBe(true);
    const records = (await readMockLog(log)).records;
    expect(records.map((record) => record.event_id).sort()).toEqual(docs.map((doc) => String(doc.event_id)).sort());
  });
});

describe('startMockPlatform: the status paths, in the documented order', () => {
  it('accepts a signed event with 202, logs it before answering, and answers a repeat with the §2.13 body', async () => {
    const log = logPath();
    const mock = await start({ logFile: log });
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/events$/);
    const doc = event();
    const first = await post(mock.url, doc);
    expect(first.status).toBe(202);
    expect(first.json).toEqual({ ok: true });
    // Durable before the answer: the record is in the file already, without closing the mock.
    const onDisk = (await readMockLog(log)).records;
    expect(onDisk).toHaveLength(1);
    expect(onDisk[0]).toMatchObject({
      v: 1,
      space: 'live',
      interface: 'B',
      kind: 'event',
      status: 202,
      verdict: 'accepted',
      provider_code: 'acme',
      event_id: doc.event_id,
      event: 'conversation.message',
      lead_id: 'lead-1001',
      document: doc,
    });
    expect(onDisk[0]?.headers['x-cai-signature']).toMatch(/^sha256=/);

    const repeat = await post(mock.url, doc);
    expect(repeat.status).toBe(202);
    expect(repeat.json).toEqual({ ok: true, duplicate: true });
    expect(mock.entries.map((e) => e.verdict)).toEqual(['accepted', 'duplicate']);
  });

  it('answers 401 for every authentication failure, with a JSON body naming it', async () => {
    const mock = await start();
    // Relative to the moment of each request, with slack for a slow machine (no timing assertions).
    const at = (offset: number) => Math.floor(Date.now() / 1000) + offset;
    const cases: [string, Awaited<ReturnType<typeof post>>][] = [
      ['missing_signature', await post(mock.url, event(), { secret: null })],
      ['invalid_signature', await post(mock.url, event(), { secret: 'wrong-secret-123456' })],
      ['timestamp_outside_window', await post(mock.url, event(), { timestamp: at(-310) })],
      ['timestamp_outside_window', await post(mock.url, event(), { timestamp: at(310) })],
      ['missing_signature', await post(mock.url, event(), { headers: { 'x-cai-timestamp': '' } })],
      ['invalid_signature', await post(mock.url, event(), { timestamp: '12.5' })],
      ['unknown_provider', await post(mock.url, event(), { provider: 'other' })],
      ['unknown_provider', await post(mock.url, event(), { provider: null })],
    ];
    for (const [code, answer] of cases) {
      expect(answer.status, code).toBe(401);
      expect(answer.json).toMatchObject({ ok: false, error: code });
    }
    expect(mock.records).toHaveLength(0);
  });

  it('accepts a timestamp just inside the ±300 s window', async () => {
    const mock = await start();
    const at = (offset: number) => Math.floor(Date.now() / 1000) + offset;
    expect((await post(mock.url, event(), { timestamp: at(-290) })).status).toBe(202);
    expect((await post(mock.url, event(), { timestamp: at(290) })).status).toBe(202);
  });

  it('never answers "duplicate" before authentication: an unauthenticated repeat gets 401', async () => {
    const mock = await start();
    const doc = event();
    expect((await post(mock.url, doc)).status).toBe(202);
    const forged = await post(mock.url, doc, { secret: 'attacker-secret-1' });
    expect(forged.status).toBe(401);
    expect(forged.json).toMatchObject({ error: 'invalid_signature' });
  });

  it('answers 400 naming the problems for bad JSON and for schema violations', async () => {
    const mock = await start();
    const badJson = await post(mock.url, undefined, { raw: '{"event": "conversation.message",\n "event_id": }' });
    expect(badJson.status).toBe(400);
    expect(badJson.json).toMatchObject({ ok: false, error: 'invalid_json' });
    expect((badJson.json as { errors: unknown[] }).errors.length).toBeGreaterThan(0);

    const badEnum = await post(mock.url, event({ direction: 'sideways' }));
    expect(badEnum.status).toBe(400);
    expect(badEnum.json).toMatchObject({ ok: false, error: 'invalid_document' });
    expect(JSON.stringify(badEnum.json)).toContain('direction');

    const notObject = await post(mock.url, [1, 2, 3]);
    expect(notObject.status).toBe(400);
    const longId = await post(mock.url, event({ event_id: 'x'.repeat(121) }));
    expect(longId.status).toBe(400);

    // §2: UTF-8 only. "José" in Latin-1, correctly signed: refused, not stored with a replacement character.
    const latin1 = Buffer.concat([
      Buffer.from(JSON.stringify(event()).slice(0, -1) + ',"text":"Jos'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const notUtf8 = await post(mock.url, undefined, { raw: latin1 });
    expect(notUtf8.status).toBe(400);
    expect(JSON.stringify(notUtf8.json)).toContain('UTF-8');
  });

  it('accepts an event for an unknown lead and marks it for reconciliation (§6.3)', async () => {
    const log = logPath();
    const mock = await start({ logFile: log, knownLeads: ['lead-1001'] });
    expect((await post(mock.url, event({ lead_id: 'lead-1001' }))).status).toBe(202);
    expect((await post(mock.url, event({ lead_id: 'lead-unknown' }))).status).toBe(202);
    const records = (await readMockLog(log)).records;
    expect(records.map((r) => r.lead_known)).toEqual([true, false]);
    mock.addKnownLead('lead-later');
    expect((await post(mock.url, event({ lead_id: 'lead-later' }))).status).toBe(202);
    expect(mock.records[2]?.lead_known).toBe(true);
  });

  it('answers 413 from Content-Length alone, without waiting for the rest of the body', async () => {
    const mock = await start();
    const { port } = new URL(mock.url);
    // Only the headers and a few bytes are sent; the answer must come anyway.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-CAI-Provider: acme\r\nContent-Length: 262145\r\n\r\n{"event":`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"error":"payload_too_large"');
  });

  it('answers 413 to a chunked body that grows over 262144 bytes, and accepts exactly 262144', async () => {
    const mock = await start();
    const doc = event();
    const base = JSON.stringify({ ...doc, text: '' });
    const padTo = (size: number) => JSON.stringify({ ...doc, text: 'a'.repeat(size - base.length) });
    const exact = padTo(262144);
    expect(Buffer.byteLength(exact)).toBe(262144);
    expect((await post(mock.url, undefined, { raw: exact })).status).toBe(202);

    const over = Buffer.from(padTo(262145));
    const timestamp = String(Math.floor(Date.now() / 1000));
    async function* chunks() {
      for (let offset = 0; offset < over.length; offset += 16384) yield over.subarray(offset, offset + 16384);
    }
    const response = await request(mock.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-cai-provider': 'acme',
        'x-cai-timestamp': timestamp,
        'x-cai-signature': sign(LIVE_SECRET, timestamp, over),
      },
      body: Readable.from(chunks()),
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    // The mock stops reading: the client sees the 413, or (if it was still writing) a closed socket.
    if (response instanceof Error) expect(response.message).toMatch(/closed|reset|socket|EPIPE/i);
    else {
      expect(response.statusCode).toBe(413);
      await response.body.dump();
    }
    expect(mock.entries.at(-1)).toMatchObject({ status: 413, reason: 'payload_too_large' });
  });

  it('answers 429 with Retry-After over the rate limit', async () => {
    const mock = await start({ rateLimit: 0.1 });
    expect((await post(mock.url, event())).status).toBe(202);
    const limited = await post(mock.url, event());
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json).toMatchObject({ ok: false, error: 'rate_limited' });
  });

  it('rejects origins outside --allow-origin with 401, IPv4 and IPv4-mapped IPv6 alike', async () => {
    const outside = await start({ allowOrigins: ['203.0.113.0/24', '2001:db8::/32'] });
    const rejected = await post(outside.url, event());
    expect(rejected.status).toBe(401);
    expect(rejected.json).toMatchObject({ error: 'origin_not_allowed' });

    const inside = await start({ allowOrigins: ['127.0.0.0/8'] });
    expect((await post(inside.url, event())).status).toBe(202);
    const mapped = await start({ allowOrigins: ['::ffff:127.0.0.1/128'] });
    expect((await post(mapped.url, event())).status).toBe(202);
  });

  it('verifies with any secret of a rotation overlap and says which matched', async () => {
    const mock = await start({ secrets: [LIVE_SECRET, OLD_SECRET] });
    expect((await post(mock.url, event(), { secret: OLD_SECRET })).status).toBe(202);
    expect((await post(mock.url, event(), { secret: LIVE_SECRET })).status).toBe(202);
    expect(mock.entries.map((e) => e.secret)).toEqual([2, 1]);
  });

  it('keeps test-credential events in their own space with their own dedupe (§1)', async () => {
    const log = logPath();
    const mock = await start({ logFile: log, testProviderCode: 'acme-test', testSecrets: [TEST_SECRET] });
    const doc = event();
    expect((await post(mock.url, doc)).json).toEqual({ ok: true });
    // Same event_id in the test space: new there.
    expect((await post(mock.url, doc, { provider: 'acme-test', secret: TEST_SECRET })).json).toEqual({ ok: true });
    expect((await post(mock.url, doc, { provider: 'acme-test', secret: TEST_SECRET })).json).toEqual({
      ok: true,
      duplicate: true,
    });
    // The live secret does not authenticate the test provider, nor the reverse.
    expect((await post(mock.url, event(), { provider: 'acme-test', secret: LIVE_SECRET })).status).toBe(401);
    expect((await post(mock.url, event(), { provider: 'acme', secret: TEST_SECRET })).status).toBe(401);
    const records = (await readMockLog(log)).records;
    expect(records.map((r) => [r.space, r.verdict, r.provider_code])).toEqual([
      ['live', 'accepted', 'acme'],
      ['test', 'accepted', 'acme-test'],
      ['test', 'duplicate', 'acme-test'],
    ]);
  });

  it('answers 404 for another path and 405 for another method', async () => {
    const mock = await start();
    const elsewhere = await post(mock.url.replace('/events', '/other'), event());
    expect(elsewhere.status).toBe(404);
    const get = await request(mock.url, { method: 'GET' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    await get.body.dump();
  });

  it('injects failures: --fail-first N per event_id, --fail-rate, --latency', async () => {
    const mock = await start({ failFirst: 2, latencyMs: 5 });
    const doc = event();
    expect((await post(mock.url, doc)).status).toBe(503);
    expect((await post(mock.url, doc)).status).toBe(503);
    expect((await post(mock.url, doc)).status).toBe(202);
    expect((await post(mock.url, doc)).json).toEqual({ ok: true, duplicate: true });
    expect(mock.entries.map((e) => e.verdict)).toEqual(['injected', 'injected', 'accepted', 'duplicate']);

    const always = await start({ failRate: 1 });
    expect((await post(always.url, event())).status).toBe(503);
    const never = await start({ failRate: 0 });
    expect((await post(never.url, event())).status).toBe(202);
  });

  it('treats 100 concurrent repeats of one event_id as exactly one new event', async () => {
    const log = logPath();
    const mock = await start({ logFile: log });
    const doc = event();
    const answers = await Promise.all(Array.from({ length: 100 }, () => post(mock.url, doc)));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(answers.filter((a) => JSON.stringify(a.json) === '{"ok":true}')).toHaveLength(1);
    expect(answers.filter((a) => JSON.stringify(a.json) === '{"ok":true,"duplicate":true}')).toHaveLength(99);
    const records = (await readMockLog(log)).records;
    expect(records.filter((r) => r.verdict === 'accepted')).toHaveLength(1);
  });

  it('reloads the dedupe set from the same log on restart', async () => {
    const log = logPath();
    const first = await start({ logFile: log });
    const doc = event();
    expect((await post(first.url, doc)).status).toBe(202);
    await first.close();
    const second = await start({ logFile: log });
    expect(second.reloaded).toBe(1);
    expect((await post(second.url, doc)).json).toEqual({ ok: true, duplicate: true });
    expect((await post(second.url, event())).json).toEqual({ ok: true });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('finishes a request in flight when closed, and it is in the log', async () => {
    const log = logPath();
    const mock = await start({ logFile: log, latencyMs: 100 });
    const pending = post(mock.url, event());
    await new Promise((resolve) => setTimeout(resolve, 30));
    await mock.close();
    expect((await pending).status).toBe(202);
    expect((await readMockLog(log)).records).toHaveLength(1);
  });

  it('never answers 5xx, whatever the body and headers', async () => {
    const mock = await start({ knownLeads: ['lead-1001'] });
    const header = fc.oneof(fc.constant(undefined), fc.string(), fc.constant('acme'));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.json().map((text) => Buffer.from(text)),
        ),
        header,
        header,
        header,
        async (body, provider, timestamp, signature) => {
          const headers: Record<string, string> = {};
          const clean = (value: string) => value.replace(/[^\x21-\x7e]/g, '');
          if (provider !== undefined) headers['x-cai-provider'] = clean(provider);
          if (timestamp !== undefined) headers['x-cai-timestamp'] = clean(timestamp);
          if (signature !== undefined) headers['x-cai-signature'] = clean(signature);
          const response = await request(mock.url, { method: 'POST', headers, body: Buffer.from(body) });
          await response.body.dump();
          return response.statusCode < 500;
        },
      ),
      { numRuns: 60 },
    );
    // Signed garbage reaches the parser and the schema: still 4xx.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.json().map((text) => Buffer.from(text)),
        ),
        async (body) => {
          const answer = await post(mock.url, undefined, { raw: Buffer.from(body) });
          return answer.status < 500;
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses bad options as usage errors', async () => {
    await expect(startMockPlatform({ providerCode: 'acme', secrets: [] })).rejects.toMatchObject({
      code: 'missing_secret',
    });
    await expect(startMockPlatform({ providerCode: 'acme', secrets: ['s'], faults: ['nope'] })).rejects.toMatchObject({
      code: 'unknown_fault',
    });
    await expect(
      startMockPlatform({ providerCode: 'acme', secrets: ['s'], allowOrigins: ['300.1.1.1/8'] }),
    ).rejects.toMatchObject({ code: 'bad_cidr' });
    const mock = await start();
    await expect(startMockPlatform({ providerCode: 'acme', secrets: ['s'], port: mock.port })).rejects.toMatchObject({
      code: 'port_in_use',
    });
  });
});
