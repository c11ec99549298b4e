/**
 * The callback listener of `cai load --interface A --callbacks` under hostile bodies, through the built binary on
 * loopback: a body declared over §8's limit is answered 413 unread, and a body that stalls is cut with 408 by the
 * listener's own time-out (LISTENER_CAPS, 10 s without a byte), long before Node's bare 408 (60 s). Both answers
 * are the JSON error body of every receiver. The bounds are the real ones, so the test takes about 10 s.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sign } from '../../src/signing/sign.js';
import { Headers } from '../../src/spec/constants.js';
import { spawnBounded } from '../helpers/bounded-spawn.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';
import { rawExchange, rawJson } from '../helpers/mock-client.js';

const EVENTS_SECRET = 'whsec_events_0123';
const children: ChildProcess[] = [];
afterEach(() => {
  children.splice(0).forEach((child) => child.kill('SIGKILL'));
});

/** Resolves once something accepts connections on `port`. */
async function listening(port: number): Promise<void> {
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', () => resolve(false));
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('answers 413 at once to a declared Content-Length over §8, and 408 within its body time-out to a stalled body', async () => {
  const port = await deadLoopbackPort();
  const run = spawnBounded(
    [
      'load',
      '--interface',
      'A',
      '--mock',
      '--callbacks',
      '--callback-listen',
      `127.0.0.1:${port}`,
      '--duration',
      '60s',
      '--rate',
      '1/s',
    ],
    {
      boundMs: 90_000,
      env: { CAI_SECRET: 'whsec_jobs_0123', CAI_CALLBACK_SECRET: EVENTS_SECRET },
      onStart: (child) => children.push(child),
    },
  );
  await listening(port);
  const body = JSON.stringify({ event_id: 'e1', pad: 'x'.repeat(100) });
  const timestamp = Math.floor(Date.now() / 1000);
  const head = (length: number, signed = '') =>
    `POST /cai-load/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${signed}Content-Length: ${length}\r\n\r\n`;
  const signed = `${Headers.timestamp}: ${timestamp}\r\n${Headers.signature}: ${sign(EVENTS_SECRET, timestamp, body)}\r\n`;
  // The ceiling is half Node's own 60 s: an answer after it (or none) leaves `status` undefined.
  const [oversized, stalled] = await Promise.all([
    rawExchange(port, [head(99_999_999)], { waitMs: 30_000 }),
    rawExchange(port, [head(Buffer.byteLength(body), signed) + body.slice(0, -20)], { waitMs: 30_000 }),
  ]);
  expect(oversized.status).toBe(413);
  expect(rawJson(oversized)).toMatchObject({ ok: false, error: 'payload_too_large', message: expect.any(String) });
  expect(stalled.status).toBe(408);
  expect(rawJson(stalled)).toMatchObject({ ok: false, error: 'body_timeout', message: expect.any(String) });
  children.splice(0).forEach((child) => child.kill('SIGKILL'));
  await run;
}, 60_000);
