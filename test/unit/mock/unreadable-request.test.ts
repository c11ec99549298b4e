/**
 * What Node's parser cannot read, on a connection of a reference receiver (src/http/admission.ts): a request already
 * read is answered as it was recorded, then the connection is closed; with nothing in flight the answer is a JSON
 * error body like every other (§4.2), never Node's bare 400. Raw sockets on loopback.
 */
import { afterEach, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { LIVE_SECRET, event, rawExchange, rawJson, signedHeaderLines } from '../../helpers/mock-client.js';

let mock: RunningMockPlatform | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(): Promise<number> {
  mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET] });
  return Number(new URL(mock.url).port);
}

function signedRequest(eventId: string, connection: 'close' | 'keep-alive'): string {
  const body = JSON.stringify(event({ event_id: eventId }));
  return (
    `POST /events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${signedHeaderLines(body)}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: ${connection}\r\n\r\n${body}`
  );
}

it.each([
  ['a stray byte', 'X'],
  ['a NUL', '\u0000'],
  ['a request Node cannot frame', 'GET /events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
])('a valid event followed by %s on its connection is answered 202, as recorded, then closed', async (_name, rest) => {
  const port = await start();
  for (const connection of ['close', 'keep-alive'] as const) {
    const id = `evt_trailing_${connection}_${rest.length}`;
    const answer = await rawExchange(port, [signedRequest(id, connection) + rest]);
    expect(answer.status, answer.text).toBe(202);
    expect(answer.text).not.toMatch(/HTTP\/1\.1 400/);
    expect(answer.closed).toBe(true);
    expect(mock?.records.filter((record) => record.event_id === id).map((record) => record.status)).toEqual([202]);
  }
});

it('a request that cannot be read, with nothing in flight, is answered 400 with a JSON error body, then closed', async () => {
  const port = await start();
  const answer = await rawExchange(port, [
    'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
  ]);
  expect(answer.status).toBe(400);
  expect(answer.text).toMatch(/\r\nContent-Type: application\/json\r\n/i);
  expect(rawJson(answer)).toMatchObject({ ok: false, error: 'bad_request' });
  expect(answer.closed).toBe(true);
  const huge = await rawExchange(port, [`POST /events HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`]);
  expect(huge.status).toBe(431);
  expect(rawJson(huge)).toMatchObject({ ok: false, error: 'headers_too_large' });
});

it.each([
  ['a chunk size that is no hex number', 'zz\r\n{}\r\n0\r\n\r\n'],
  ['a chunk without its line end, after a good one', '1\r\n{\r\n1\r\n}XX0\r\n\r\n'],
])(
  'a signed request whose body has %s is answered 400 at once, not left to its body time-out',
  async (_name, chunks) => {
    const port = await start();
    const body = JSON.stringify(event({ event_id: 'evt_bad_chunks' }));
    const answer = await rawExchange(port, [
      `POST /events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${signedHeaderLines(body)}` +
        `Transfer-Encoding: chunked\r\n\r\n${chunks}`,
    ]);
    expect(answer.status, answer.text).toBe(400);
    expect(rawJson(answer)).toMatchObject({ ok: false, error: 'bad_request' });
    expect(answer.closed).toBe(true);
    expect(mock?.records.filter((record) => record.event_id === 'evt_bad_chunks')).toEqual([]);
  },
);

it.each([
  ['in the packet of its headers, the sender ending its side', { halfClose: true }],
  ['in the packet of its headers', {}],
])(
  'a malformed chunk size %s is answered 400 with a JSON error body, even when the headers alone are refused',
  async (_name, options) => {
    const port = await start();
    // No identity and no signature: the headers alone would be answered 401 (steps 5–6), were the body readable.
    const answer = await rawExchange(
      port,
      ['POST /events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
      options,
    );
    expect(answer.status, answer.text).toBe(400);
    expect(rawJson(answer)).toMatchObject({ ok: false, error: 'bad_request' });
    expect(answer.closed).toBe(true);
  },
);

it('a body cut short by the sender (its side of the connection ended) is answered 400 aborted, not as bad framing', async () => {
  const port = await start();
  const body = JSON.stringify(event({ event_id: 'evt_cut_short' }));
  const answer = await rawExchange(
    port,
    [
      `POST /events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${signedHeaderLines(body)}` +
        `Content-Length: ${body.length + 100}\r\n\r\n${body}`,
    ],
    { halfClose: true },
  );
  expect(answer.status, answer.text).toBe(400);
  expect(rawJson(answer)).toMatchObject({ ok: false, error: 'aborted' });
  expect(mock?.records.filter((record) => record.event_id === 'evt_cut_short')).toEqual([]);
});

it.each([
  ['an HTTP/1.1 request without Host', 'POST /events HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}', 400, 'bad_request'],
  [
    'an expectation other than 100-continue',
    'POST /events HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n',
    417,
    'expectation_failed',
  ],
  // Node gives CONNECT to an event of its own, and closed the connection without a word where none listened.
  [
    'a CONNECT (a tunnel asked of a server that is no proxy)',
    'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
    405,
    'method_not_allowed',
  ],
])(
  '%s is answered with a JSON error body like every other, not with a bare status line',
  async (_name, request, status, error) => {
    const port = await start();
    const answer = await rawExchange(port, [request]);
    expect(answer.status, answer.text).toBe(status);
    expect(rawJson(answer)).toMatchObject({ ok: false, error });
    expect(answer.closed).toBe(true);
  },
);
