/**
 * Every run ends (docs/limits.md, "Deadlines"): each command that waits on a peer has a total deadline, which a peer
 * that answers a byte every 200 ms, never idle for long, cannot stretch. Against such a receiver `send-event`,
 * `send-job`, `replay`, `conformance run` and `doctor` end by themselves (a --timeout of 3 s, where undici's own
 * time-outs alone were idle ones), as do the provider mock's callback sender and the Expect: 100-continue probe. A
 * command still running at the bound (its deadlines, then 10 s) is killed and fails the test: no other timing is
 * asserted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postExpectingContinue } from '../../src/conformance/probe/expect-continue.js';
import { createEventSender } from '../../src/mock/sender.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { spawnBounded } from '../helpers/bounded-spawn.js';
import { spawnCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-every-run-ends-'));
const env = { CAI_SECRET: 'whsec_every_run_ends_0123456789' };
let server: Server;
let origin = '';
const sockets = new Set<Socket>();

beforeAll(async () => {
  // Any request: `202` with a long Content-Length (or a date header, for doctor's GET, first), then a byte every 200 ms.
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let answered = false;
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      socket.write('HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\n');
      let sent = 0;
      const timer = setInterval(() => {
        sent += 1;
        if (!socket.writable) return;
        // Headers a line at a time for a while, then the body a byte at a time.
        if (sent < 5) socket.write(`x-slow-${sent}: ${'a'.repeat(sent)}\r\n`);
        else if (sent === 5) socket.write('content-length: 100000\r\n\r\n{');
        else socket.write(' ');
      }, 200);
      socket.on('close', () => {
        clearInterval(timer);
        sockets.delete(socket);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  sockets.forEach((socket) => socket.destroy());
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const BOUND_MS = 3_000 + 10_000;

describe('a peer that trickles its answer cannot keep a command going', () => {
  it.each([
    [
      'send-event',
      ['send-event', '--to', 'ORIGIN/events', '--provider', 'acme', '--sample', '--no-retry', '--timeout', '3s'],
      3,
    ],
    [
      'send-job',
      ['send-job', '--to', 'ORIGIN', '--source', 'platform', '--sample', '--no-retry', '--timeout', '3s'],
      3,
    ],
    [
      'conformance run',
      ['conformance', 'run', '--interface', 'B', '--target', 'ORIGIN/events', '--provider', 'acme', '--timeout', '3s'],
      3,
    ],
  ] as const)('%s ends by itself with a time-out', async (_name, args, code) => {
    const result = await spawnBounded(
      args.map((arg) => arg.replace('ORIGIN', origin)),
      { boundMs: BOUND_MS, env },
    );
    expect(result.killed, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(/no complete response from http:\/\/127\.0\.0\.1:\d+ within 3 s/);
  });

  it('replay ends by itself with a time-out', async () => {
    const capture = await spawnCli(
      ['send-event', '--to', `${origin}/events`, '--provider', 'acme', '--sample', '--dry-run'],
      { env },
    );
    expect(capture.code, capture.stderr).toBe(0);
    const request = join(dir, 'request.http');
    writeFileSync(request, capture.stdout);
    const result = await spawnBounded(
      ['replay', '--request', request, '--to', origin, '--no-retry', '--timeout', '3s'],
      { boundMs: BOUND_MS, env },
    );
    expect(result.killed, result.stderr).toBe(false);
    expect(result.code, result.stderr).toBe(3);
  });

  it('doctor ends by itself: its GET reads the headers within the time-out, and no body keeps it running', async () => {
    const result = await spawnBounded(['doctor', '--target', `${origin}/events`, '--timeout', '3s'], {
      boundMs: BOUND_MS,
      env,
    });
    expect(result.killed, result.stderr).toBe(false);
    expect([0, 1]).toContain(result.code);
  });

  it("the provider mock's callback sender gives an attempt up at its time-out", async () => {
    const send = createEventSender({ timeoutMs: 600, retry: { enabled: false } });
    const delivery = await send(
      {
        url: `${origin}/events`,
        body: Buffer.from(JSON.stringify(sampleEvent('job.closed'))),
        secret: env.CAI_SECRET,
        headers: { 'x-cai-provider': 'acme' },
      },
      new AbortController().signal,
    );
    expect(delivery).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(delivery.error).toMatch(/within/);
  });

  it('the Expect: 100-continue probe of a conformance run gives up at its time-out', async () => {
    const answer = postExpectingContinue({
      url: `${origin}/events`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{}'),
      timeoutMs: 600,
      continueWaitMs: 100,
      signal: new AbortController().signal,
    });
    await expect(answer).rejects.toThrow(/no complete answer within 600 ms/);
  });
});
