/**
 * Issue 14, finding 2: a flood of unauthenticated, slow and silent connections against a platform mock in a
 * process of its own. The authenticated sender keeps getting its 202s, and the mock's memory stays bounded
 * (before: every unauthenticated body was read in full before its provider was looked at).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/spec/constants.js';
import { LIVE_SECRET, event, post, signedHeaderLines } from '../helpers/mock-client.js';
import { startLibraryMock, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

const MiB = 1024 * 1024;
// Each flood is bounded: a few hundred loopback connections.
const UNAUTHENTICATED = 200;
const SLOW_BODIES = 60;
const SLOW_HEADERS = 60;
const SILENT = 60;

/** Opens a connection, writes `parts` (then nothing more), and resolves once the server has closed it. */
function hold(port: number, parts: (string | Buffer)[]): Promise<void> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1', () => parts.forEach((part) => socket.write(part)));
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.on('close', () => resolve());
  });
}

describe.skipIf(process.platform !== 'linux')('a platform mock under a flood of connections', () => {
  it('keeps answering the authenticated sender, cuts the slow ones, and does not read unauthenticated bodies', async () => {
    const mock = await startLibraryMock('platform', {
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      limits: { headersTimeoutMs: 1_500, bodyIdleTimeoutMs: 1_500, bodyTimeoutMs: 5_000 },
    });
    for (let i = 0; i < 20; i += 1) expect((await post(mock.url, event())).status).toBe(202);
    const before = mock.memory();

    const big = Buffer.alloc(MAX_BODY_BYTES - 1, 0x20);
    const bodyHead = (lines: string) =>
      `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n${lines}\r\n`;
    const flood = [
      // Whole 262 143-byte bodies from a provider nobody knows: answered 401 from the headers.
      ...Array.from({ length: UNAUTHENTICATED }, () =>
        hold(mock.port, [bodyHead(signedHeaderLines(big, { provider: 'intruder' })), big]),
      ),
      // Well-formed headers of the known provider, a third of the body, then silence: read, then cut with 408.
      ...Array.from({ length: SLOW_BODIES }, () =>
        hold(mock.port, [bodyHead(signedHeaderLines(big)), big.subarray(0, 90_000)]),
      ),
      ...Array.from({ length: SLOW_HEADERS }, () => hold(mock.port, ['POST /events HTTP/1.1\r\nHost: x\r\nX-CAI-Pro'])),
      ...Array.from({ length: SILENT }, () => hold(mock.port, [])),
    ];
    const answers: number[] = [];
    const sender = (async () => {
      for (let i = 0; i < 40; i += 1) answers.push((await post(mock.url, event())).status);
    })();
    await Promise.all([sender, ...flood]);

    expect(answers).toEqual(Array.from({ length: 40 }, () => 202));
    const after = mock.memory();
    if (before && after) {
      // Bounded: the slow bodies read (60 × 90 000 bytes) and what Node reads of each connection before the
      // answer (a chunk, up to 64 KiB), not the 52 MB offered. Measured: about 35 MiB.
      expect(after.peak - before.rss).toBeLessThan(64 * MiB);
    }
    expect(await mock.stop()).toBe(0);
  });
});
