/**
 * A run cut short does not pass (docs/cli.md): SIGTERM (a CI job's time-out, a service manager's stop) lets a command
 * that stops in time keep its own exit code, and for `cai trigger FLOW` with events never sent and for `cai load`
 * that code is 1, never 0; Ctrl-C makes it 130, and the `--json` document's `ok` is false whenever its `exitCode` is
 * not 0. A load run whose every answer was a refusal fails as `none_accepted` though it was interrupted. The peers
 * are plain node:http servers on 127.0.0.1:0; the signal comes once the first request has arrived.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { fakeIo } from '../helpers/cli.js';

const env = { CAI_SECRET: 'whsec_interrupted_runs_0123456789abcdef' };

interface Peer {
  url: string;
  /** Resolved when the first request has arrived. */
  firstRequest: Promise<void>;
  server: Server;
}

const peers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    peers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** A receiver that answers every request with `status` and `body`. */
async function peerAnswering(status: number, body: Record<string, unknown>): Promise<Peer> {
  let arrived: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      arrived();
    });
  });
  peers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/events`, firstRequest, server };
}

/** Runs the CLI in-process; `signal` reaches its interrupt listeners once `when` resolves. */
async function runStopped(argv: string[], signal: NodeJS.Signals, when: Promise<void>) {
  const io = fakeIo({ env });
  const listeners = new Set<(received: NodeJS.Signals) => void>();
  let sent = false;
  io.onInterrupt = (listener) => {
    listeners.add(listener);
    if (sent) queueMicrotask(() => listeners.has(listener) && listener(signal));
    return () => listeners.delete(listener);
  };
  void when.then(() => {
    sent = true;
    for (const listener of listeners) listener(signal);
  });
  const code = await run(argv, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('cai trigger FLOW, stopped before its last event', () => {
  it('SIGTERM: exit 1 (not 0), and the JSON says ok false with the same exit code', async () => {
    const peer = await peerAnswering(202, { ok: true });
    const result = await runStopped(
      ['--json', 'trigger', 'appointment-cancelled', '--to', peer.url, '--provider', 'acme', '--pace', '30s'],
      'SIGTERM',
      peer.firstRequest,
    );
    const json = JSON.parse(result.stdout) as {
      ok: boolean;
      exitCode: number;
      stoppedBy: string;
      summary: { sent: number; notSent: number };
    };
    expect(result.code, result.stderr).toBe(1);
    expect(json).toMatchObject({ ok: false, exitCode: 1, stoppedBy: 'interrupted' });
    expect(json.summary.sent).toBe(1);
    expect(json.summary.notSent).toBeGreaterThan(0);
  });

  it('SIGTERM, on the terminal: the summary, then why the run does not pass', async () => {
    const peer = await peerAnswering(202, { ok: true });
    const result = await runStopped(
      ['trigger', 'appointment-cancelled', '--to', peer.url, '--provider', 'acme', '--pace', '30s'],
      'SIGTERM',
      peer.firstRequest,
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^appointment-cancelled: 1 of \d+ events sent for lead .*, \d+ not sent$/m);
    expect(result.stderr).toContain('interrupted before the end of the flow: the run does not pass');
  });
});

describe('cai load, interrupted', () => {
  const load = (url: string) => [
    '--json',
    'load',
    '--to',
    url,
    '--provider',
    'acme',
    '--rate',
    '10/s',
    '--duration',
    '30s',
  ];

  it('SIGTERM, every answer a refusal: exit 1, none_accepted, ok false', async () => {
    const peer = await peerAnswering(401, { error: 'invalid_signature', message: 'the signature does not match' });
    const result = await runStopped(load(peer.url), 'SIGTERM', peer.firstRequest);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      exitCode: number;
      interrupted: boolean;
      error?: { code: string };
    };
    expect(result.code, result.stderr).toBe(1);
    expect(report).toMatchObject({ ok: false, exitCode: 1, interrupted: true, error: { code: 'none_accepted' } });
  });

  it('SIGTERM, every answer accepted and no threshold failed: exit 1 all the same, a run cut short does not pass', async () => {
    const peer = await peerAnswering(202, { ok: true });
    const result = await runStopped(load(peer.url), 'SIGTERM', peer.firstRequest);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      exitCode: number;
      interrupted: boolean;
      error?: unknown;
    };
    expect(result.code, result.stderr).toBe(1);
    expect(report).toMatchObject({ ok: false, exitCode: 1, interrupted: true });
    expect(report.error).toBeUndefined();
    expect(result.stderr).toContain('a run cut short does not pass');
  });

  it('Ctrl-C: exit 130, and the JSON says ok false with exitCode 130', async () => {
    const peer = await peerAnswering(202, { ok: true });
    const result = await runStopped(load(peer.url), 'SIGINT', peer.firstRequest);
    const report = JSON.parse(result.stdout) as { ok: boolean; exitCode: number };
    expect(result.code, result.stderr).toBe(130);
    expect(report).toMatchObject({ ok: false, exitCode: 130 });
  });
});
