/**
 * Requests Node's parser refuses, or that the server answers before the receive pipeline (no Host, a bad Expect,
 * headers over the limit), sent by a raw node:net client to `cai mock platform --ui` through the built binary: each
 * leaves its line on stdout and its row in the inspector, with its status and reason, like every other request
 * (docs/mocks.md: one line per request; the inspector shows every request and why it was refused).
 */
import { connect } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { request } from 'undici';
import { LIVE_SECRET } from '../helpers/mock-client.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

/** Writes `head`, reads until the server closes: the status of its answer. */
function sendRaw(port: number, head: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 ([0-9]{3}) /.exec(text)?.[1];
      resolve(status === undefined ? undefined : Number(status));
    });
  });
}

const CASES: [string, string, number, string][] = [
  [
    'control byte',
    'POST /events HTTP/1.1\r\nHost: x\r\nX-CAI-Provider: acme\x01\r\nContent-Length: 2\r\n\r\n{}',
    400,
    'bad_request',
  ],
  [
    'CL and TE',
    'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
    'bad_request',
  ],
  [
    'space in a name',
    'POST /events HTTP/1.1\r\nHost: x\r\nX-CAI-Provider : acme\r\nContent-Length: 2\r\n\r\n{}',
    400,
    'bad_request',
  ],
  ['no Host', 'POST /events HTTP/1.1\r\nX-CAI-Provider: acme\r\nContent-Length: 2\r\n\r\n{}', 400, 'bad_request'],
  [
    'bad Expect',
    'POST /events HTTP/1.1\r\nHost: x\r\nExpect: evil\r\nContent-Length: 2\r\n\r\n{}',
    417,
    'expectation_failed',
  ],
  ['huge headers', `POST /events HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
];

it('each request the server refuses before the pipeline has its line on stdout and its row in the inspector', async () => {
  const mock = await startMockProcess(['mock', 'platform', '--provider', 'acme', '--ui', '127.0.0.1:0'], {
    CAI_SECRET: LIVE_SECRET,
  });
  const ui = /^inspector: (http:\/\/127\.0\.0\.1:[0-9]+)\/$/m.exec(mock.stderr())?.[1];
  const port = Number(new URL(mock.url).port);
  const statuses: (number | undefined)[] = [];
  for (const [, head] of CASES) statuses.push(await sendRaw(port, head));
  expect(statuses).toEqual(CASES.map(([, , status]) => status));

  const refusals = () => mock.lines.slice(1);
  await expect.poll(() => refusals().length).toBe(CASES.length);
  for (const [index, [name, , status, reason]] of CASES.entries()) {
    const line = refusals()[index] as string;
    expect(line, name).toMatch(new RegExp(`\\[${status}\\]\\s+rejected\\s+-\\s+${reason}: `));
    // Nothing from the network reaches the terminal unescaped: printable ASCII (and the ellipsis, §) only.
    expect(line, name).toMatch(/^[\x20-\x7e…§]*$/);
  }
  expect(refusals()[0]).toContain('`X-CAI-Provider: acme\\x01`');

  const listed = await request(`${ui}/api/requests`);
  const page = (await listed.body.json()) as { items: { status: number; reason?: string }[] };
  // Newest first.
  expect(page.items.map((item) => [item.status, item.reason]).reverse()).toEqual(
    CASES.map(([, , status, reason]) => [status, reason]),
  );
  mock.child.kill('SIGTERM');
  expect(await mock.exited).toBe(0);
});
