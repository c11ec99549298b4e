/**
 * A target that is plainly not the endpoint is told at once (one error, exit 3) instead of failing every check;
 * `--fail-fast` and `--max-failures N` stop a run early, the checks not run reported as skipped in every format.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { notTheEndpoint } from '../../src/http/not-an-endpoint.js';
import { runCli } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';
import { startScriptedServer, type ScriptedAnswer } from '../helpers/scripted-server.js';
import { planFor } from '../../src/conformance/run-receiver.js';

/** The default B run as the catalogue plans it. */
const DEFAULT_B = planFor({ interface: 'B', selection: { only: [], skip: [], include: [] } }).planned;

const dir = mkdtempSync(join(tmpdir(), 'cai-conformance-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const repro = () => ['--repro-dir', mkdtempSync(join(dir, 'repro-'))];
const env = { CAI_SECRET: 'whsec_test' };

const HTML_501 =
  '<!DOCTYPE HTML>\n<html lang="en">\n<head><title>Error response</title></head>\n<body><h1>Error response</h1><p>Error code: 501</p></body>\n</html>\n';
const WELCOME = '<!doctype html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>';

describe('the first valid, correctly signed request (before the checks)', () => {
  it.each<[string, ScriptedAnswer, string]>([
    [
      'a static file server: 501 and an HTML page',
      { status: 501, headers: { 'content-type': 'text/html;charset=utf-8' }, body: HTML_501 },
      '501 Not Implemented, an HTML page ("Error response")',
    ],
    ['a wrong path: 404', { status: 404, body: 'Not Found' }, '404 Not Found'],
    ['a path without POST: 405', { status: 405, body: '' }, '405 Method Not Allowed'],
    [
      'a web page answered with 200',
      { status: 200, headers: { 'content-type': 'text/html' }, body: WELCOME },
      '200 OK, an HTML page ("Welcome to nginx!")',
    ],
    [
      'an HTML error page from a gateway: 403',
      { status: 403, headers: { 'content-type': 'text/html' }, body: '<p>Forbidden</p>' },
      '403 Forbidden, an HTML page',
    ],
  ])('%s: one error naming what came back and what was expected, exit 3, no check run', async (_name, answer, what) => {
    const server = await startScriptedServer([answer], { path: '/events' });
    try {
      const result = await runCli(
        ['conformance', 'run', '--interface', 'B', '--target', server.url, '--provider', 'acme', ...repro()],
        { env },
      );
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: ${server.url} is not an events endpoint: a valid, correctly signed event got ${what}; expected 202 (§4.2, §7)\n` +
          'hint: check --to: it is the events URL itself, where the provider POSTs its events (§4.2)\n',
      );
      // The unsigned clock probe (read again, up to three times, when a busy machine drew its round trip out), then
      // the one signed request: nothing else.
      const signed = server.requests.map((request) => request.headers['x-cai-signature'] !== undefined);
      expect(signed.slice(0, -1).every((isSigned) => !isSigned)).toBe(true);
      expect(signed.length).toBeGreaterThanOrEqual(2);
      expect(signed.length).toBeLessThanOrEqual(4);
      expect(signed.at(-1)).toBe(true);
      expect(JSON.parse(server.requests.at(-1)?.body.toString('utf8') ?? '{}')).toMatchObject({
        event: 'conversation.message',
      });
    } finally {
      await server.close();
    }
  });

  it('interface A names the contact-jobs endpoint and --json carries the error', async () => {
    const server = await startScriptedServer([{ status: 404, body: 'no route' }]);
    try {
      const result = await runCli(
        [
          '--json',
          'conformance',
          'run',
          '--interface',
          'A',
          '--target',
          server.url,
          '--source',
          'platform',
          '--branch-code',
          'BR-001',
          ...repro(),
        ],
        { env },
      );
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stdout)).toEqual({
        ok: false,
        error: {
          code: 'not_an_endpoint',
          message: `${server.url}/contact-jobs is not a contact-jobs endpoint: a valid, correctly signed contact job got 404 Not Found; expected 202 with the acknowledgment of §2.3 (§4.1)`,
          hint: 'check --to: it is the provider endpoint, without /contact-jobs, which is appended to it (§4.1)',
          exitCode: 3,
        },
      });
    } finally {
      await server.close();
    }
  });

  it('a closed port: the run stops before any check (exit 3)', async () => {
    const url = `http://127.0.0.1:${await deadLoopbackPort()}/events`;
    const result = await runCli(
      ['conformance', 'run', '--interface', 'B', '--target', url, '--provider', 'acme', ...repro()],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it("a refused connection, a 404 or an HTML page is plainly not the endpoint; other answers are the checks' to judge", () => {
    const json = { 'content-type': 'application/json' };
    const refused = {
      headers: {},
      body: Buffer.alloc(0),
      error: {
        code: 'unreachable',
        message: 'cannot reach http://127.0.0.1:9: the connection was refused (ECONNREFUSED)',
      },
    };
    expect(notTheEndpoint(refused)).toBe('a refused connection (ECONNREFUSED)');
    expect(
      notTheEndpoint({ ...refused, error: { code: 'timeout', message: 'no response within 10 s' } }),
    ).toBeUndefined();
    expect(notTheEndpoint({ status: 202, headers: json, body: Buffer.from('{"ok":true}') })).toBeUndefined();
    expect(notTheEndpoint({ status: 401, headers: json, body: Buffer.from('{}') })).toBeUndefined();
    expect(notTheEndpoint({ status: 500, headers: {}, body: Buffer.alloc(0) })).toBeUndefined();
    // A receiver whose framework labels an empty 202 as text/html is still a receiver.
    expect(
      notTheEndpoint({ status: 202, headers: { 'content-type': 'text/html; charset=UTF-8' }, body: Buffer.alloc(0) }),
    ).toBeUndefined();
    expect(notTheEndpoint({ status: 405, headers: {}, body: Buffer.alloc(0) })).toBe('405 Method Not Allowed');
  });

  it('an endpoint that answers an empty 202 as text/html runs the checks; a 401 to it that does not repeat is warned about', async () => {
    const accepting = await startScriptedServer(
      [{ status: 202, headers: { 'content-type': 'text/html; charset=UTF-8' } }],
      { path: '/events' },
    );
    try {
      const result = await runCli(
        [
          'conformance',
          'run',
          '--interface',
          'B',
          '--target',
          accepting.url,
          '--provider',
          'acme',
          '--only',
          'B-ACCEPT-001',
          ...repro(),
        ],
        { env },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^1 passed, 0 failed, 0 skipped$/m);
    } finally {
      await accepting.close();
    }
    // The clock probe and the first signed request refused, then everything accepted: the diagnosis finds the
    // refusal does not repeat, and the checks run (a refusal that repeats stops the run: diagnose.test.ts).
    const refusing = await startScriptedServer(
      (_request, index) => (index < 2 ? { status: 401, body: { error: 'bad signature' } } : { status: 202 }),
      { path: '/events' },
    );
    try {
      const result = await runCli(
        [
          'conformance',
          'run',
          '--interface',
          'B',
          '--target',
          refusing.url,
          '--provider',
          'acme',
          '--only',
          'B-ACCEPT-001',
          ...repro(),
        ],
        { env },
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        'warning: the first valid, correctly signed request got 401 {"error":"bad signature"}: check the secret and the provider code (--provider) before reading the failures\n',
      );
    } finally {
      await refusing.close();
    }
  });
});

/**
 * A receiver written here on a raw socket, with a fault of the wild (test/zoo/wild, `no-drain-on-401`): a request
 * without a signature is answered 401 from its headers, a quarter of a second late, its body left unread on a
 * connection kept open, so that the next request on it is read from those bytes (a request line that is none: 501
 * and an HTML page, as Python's http.server answers). Signed requests are read whole and accepted. It honours
 * `Connection: close`. Records the connection of every request.
 */
async function startNoDrainReceiver(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const connection = `c${(connections += 1)}`;
    let buffered = Buffer.alloc(0);
    let busy = false;
    const answer = (status: string, type: string, body: string, close: boolean) =>
      socket.write(
        `HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\ndate: ${new Date().toUTCString()}\r\nconnection: ${close ? 'close' : 'keep-alive'}\r\n\r\n${body}`,
        () => close && socket.end(),
      );
    const next = () => {
      if (busy) return;
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [line = '', ...fields] = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map(
        fields.map((field) => [
          field.slice(0, field.indexOf(':')).trim().toLowerCase(),
          field.slice(field.indexOf(':') + 1).trim(),
        ]),
      );
      const close = headers.get('connection')?.toLowerCase() === 'close';
      requests.push(`${connection} ${line.slice(0, 20)}`);
      if (!/^POST \S+ HTTP\/1\.1$/.test(line)) {
        buffered = buffered.subarray(end + 4);
        answer('501 Unsupported method', 'text/html', '<html><title>Error response</title></html>', close);
        return next();
      }
      if (!headers.has('x-cai-signature')) {
        buffered = buffered.subarray(end + 4); // the body stays in the buffer: the fault
        busy = true;
        setTimeout(() => {
          busy = false;
          answer('401 Unauthorized', 'application/json', '{"ok":false}', close);
          next();
        }, 250);
        return;
      }
      const length = Number(headers.get('content-length') ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      answer('202 Accepted', 'application/json', '{"ok":true}', close);
      next();
    };
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      next();
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the clock probe (an unsigned {}, before the first valid request)', () => {
  it('goes on a connection of its own: a receiver that leaves its body unread is judged by the checks, not taken for no endpoint', async () => {
    const receiver = await startNoDrainReceiver();
    try {
      const result = await runCli(
        ['--json', 'conformance', 'run', '--interface', 'B', '--target', receiver.url, '--provider', 'acme'].concat([
          '--only',
          'B-ACCEPT-001,B-AUTH-001',
          '--no-generate',
          ...repro(),
        ]),
        { env },
      );
      expect(result.code, `${result.stderr}\n${receiver.requests.join('\n')}`).toBe(1);
      const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string }[] };
      expect(report.checks.map((check) => `${check.id} ${check.verdict}`)).toContain('B-ACCEPT-001 passed');
      // Each probe of the clock (a round trip over 200 ms is read again: three) came on a connection no other used.
      const probes = receiver.requests.slice(0, 3).map((request) => request.split(' ')[0]);
      expect(new Set(probes).size, receiver.requests.join('\n')).toBe(3);
      expect(receiver.requests.slice(3).map((request) => request.split(' ')[0])).not.toContain(probes[2]);
    } finally {
      await receiver.close();
    }
  });
});

describe('--fail-fast and --max-failures', () => {
  const base = ['conformance', 'run', '--mock', '--interface', 'B', '--break', 'no-dedupe', '--concurrency', '1'];

  it('--fail-fast stops at the first failed must check; the rest are skipped with the reason in JSON and JUnit', async () => {
    const junit = join(dir, 'fail-fast.xml');
    const result = await runCli(['--json', ...base, '--fail-fast', '--junit', junit, ...repro()]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      stopped: unknown;
      summary: { passed: number; failed: number; skipped: number; total: number };
      checks: { id: string; verdict: string; actual: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.stopped).toEqual({ after: 'B-DEDUP-001', failures: 1, limit: 1 });
    expect(report.summary).toMatchObject({ failed: 1, total: DEFAULT_B.length });
    expect(report.checks.filter((check) => check.verdict === 'failed').map((check) => check.id)).toEqual([
      'B-DEDUP-001',
    ]);
    const notRun = report.checks.filter(
      (check) => check.actual === 'not run: the run stopped after 1 failed must check (--fail-fast / --max-failures)',
    );
    expect(notRun.length).toBeGreaterThan(40);
    expect(report.summary.passed + report.summary.failed + report.summary.skipped).toBe(DEFAULT_B.length);
    const xml = readFileSync(junit, 'utf8');
    expect(
      xml.match(
        /<skipped message="not run: the run stopped after 1 failed must check \(--fail-fast \/ --max-failures\)"\/>/g,
      )?.length,
    ).toBe(notRun.length);
  });

  it('--max-failures 2 stops at the second; the human report says why', async () => {
    const result = await runCli([...base, '--max-failures', '2', '--format', 'table', ...repro()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\d+ passed, 2 failed, \d+ skipped$/m);
    expect(result.stdout).toMatch(
      /^- B-SCHEMA-001 skipped: not run: the run stopped after 2 failed must checks \(--fail-fast \/ --max-failures\)$/m,
    );
    expect(result.stderr).toContain(
      'warning: stopped after 2 failed must checks (--max-failures 2), at B-DEDUP-002; the checks not run are reported as skipped\n',
    );
  });

  it('a receiver without the fault runs every check despite --fail-fast', async () => {
    const result = await runCli([
      '--json',
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'acceptance',
      '--fail-fast',
      ...repro(),
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).not.toHaveProperty('stopped');
  });

  it('both flags, or a limit of 0, are usage errors', async () => {
    const both = await runCli([...base, '--fail-fast', '--max-failures', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'error: --fail-fast and --max-failures both set the failure limit\nhint: pass one of them (--fail-fast is --max-failures 1)\n',
    );
    const zero = await runCli([...base, '--max-failures', '0']);
    expect(zero.code).toBe(2);
  });
});
