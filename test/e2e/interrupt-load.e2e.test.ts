/**
 * Ctrl-C ends a command within the 5 s it has (src/main.ts gives up at 4.5 s) with what it has so far, on a busy
 * machine: two busy loops run beside it. A conformance run interrupted while a check waits between its requests (the
 * repeat-memory checks pause seconds before their last repeat) once took 9 s and wrote no report; it now reports at
 * once, the check not judged. `cai load` interrupted with requests that never get an answer writes its partial
 * report too. No timing is asserted but the contract's: a command still running 15 s after the signal is killed,
 * and the test fails on that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';
import { BIN, ROOT } from '../helpers/cli.js';

const SECRET = 'whsec_interrupt_load_0123456789';
const CALLBACK_SECRET = 'whsec_interrupt_load_callbacks_01';
const env = { PATH: process.env.PATH, NO_COLOR: '1', CAI_SECRET: SECRET, CAI_CALLBACK_SECRET: CALLBACK_SECRET };
const hogs: ChildProcess[] = [];

beforeAll(() => {
  for (let index = 0; index < 2; index += 1)
    hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});
afterAll(() => {
  for (const hog of hogs) hog.kill('SIGKILL');
});

interface Interrupted {
  code: number | null;
  killed: boolean;
  stdout: string;
  stderr: string;
}

/** Runs cai in a process group of its own and sends SIGINT to the group when `arm` calls back; kills it 15 s later. */
function interruptWhen(args: string[], arm: (interrupt: () => void) => void): Promise<Interrupted> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let guard: NodeJS.Timeout | undefined;
    let sent = false;
    arm(() => {
      if (sent) return;
      sent = true;
      process.kill(-(child.pid as number), 'SIGINT');
      guard = setTimeout(() => {
        killed = true;
        process.kill(-(child.pid as number), 'SIGKILL');
      }, 15_000);
    });
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, killed, stdout, stderr });
    });
  });
}

function expectPartialReport(result: Interrupted): Record<string, unknown> {
  expect(result.killed, result.stderr).toBe(false);
  expect(result.code, result.stderr).toBe(130);
  expect(result.stderr).not.toContain('did not stop');
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(report.interrupted, result.stdout.slice(0, 300)).toBe(true);
  return report;
}

describe('Ctrl-C under load: the command stops in time, with its partial report', () => {
  it.each(['B', 'A'] as const)(
    'conformance run (interface %s) interrupted while a check pauses between its requests',
    async (iface) => {
      // The repeat-memory check sends a document, 64 others and the document again, then waits seconds before its
      // last repeat: the signal comes in that wait (the receiver has answered the 66th request).
      let requests = 0;
      let interrupt: () => void = () => {};
      const onRequest = () => {
        requests += 1;
        if (requests === 66) setTimeout(() => interrupt(), 200);
      };
      const receiver =
        iface === 'B'
          ? await startMockPlatform({ providerCode: 'acme', secrets: [SECRET], keepRecords: false, onRequest })
          : await startMockProvider({
              providerCode: 'acme',
              sourceId: 'platform',
              secrets: [SECRET],
              callbackSecrets: [CALLBACK_SECRET],
              keepRecords: false,
              speed: 1000,
              onRequest,
            });
      try {
        const check = iface === 'B' ? 'B-DEDUP-009' : 'A-DEDUP-008';
        const identity =
          iface === 'B'
            ? ['--provider', 'acme']
            : [
                '--source',
                'platform',
                '--branch-code',
                'BR-001',
                '--provider',
                'acme',
                '--callback-secret-env',
                'CAI_CALLBACK_SECRET',
              ];
        const result = await interruptWhen(
          [
            '--json',
            'conformance',
            'run',
            '--interface',
            iface,
            '--target',
            receiver.url,
            ...identity,
            '--secret-env',
            'CAI_SECRET',
            '--only',
            check,
          ],
          (send) => (interrupt = send),
        );
        const report = expectPartialReport(result) as { checks: { id: string; verdict: string; actual: string }[] };
        expect(report.checks.find((entry) => entry.id === check)).toMatchObject({
          verdict: 'not-judged',
          actual: 'interrupted while it gathered its evidence',
        });
      } finally {
        await receiver.close();
      }
    },
  );

  it('load, with requests that never get an answer', async () => {
    const silent: Server = createServer((request) => request.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    let interrupt: () => void = () => {};
    let seen = 0;
    silent.on('request', () => {
      seen += 1;
      if (seen === 3) interrupt();
    });
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/events`;
      const result = await interruptWhen(
        [
          '--json',
          'load',
          '--to',
          url,
          '--provider',
          'acme',
          '--secret-env',
          'CAI_SECRET',
          '--rate',
          '20/s',
          '--duration',
          '30s',
          '--timeout',
          '10m',
        ],
        (send) => (interrupt = send),
      );
      const report = expectPartialReport(result) as { requests: { sent: number; failed: number } };
      expect(report.requests.sent).toBeGreaterThanOrEqual(3);
      expect(report.requests.failed).toBe(report.requests.sent);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
