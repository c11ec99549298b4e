/**
 * The two floods of a platform mock that starved a signed sender, each bounded in count and time, on loopback,
 * against the built library in a process of its own: clients that pipeline thousands of requests and never read an
 * answer (before: the sender got no answer at all, measured 0 of 7 attempts in 20 s with 100 such clients), and
 * silent connections holding every slot, reopened when cut (before: a sender's connection was closed on arrival
 * until the header time-out freed a slot). Now every signed event is answered 202 while the flood goes on, and the
 * mock's memory stays bounded.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { LIVE_SECRET, event, rawExchange, signedHeaderLines } from '../helpers/mock-client.js';
import { startLibraryMock, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

const MiB = 1024 * 1024;
const SENDS = 20;

/** Signed events, one after another, each on a connection of its own, each given 15 s (a loaded machine is slow to answer the first while the flood arrives; a starved sender gets no answer at all): their statuses (none: no answer in time). */
async function sendSigned(port: number): Promise<(number | undefined)[]> {
  const answers: (number | undefined)[] = [];
  for (let i = 0; i < SENDS; i += 1) {
    const body = JSON.stringify(event());
    const head = `POST /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${signedHeaderLines(body)}\r\n`;
    answers.push((await rawExchange(port, [head + body], { waitMs: 15_000 })).status);
  }
  return answers;
}

describe.skipIf(process.platform !== 'linux')('a platform mock under a flood', () => {
  it('answers a signed sender while 20 clients pipeline 10 000 requests each and never read', async () => {
    const mock = await startLibraryMock('platform', { providerCode: 'acme', secrets: [LIVE_SECRET] });
    const before = mock.memory();
    const flood: Socket[] = [];
    for (let i = 0; i < 20; i += 1) {
      const socket = connect(mock.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.pause();
      // 10 000 requests, in writes the kernel takes as the mock reads them (or not).
      socket.on('connect', () => {
        for (let n = 0; n < 20; n += 1) socket.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(500));
      });
      flood.push(socket);
    }
    try {
      const answers = await sendSigned(mock.port);
      expect(answers).toEqual(Array.from({ length: SENDS }, () => 202));
      const after = mock.memory();
      // Bounded: what one read of each flooding connection parses before it is closed (measured: about 60 MiB more).
      if (before && after) expect(after.peak - before.rss).toBeLessThan(160 * MiB);
    } finally {
      for (const socket of flood) socket.destroy();
    }
    expect(await mock.stop()).toBe(0);
  });

  it('answers a signed sender while silent connections hold every slot and reopen when cut', async () => {
    const mock = await startLibraryMock('platform', {
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      limits: { maxConnections: 64 },
    });
    let stopped = false;
    let opened = 0;
    const open = new Set<Socket>();
    const silent = () => {
      // Bounded in count: at most 5 000 connections in all.
      if (stopped || opened >= 5_000) return;
      opened += 1;
      const socket = connect(mock.port, '127.0.0.1');
      open.add(socket);
      socket.on('error', () => {});
      socket.resume();
      socket.on('close', () => {
        open.delete(socket);
        setImmediate(silent);
      });
    };
    for (let i = 0; i < 64; i += 1) silent();
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      expect(await sendSigned(mock.port)).toEqual(Array.from({ length: SENDS }, () => 202));
    } finally {
      stopped = true;
      for (const socket of open) socket.destroy();
    }
    expect(await mock.stop()).toBe(0);
  });
});
