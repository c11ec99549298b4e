/**
 * Property tests of the receive pipeline (issue 14): random and adversarial bodies, headers and framings, sent
 * over raw sockets to a real platform mock. For every input the answer is the one the documented order of checks
 * gives (src/mock/pipeline.ts), never a 5xx, and nothing escapes as an exception (vitest fails a run on any).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startMockPlatform, type MockRequestEntry, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { startMockProvider, type RunningMockProvider } from '../../../src/mock/provider.js';
import { sign } from '../../../src/signing/sign.js';
import { MAX_BODY_BYTES } from '../../../src/spec/constants.js';
import { validateDocument } from '../../../src/spec/validate.js';
import { LIVE_SECRET, TEST_SECRET, post, rawExchange } from '../../helpers/mock-client.js';

const SECRETS: Record<string, string> = { acme: LIVE_SECRET, 'acme-test': TEST_SECRET };

interface Case {
  method: string;
  path: string;
  provider?: string;
  timestamp?: 'fresh' | 'stale' | 'future' | 'malformed' | 'empty';
  signature?: 'good' | 'wrong' | 'malformed' | 'empty';
  body: Buffer;
  framing: 'length' | 'chunked';
}

type CaseSpec = Omit<Case, 'body'> & { body: BodySpec };

/** The answer the documented order of checks gives (status and error code), with the dedupe state it keeps. */
function expected(input: Case, stored: Set<string>): { status: number; error?: string; duplicate?: boolean } {
  if (input.method !== 'POST') return { status: 405, error: 'method_not_allowed' };
  if (input.path.split('?')[0] !== '/events') return { status: 404, error: 'not_found' };
  if (input.framing === 'length' && input.body.length > MAX_BODY_BYTES)
    return { status: 413, error: 'payload_too_large' };
  if (input.provider === undefined || !(input.provider in SECRETS)) return { status: 401, error: 'unknown_provider' };
  // verify(): presence, then format, then the window.
  if (input.signature === undefined || input.signature === 'empty') return { status: 401, error: 'missing_signature' };
  if (input.timestamp === undefined || input.timestamp === 'empty') return { status: 401, error: 'missing_signature' };
  if (input.timestamp === 'malformed' || input.signature === 'malformed')
    return { status: 401, error: 'invalid_signature' };
  if (input.timestamp === 'stale' || input.timestamp === 'future')
    return { status: 401, error: 'timestamp_outside_window' };
  if (input.body.length > MAX_BODY_BYTES) return { status: 413, error: 'payload_too_large' };
  if (input.signature === 'wrong') return { status: 401, error: 'invalid_signature' };
  let document: unknown;
  try {
    document = new TextDecoder('utf-8', { fatal: true }).decode(input.body);
    document = JSON.parse(document as string);
  } catch {
    return { status: 400, error: 'invalid_json' };
  }
  if (!validateDocument(document, { kind: 'event' }).valid) return { status: 400, error: 'invalid_document' };
  const key = `${input.provider === 'acme' ? 'live' : 'test'}/${(document as { event_id: string }).event_id}`;
  if (stored.has(key)) return { status: 202, duplicate: true };
  stored.add(key);
  return { status: 202, duplicate: false };
}

function timestampOf(kind: Case['timestamp']): string | undefined {
  const now = Math.floor(Date.now() / 1000);
  switch (kind) {
    case 'fresh':
      return String(now);
    case 'stale':
      return String(now - 400);
    case 'future':
      return String(now + 400);
    case 'malformed':
      return `${now}.5`;
    case 'empty':
      return '';
    default:
      return undefined;
  }
}

/** The request as bytes on the wire, Content-Length or chunked, with the headers the case asks for. */
function wire(input: Case): Buffer[] {
  const timestamp = timestampOf(input.timestamp);
  const lines = [
    `${input.method} ${input.path} HTTP/1.1`,
    'Host: mock',
    'Content-Type: application/json',
    'Connection: close',
  ];
  if (input.provider !== undefined) lines.push(`X-CAI-Provider: ${input.provider}`);
  if (timestamp !== undefined) lines.push(`X-CAI-Timestamp: ${timestamp}`);
  const secret = SECRETS[input.provider ?? ''] ?? LIVE_SECRET;
  const signatures = {
    good: sign(secret, timestamp ?? '0', input.body),
    wrong: sign('not-the-secret-0123', timestamp ?? '0', input.body),
    malformed: 'sha256=XYZ',
    empty: '',
  };
  if (input.signature !== undefined) lines.push(`X-CAI-Signature: ${signatures[input.signature]}`);
  if (input.framing === 'chunked') {
    lines.push('Transfer-Encoding: chunked');
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.body.length; at += 65_536) {
      const piece = input.body.subarray(at, at + 65_536);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    return [Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), ...chunks, Buffer.from('0\r\n\r\n')];
  }
  lines.push(`Content-Length: ${input.body.length}`);
  return [Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), input.body];
}

/** A body, described small (a failing case prints readably) and built by bodyOf. */
type BodySpec =
  | { kind: 'event'; id: string; text: string; pretty: boolean; depth: number; direction: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'json'; text: string }
  | { kind: 'oversize'; extra: number }
  | { kind: 'unclosed'; depth: number };

let sequence = 0;
function bodyOf(spec: BodySpec): Buffer {
  switch (spec.kind) {
    case 'event': {
      const doc = {
        event: 'conversation.message',
        event_id: spec.id,
        lead_id: 'lead-1',
        channel: 'whatsapp',
        direction: spec.direction,
        author: 'contact',
        text: spec.text,
        occurred_at: '2026-11-22T13:00:00+00:00',
      };
      const base = spec.pretty ? JSON.stringify(doc, null, 2).slice(0, -2) : JSON.stringify(doc).slice(0, -1);
      // §9.2: an unknown field, nested `depth` deep (any depth the body size allows; the pipeline has no other bound).
      const deep =
        spec.depth > 0
          ? `,${spec.pretty ? '\r\n ' : ''}"extra":${'['.repeat(spec.depth)}${']'.repeat(spec.depth)}`
          : '';
      return Buffer.from(`${base}${deep}${spec.pretty ? '\n}' : '}'}`);
    }
    case 'bytes':
      return Buffer.from(spec.bytes);
    case 'json':
      return Buffer.from(spec.text);
    case 'oversize':
      return Buffer.from(
        JSON.stringify({
          event: 'job.closed',
          event_id: `big_${(sequence += 1)}`,
          outcome: 'no_answer',
          notes: 'x'.repeat(MAX_BODY_BYTES - 60 + spec.extra),
        }),
      );
    case 'unclosed':
      return Buffer.from(`{"event":${'{"a":'.repeat(spec.depth)}`);
  }
}

const eventSpec = fc.record({
  kind: fc.constant('event' as const),
  id: fc.constantFrom('e1', 'e2', 'e3', 'e4').map((id) => `prop_${process.pid}_${id}`),
  text: fc.string({ maxLength: 40 }),
  pretty: fc.boolean(),
  depth: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30_000 })),
  direction: fc.oneof(
    { weight: 5, arbitrary: fc.constant('inbound') },
    { weight: 1, arbitrary: fc.constant('sideways') },
  ),
});
const body: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 6, arbitrary: eventSpec },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 300 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), text: fc.json() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('oversize' as const), extra: fc.integer({ min: 1, max: 5_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('unclosed' as const), depth: fc.integer({ min: 1, max: 150_000 }) }),
  },
);
const cases: fc.Arbitrary<CaseSpec> = fc.record(
  {
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE') },
    ),
    path: fc.oneof(
      { weight: 8, arbitrary: fc.constant('/events') },
      { weight: 1, arbitrary: fc.constantFrom('/events?x=1', '/other', '/events/') },
    ),
    provider: fc.oneof(
      { weight: 6, arbitrary: fc.constant('acme') },
      { weight: 1, arbitrary: fc.constantFrom('acme-test', 'other', undefined) },
    ),
    timestamp: fc.oneof(
      { weight: 6, arbitrary: fc.constant('fresh' as const) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'stale' as const,
          'future' as const,
          'malformed' as const,
          'empty' as const,
          undefined,
        ),
      },
    ),
    signature: fc.oneof(
      { weight: 6, arbitrary: fc.constant('good' as const) },
      { weight: 1, arbitrary: fc.constantFrom('wrong' as const, 'malformed' as const, 'empty' as const, undefined) },
    ),
    body,
    framing: fc.constantFrom('length' as const, 'chunked' as const),
  },
  { requiredKeys: ['method', 'path', 'body', 'framing'] },
);

describe('the receive pipeline, for any request', () => {
  let mock: RunningMockPlatform;
  const entries: MockRequestEntry[] = [];
  const stored = new Set<string>();
  beforeAll(async () => {
    mock = await startMockPlatform({
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      testProviderCode: 'acme-test',
      testSecrets: [TEST_SECRET],
      onRequest: (entry) => entries.push(entry),
    });
  });
  afterAll(() => mock.close());

  it('answers as the documented order of checks says, never with a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (spec) => {
        const input: Case = { ...spec, body: bodyOf(spec.body) };
        const before = entries.length;
        const answer = await rawExchange(mock.port, wire(input), { waitMs: 15_000 });
        // The entry is the mock's own account of its answer (the client may miss an answer the mock closed on).
        const entry = entries[before];
        const want = expected(input, stored);
        expect(entries).toHaveLength(before + 1);
        expect(entry?.status).toBeLessThan(500);
        expect(entry?.status).toBe(want.status);
        if (want.error) expect(entry?.reason).toBe(want.error);
        else expect(entry?.verdict).toBe(want.duplicate ? 'duplicate' : 'accepted');
        if (answer.status !== undefined) expect(answer.status).toBe(want.status);
      }),
      { numRuns: 150 },
    );
  });

  it('survives bytes that are not HTTP at all, and serves the next request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 2_000 }), { minLength: 1, maxLength: 4 }),
        async (parts) => {
          const answer = await rawExchange(
            mock.port,
            parts.map((part) => Buffer.from(part)),
            { waitMs: 200 },
          );
          // Node's parser answers 400 (or waits for more); never a 5xx.
          if (answer.status !== undefined) expect(answer.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
    expect(entries.every((entry) => entry.status < 500)).toBe(true);
    const event = { event: 'job.closed', event_id: `after_garbage_${process.pid}`, outcome: 'no_answer' };
    expect((await post(mock.url, event)).status).toBe(202);
  });
});

describe('the provider pipeline, for any request', () => {
  let mock: RunningMockProvider;
  const entries: MockRequestEntry[] = [];
  const JOBS_SECRET = 'jobs-secret-0123456789';
  beforeAll(async () => {
    mock = await startMockProvider({
      providerCode: 'acme',
      sourceId: 'platform-1',
      secrets: [JOBS_SECRET],
      callbackSecrets: [LIVE_SECRET],
      speed: 1e9,
      sendEvent: async () => ({ outcome: 'accepted', attempts: 1, interrupted: false, status: 202 }),
      onRequest: (entry) => entries.push(entry),
    });
  });
  afterAll(() => mock.close());

  it('answers in the documented order (source, signature headers, size, signature, JSON, schema), never with a 5xx', async () => {
    const job = fc
      .record({ id: fc.constantFrom('j1', 'j2', 'j3'), depth: fc.integer({ min: 0, max: 20_000 }) })
      .map(({ id, depth }) =>
        Buffer.from(
          `{"lead_id":"l","event_id":"prop_${process.pid}_${id}","branch_code":"B-1","contact":{"name":"Ana","phone_e164":"+34600111222"},"callback_url":"http://127.0.0.1:9/x","x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        ),
      );
    const input = fc.record({
      source: fc.constantFrom('platform-1', 'platform-1', 'other', undefined),
      signed: fc.constantFrom('good', 'good', 'wrong', 'stale', undefined),
      body: fc.oneof(
        { weight: 4, arbitrary: job },
        { weight: 1, arbitrary: fc.json().map((text) => Buffer.from(text)) },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b)) },
      ),
    });
    const acked = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(input, async ({ source, signed, body }) => {
        const before = entries.length;
        const timestamp = String(Math.floor(Date.now() / 1000) - (signed === 'stale' ? 400 : 0));
        const headers = [
          `POST /contact-jobs HTTP/1.1`,
          'Host: p',
          'Connection: close',
          `Content-Length: ${body.length}`,
          `X-CAI-Timestamp: ${timestamp}`,
        ];
        if (source !== undefined) headers.push(`X-CAI-Source: ${source}`);
        if (signed !== undefined)
          headers.push(
            `X-CAI-Signature: ${sign(signed === 'wrong' ? 'wrong-secret-0123456' : JOBS_SECRET, timestamp, body)}`,
          );
        const answer = await rawExchange(mock.port, [`${headers.join('\r\n')}\r\n\r\n`, body]);
        const entry = entries[before];
        let want: string;
        let parsed: unknown;
        try {
          parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
        } catch {
          parsed = undefined;
        }
        if (source !== 'platform-1') want = 'unknown_source';
        else if (signed === undefined) want = 'missing_signature';
        else if (signed === 'stale') want = 'timestamp_outside_window';
        else if (signed === 'wrong') want = 'invalid_signature';
        else if (parsed === undefined) want = 'invalid_json';
        else if (!validateDocument(parsed, { kind: 'job' }).valid) want = 'invalid_document';
        else want = acked.has((parsed as { event_id: string }).event_id) ? 'duplicate' : 'accepted';
        expect(entry?.status).toBeLessThan(500);
        expect(entry?.reason ?? entry?.verdict).toBe(want);
        if (want === 'accepted') acked.set((parsed as { event_id: string }).event_id, entry?.provider_job_id ?? '');
        if (want === 'duplicate')
          expect(entry?.provider_job_id).toBe(acked.get((parsed as { event_id: string }).event_id));
        if (answer.status !== undefined) expect(answer.status).toBe(entry?.status);
      }),
      { numRuns: 80 },
    );
  });
});
