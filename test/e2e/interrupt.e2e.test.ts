/**
 * Ctrl-C ends every command with exit 130 (src/main.ts), after it wrote what it had: the terminal sends SIGINT to
 * the whole process group, as here (the child leads a group of its own). The commands wait on a server that
 * accepts requests and never answers, with time-outs far beyond the test's: they end only because cai aborts what
 * is in flight after Ctrl-C and stops anyway shortly after. No stack trace, whatever the command was doing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../helpers/cli.js';
import { sampleEvent } from '../../src/spec/sample.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-interrupt-'));
const env = {
  PATH: process.env.PATH,
  NO_COLOR: '1',
  CAI_SECRET: 'whsec_interrupt_0123456789',
  CAI_CALLBACK_SECRET: 'whsec_interrupt_callback_0123',
};
let silent: Server;
let url = '';
/** What to do when a request reaches the silent server, by the first segment of its path (one per test). */
const arrivals = new Map<string, () => void>();

beforeAll(async () => {
  silent = createServer((request) => {
    request.resume();
    arrivals.get((request.url ?? '').split('/')[1] ?? '')?.();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});

afterAll(async () => {
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs cai in a process group of its own, sends SIGINT to the group once `ready` says so (a request reached the
 * silent server, or a line was printed), and collects the outcome. A process still running 15 s after the signal
 * is killed (the test then fails on its exit status, not on a time).
 */
function interrupt(
  args: string[],
  ready: { request: string } | 'stdout',
  stdin?: (write: (text: string) => void) => void,
): Promise<Interrupted> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: dir,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    let guard: NodeJS.Timeout | undefined;
    const send = () => {
      if (sent) return;
      sent = true;
      process.kill(-(child.pid as number), 'SIGINT');
      guard = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 15_000);
    };
    if (ready !== 'stdout') arrivals.set(ready.request, send);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (ready === 'stdout') send();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
    if (stdin) stdin((text) => child.stdin.write(text));
    else child.stdin.end();
  });
}

function expectInterrupted(result: Interrupted): void {
  expect(result.signal, result.stderr).toBeNull();
  expect(result.code, result.stderr).toBe(130);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe.concurrent('Ctrl-C ends every command with exit 130, without a stack trace', () => {
  it('send-event, while the request is on the wire (the answer never comes)', async () => {
    const result = await interrupt(
      ['send-event', '--to', `${url}/send-event/events`, '--provider', 'acme', '--sample', '--timeout', '10m'],
      { request: 'send-event' },
    );
    expectInterrupted(result);
    expect(result.stderr).toContain('warning: interrupted: no further attempt will be made');
  });

  it('send-job, the same', async () => {
    const result = await interrupt(
      ['send-job', '--to', `${url}/send-job`, '--source', 'platform-eu', '--sample', '--timeout', '10m'],
      { request: 'send-job' },
    );
    expectInterrupted(result);
  });

  it('send-event with a batch: the results written so far stay written', async () => {
    const events = join(dir, 'events.ndjson');
    writeFileSync(
      events,
      `${JSON.stringify(sampleEvent('job.closed'))}\n${JSON.stringify(sampleEvent('job.closed'))}\n`,
    );
    const results = join(dir, 'results.ndjson');
    const result = await interrupt(
      [
        'send-event',
        '--to',
        `${url}/batch/events`,
        '--provider',
        'acme',
        '--ndjson',
        events,
        '--output',
        results,
        '--timeout',
        '10m',
      ],
      { request: 'batch' },
    );
    expectInterrupted(result);
    // Every document is accounted for in the results file, for --resume.
    const records = readFileSync(results, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; verdict: string });
    expect(records.map((record) => record.line).sort()).toEqual([1, 2]);
    expect(records.every((record) => ['failed', 'not-sent'].includes(record.verdict))).toBe(true);
  });

  it('replay', async () => {
    const capture = await spawnCli(
      ['send-event', '--to', `${url}/events`, '--provider', 'acme', '--sample', '--dry-run'],
      { env, cwd: dir },
    );
    expect(capture.code, capture.stderr).toBe(0);
    writeFileSync(join(dir, 'request.http'), capture.stdout);
    const result = await interrupt(
      ['replay', '--request', join(dir, 'request.http'), '--to', `${url}/replay/events`, '--timeout', '10m'],
      { request: 'replay' },
    );
    expectInterrupted(result);
  });

  it('validate --ndjson from stdin: the verdicts so far are printed', async () => {
    const result = await interrupt(['--json', 'validate', '--ndjson'], 'stdout', (write) =>
      write(`${JSON.stringify(sampleEvent('job.closed'))}\n`),
    );
    expectInterrupted(result);
    expect(JSON.parse(result.stdout)).toMatchObject({
      interrupted: true,
      documents: [{ source: '<stdin>:1', valid: true }],
    });
  });

  it('mock platform and mock provider', async () => {
    for (const args of [
      ['mock', 'platform', '--provider', 'acme', '--port', '0'],
      ['mock', 'provider', '--provider', 'acme', '--port', '0'],
    ]) {
      const result = await interrupt(args, 'stdout');
      expectInterrupted(result);
      expect(result.stderr).toContain('stopped');
    }
  });

  it('conformance run, while its first request waits for an answer', async () => {
    const result = await interrupt(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--target',
        `${url}/conformance/events`,
        '--provider',
        'acme',
        '--timeout',
        '10m',
      ],
      { request: 'conformance' },
    );
    expectInterrupted(result);
  });

  it('a command that listens to no interrupt (doctor, waiting for an answer) is stopped at once', async () => {
    const result = await interrupt(['doctor', '--target', `${url}/doctor/events`, '--timeout', '10m'], {
      request: 'doctor',
    });
    expectInterrupted(result);
    expect(result.stderr).toBe('error: interrupted by SIGINT\nhint: run the command again to finish it\n');
  });
});
