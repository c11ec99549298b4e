/**
 * Ctrl-C during a conformance run says it was interrupted once: one warning, given when the interrupt comes, that
 * says what the report then holds; not again under the report, nor again when cai calls the run's listener a second
 * time because it has not stopped yet (src/main.ts, a few seconds after the signal).
 */
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { fakeIo } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-interrupt-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A receiver that answers the unsigned clock probe and holds every signed request until the test ends. */
async function holdingReceiver(onHeld: () => void) {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (!request.headers['x-cai-signature']) return void response.writeHead(401).end();
      held.push(response);
      onHeld();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/events`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        held.forEach((response) => response.destroy());
        server.close(() => resolve());
      }),
  };
}

const interruptedLines = (stderr: string) => stderr.split('\n').filter((line) => /interrupted/.test(line));

describe('an interrupted conformance run', () => {
  it('the receiver role: one warning, even when its listener is called twice', async () => {
    const io = fakeIo({ env: { CAI_SECRET: 'whsec_interrupt_once' } });
    let twice = false;
    const receiver = await holdingReceiver(() => {
      if (twice) return;
      twice = true;
      io.interrupt();
      // What src/main.ts does when the run has not stopped a few seconds after the signal.
      setTimeout(() => io.interrupt(), 50);
    });
    try {
      const code = await run(
        [
          'conformance',
          'run',
          '--interface',
          'B',
          '--to',
          receiver.url,
          '--provider',
          'acme',
          '--only',
          'acceptance',
          '--repro-dir',
          join(dir, 'r'),
        ],
        io,
      );
      expect(code).toBe(130);
      expect(interruptedLines(io.err())).toEqual([
        'warning: interrupted: finishing the checks in flight, skipping the rest; the checks not run are reported as skipped, those cut short as not judged',
      ]);
      expect(io.out()).toMatch(/^0 passed, 0 failed, \d+ skipped$/m);
    } finally {
      await receiver.close();
    }
  });
});
