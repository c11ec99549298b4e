/**
 * Issue 14, findings 5, 6 and 7, reproduced through the built binary (each failed on main before this branch):
 * 5. CR/LF in an identity value went into --dry-run captures and `sign --format curl` lines;
 * 6. escape sequences from the network were printed raw, and a gzip body dumped to stdout;
 * 7. `sign --body /dev/zero` read without bound, a secret file given as a document had its start echoed, and a
 *    password inside a URL was printed by --json.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

/** Anything a terminal would act on: C0 but LF and HTAB, DEL, C1, the bidi controls. */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const SECRET = 'whsec_hostile_input_e2e';
const env = { CAI_SECRET: SECRET };
const EVIL = 'acme\r\nX-Evil: 1';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cai-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => stopAllMockProcesses());

/** A server that answers every request with these raw bytes (status line and headers included), then closes. */
async function answering(response: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/events`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function httpResponse(status: string, headers: Record<string, string>, body: Buffer): Buffer {
  const head = [
    `HTTP/1.1 ${status}`,
    ...Object.entries({ ...headers, 'content-length': String(body.length), connection: 'close' }).map(
      ([name, value]) => `${name}: ${value}`,
    ),
  ];
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

describe('finding 5: a CR/LF in a header value is a usage error before anything is built', () => {
  it('send-event --dry-run writes no capture with an injected header', async () => {
    const result = await spawnCli(
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--sample', '--dry-run', '--provider', EVIL],
      { env },
    );
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: --provider is the X-CAI-Provider header, and "acme\\r\\nX-Evil: 1" holds a carriage return (CR) at character 5: a header value cannot hold control characters (RFC 9110 §5.5)\nhint: pass the provider code alone, printable ASCII on one line\n',
    );
    expect(result.code).toBe(2);
  });

  it('sign --format curl prints no -H line with an injected header', async () => {
    const body = join(dir, 'event.json');
    writeFileSync(body, '{"event":"job.closed","event_id":"e1"}');
    const result = await spawnCli(
      ['sign', '--body', body, '--format', 'curl', '--url', 'https://platform.example/cai/events', '--provider', EVIL],
      { env },
    );
    expect(result.stdout).toBe('');
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^error: --provider is the X-CAI-Provider header/);
  });
});

describe('finding 6: what the network sends is escaped, binary bodies summarised', () => {
  it('escape sequences in the answer and in the event_id reach the terminal as text', async () => {
    const hostile = Buffer.from(
      'refused \u001b[31mRED\u001b[0m \u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007 \u001b]0;pwned\u0007 \u202eevil \u009b2J\r fake\n',
      'utf8',
    );
    const server = await answering(httpResponse('400 Bad Request', { 'content-type': 'text/plain' }, hostile));
    try {
      const body = join(dir, 'escape-id.json');
      writeFileSync(
        body,
        JSON.stringify({
          event: 'job.closed',
          event_id: 'e\u001b[2J\u001b]0;t\u0007',
          lead_id: 'l',
          outcome: 'no_answer',
          attempts: 1,
          occurred_at: '2026-11-22T13:05:00+00:00',
        }),
      );
      const result = await spawnCli(
        ['send-event', '--to', server.url, '--provider', 'acme', '--body', body, '--no-retry'],
        { env },
      );
      expect(result.code).toBe(1);
      expect(result.stdout).not.toMatch(ACTIVE);
      expect(result.stderr).not.toMatch(ACTIVE);
      expect(result.stdout).toContain('  event_id        e\\x1b[2J\\x1b]0;t\\x07\n');
      expect(result.stdout).toContain(
        '    refused \\x1b[31mRED\\x1b[0m \\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07 \\x1b]0;pwned\\x07 \\u202eevil \\u009b2J\\r fake\n',
      );
    } finally {
      await server.close();
    }
  });

  it('a gzip body is summarised, on the terminal and in --json, never dumped', async () => {
    const gzip = gzipSync(Buffer.from('{"error":"compressed"}'));
    const server = await answering(
      httpResponse('400 Bad Request', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzip),
    );
    try {
      const human = await spawnCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--no-retry'], {
        env,
      });
      expect(human.stdout).not.toMatch(ACTIVE);
      expect(human.stdout).toMatch(
        new RegExp(
          `\\(binary body not shown, encoded: application/json, Content-Encoding gzip, ${gzip.length} bytes, sha256 [0-9a-f]{16}…\\)\\n`,
        ),
      );
      const json = await spawnCli(
        ['--json', 'send-event', '--to', server.url, '--provider', 'acme', '--sample', '--no-retry'],
        { env },
      );
      const response = (
        JSON.parse(json.stdout) as {
          response: { body: unknown; bodyBinary: { bytes: number; contentEncoding: string } };
        }
      ).response;
      expect(response.body).toBeNull();
      expect(response.bodyBinary).toMatchObject({ bytes: gzip.length, contentEncoding: 'gzip', why: 'encoded' });
    } finally {
      await server.close();
    }
  });

  it("the mock's request line shows an event_id from the network escaped", async () => {
    const mock = await startMockProcess(['mock', 'platform', '--provider', 'acme', '--secret-env', 'CAI_SECRET'], env);
    const body = join(dir, 'mock-event.json');
    writeFileSync(
      body,
      JSON.stringify({
        event: 'job.closed',
        event_id: 'x\u001b]0;pwned\u0007\u202e',
        lead_id: 'l\u001b[8m',
        outcome: 'no_answer',
        attempts: 1,
        occurred_at: '2026-11-22T13:05:00+00:00',
      }),
    );
    const sent = await spawnCli(['send-event', '--to', mock.url, '--provider', 'acme', '--body', body], { env });
    expect(sent.code).toBe(0);
    const line = await mock.waitForLine((text) => text.includes('job.closed'));
    expect(line).toContain('x\\x1b]0;pwned\\x07\\u202e  lead=l\\x1b[8m');
    expect(mock.lines.join('\n')).not.toMatch(ACTIVE);
  });
});

describe('finding 7: bounded reads, no secret echoed, URL passwords masked', () => {
  it('sign --body /dev/zero stops at the cap', async () => {
    const result = await spawnCli(['sign', '--body', '/dev/zero'], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: body file /dev/zero is over the 16 MiB cap; reading stopped there\nhint: an event is at most 256 KB (§8); check that this is the body you meant (caps: docs/limits.md)\n',
    });
  });

  it('a secret file given as a document, a body or a capture: where and what, never its characters', async () => {
    const secretFile = join(dir, 'events.secret');
    writeFileSync(secretFile, 'whsec_TopSecretValue123\n');
    for (const argv of [
      ['validate', secretFile],
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--body', secretFile],
      ['verify', '--request', secretFile],
      ['validate', '--catalog', secretFile, '-'],
      ['--config', secretFile, 'send-event', '--sample', '--dry-run'],
      ['sign', '--example', secretFile],
    ]) {
      const result = await spawnCli(argv, { env, stdin: '{}' });
      expect(`${result.stdout}${result.stderr}`, argv.join(' ')).not.toMatch(/whsec|TopSecret|Secret|Value123/);
      expect(result.code, argv.join(' ')).toBeGreaterThan(0);
    }
    const validated = await spawnCli(['validate', secretFile]);
    expect(validated.stdout).toBe(
      `${secretFile}: invalid document\n  (document): not JSON: found a letter where a value was expected at line 1, column 1\n1 document: 0 valid, 1 invalid (1 error, 0 warnings)\n`,
    );
  });

  it('a password inside a URL is *** in --json and on the terminal', async () => {
    const server = await answering(
      httpResponse('202 Accepted', { 'content-type': 'application/json' }, Buffer.from('{}')),
    );
    try {
      const url = server.url.replace('http://', 'http://user:hunter2pass@');
      const json = await spawnCli(['--json', 'send-event', '--to', url, '--provider', 'acme', '--sample'], { env });
      expect(json.stdout).not.toContain('hunter2pass');
      expect((JSON.parse(json.stdout) as { url: string }).url).toBe(url.replace('hunter2pass', '***'));
      const human = await spawnCli(
        ['send-event', '--to', url, '--provider', 'acme', '--sample', '--dry-run', '--format', 'curl'],
        { env },
      );
      expect(human.stdout).toContain('user:***@127.0.0.1');
      expect(`${human.stdout}${human.stderr}`).not.toContain('hunter2pass');
    } finally {
      await server.close();
    }
  });
});
