/**
 * Every request of `cai load` has a total deadline (`--timeout`: the answer's headers and its whole body), and the
 * run one after its last phase: a receiver that answers 202 and then trickles its body a byte every 500 ms, never
 * idle for long, cannot keep a request (or the run) going. The contract: `--rate 5/s --duration 1s --timeout 1s`
 * against it ends by itself within duration + timeout + 10 s.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WirePool, type WireAnswer } from '../../src/load/wire.js';
import type { LoadReport } from '../../src/load/report.js';
import { BIN, ROOT } from '../helpers/cli.js';

const servers: Server[] = [];
const pools: WirePool[] = [];

afterEach(async () => {
  pools.splice(0).forEach((pool) => pool.close());
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Answers every request 202 with a long Content-Length, then writes its body one byte every `everyMs`. */
async function tricklingServer(everyMs: number): Promise<URL> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let answered = false;
    socket.on('data', () => {
      if (answered) return;
      answered = true;
      socket.write('HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{');
      const timer = setInterval(() => socket.writable && socket.write(' '), everyMs);
      timers.add(timer);
      socket.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    timers.forEach(clearInterval);
    sockets.forEach((socket) => socket.destroy());
    return close(callback);
  }) as typeof server.close;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`);
}

describe('the load client: a total deadline per request', () => {
  it('fails a request whose body trickles in, never idle for the time-out, with `timeout`', async () => {
    const url = await tricklingServer(50);
    const pool = new WirePool({ url, timeoutMs: 400 });
    pools.push(pool);
    const outcome = await new Promise<WireAnswer | string>((resolve) =>
      pool.send('content-type: application/json\r\n', '{}', { answered: resolve, failed: resolve }),
    );
    expect(outcome).toBe('timeout');
  });
});

describe('cai load against a receiver that trickles its answer', () => {
  it('ends by itself within duration + timeout + 10 s, every request failed by its deadline', async () => {
    const url = await tricklingServer(500);
    const boundMs = 1_000 + 1_000 + 10_000;
    const result = await new Promise<{ code: number | null; killed: boolean; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            BIN,
            '--json',
            'load',
            '--to',
            url.href,
            '--provider',
            'acme',
            '--rate',
            '5/s',
            '--duration',
            '1s',
            '--timeout',
            '1s',
          ],
          {
            cwd: ROOT,
            env: { PATH: process.env.PATH, NO_COLOR: '1', CAI_SECRET: 'whsec_trickle' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        let killed = false;
        // The contract's bound, not a measure of speed: past it the run is stopped and the test fails.
        const guard = setTimeout(() => {
          killed = true;
          child.kill('SIGKILL');
        }, boundMs);
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(guard);
          resolve({ code, killed, stdout, stderr });
        });
      },
    );
    expect(result.killed, result.stderr).toBe(false);
    // Not one request answered: the run fails as unreachable (exit 3), its report whole.
    expect(result.code, result.stderr).toBe(3);
    const report = JSON.parse(result.stdout) as LoadReport;
    expect(report.error?.code).toBe('nothing_answered');
    expect(report.requests.sent).toBeGreaterThan(0);
    expect(report.failures).toEqual({ timeout: report.requests.sent });
    expect(report.requests.failed).toBe(report.requests.sent);
  });
});
