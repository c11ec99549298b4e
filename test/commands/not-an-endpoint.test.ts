/**
 * A URL that is not an endpoint of the interface is recognised on its first answer by every command that sends, as
 * `conformance run` recognises it: a 404, a 405, a 501 or an HTML page stops the send at once with the diagnosis
 * (exit 3, `not_an_endpoint`), where a 501 was retried for two minutes and a 404 taken for a refused document.
 * Any other first answer (a 5xx without a page, a 400) keeps its meaning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { deliver } from '../../src/http/deliver.js';
import { notAnEndpoint, notTheEndpoint } from '../../src/http/not-an-endpoint.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedAnswer, type ScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_not_an_endpoint_012345' };
const dir = mkdtempSync(join(tmpdir(), 'cai-not-an-endpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `python3 -m http.server` answers a POST: 501 and an HTML page. */
const STATIC_SERVER: ScriptedAnswer = {
  status: 501,
  headers: { 'content-type': 'text/html;charset=utf-8' },
  body: '<!DOCTYPE HTML>\n<html lang="en">\n<head><title>Error response</title></head>\n<body><h1>Error response</h1><p>Error code: 501</p></body>\n</html>\n',
};

let servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});
async function serve(script: ScriptedAnswer[]): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  servers.push(server);
  return server;
}

describe('send-event to a server that answers 501 with an HTML page', () => {
  it('stops at the first answer with the diagnosis, exit 3, one request (the built binary, well within 15 s)', async () => {
    const server = await serve([STATIC_SERVER]);
    const result = await spawnCli(['send-event', '--sample', '--to', `${server.url}/events`, '--provider', 'acme'], {
      env,
    });
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain(
      `error: ${server.url}/events is not an events endpoint: a signed event got 501 Not Implemented, an HTML page ("Error response"); expected 202 (§4.2, §7)\nhint: check --to: it is the events URL itself, where the provider POSTs its events (§4.2)\n`,
    );
    expect(result.stderr).not.toContain('retrying');
  });
});

describe('every sending command', () => {
  it.each([
    ['a 404', { status: 404, body: 'not found' }, '404 Not Found'],
    ['a 405', { status: 405, body: '' }, '405 Method Not Allowed'],
    [
      'a web page answered 200',
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<html><title>Welcome</title></html>' },
      '200 OK, an HTML page ("Welcome")',
    ],
  ] as const)('send-event, %s: not an events endpoint, exit 3', async (_name, answer, described) => {
    const server = await serve([answer as ScriptedAnswer]);
    const result = await runCli(['send-event', '--sample', '--to', `${server.url}/events`, '--provider', 'acme'], {
      env,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `is not an events endpoint: a signed event got ${described}; expected 202 (§4.2, §7)`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('send-job: names the contact-jobs endpoint and the path appended to --to', async () => {
    const server = await serve([STATIC_SERVER]);
    const result = await runCli(
      [
        'send-job',
        '--sample',
        '--to',
        server.url,
        '--source',
        'platform-eu',
        '--callback-url',
        'http://127.0.0.1:9/events',
      ],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `error: ${server.url}/contact-jobs is not a contact-jobs endpoint: a signed contact job got 501 Not Implemented, an HTML page ("Error response"); expected 202 with the acknowledgment of §2.3 (§4.1)\n`,
    );
    expect(result.stderr).toContain(
      'hint: check --to: it is the provider endpoint, without /contact-jobs, which is appended to it (§4.1)\n',
    );
  });

  it('replay: the same, for the interface the captured request names', async () => {
    const server = await serve([STATIC_SERVER]);
    const body = JSON.stringify(sampleEvent('job.closed'));
    const capture = join(dir, 'captured.http');
    writeFileSync(
      capture,
      `POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-CAI-Provider: acme\r\nX-CAI-Timestamp: 1\r\nX-CAI-Signature: sha256=${'0'.repeat(64)}\r\n\r\n${body}`,
    );
    const result = await runCli(['replay', '--request', capture, '--to', server.url], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('is not an events endpoint: a signed event got 501 Not Implemented');
    expect(server.requests).toHaveLength(1);
  });

  it('a batch stops at the first document, saying it once', async () => {
    const server = await serve([STATIC_SERVER]);
    const ndjson = [1, 2, 3].map(() => JSON.stringify(sampleEvent('job.closed'))).join('\n');
    const result = await runCli(
      ['send-event', '--ndjson', '-', '--concurrency', '1', '--to', `${server.url}/events`, '--provider', 'acme'],
      { env, stdin: ndjson },
    );
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr.match(/is not an events endpoint/g)).toHaveLength(1);
  });

  it('a 503 (no page) is still retried, and a 400 still a refusal of the document', async () => {
    const retried = await serve([
      { status: 503 },
      { status: 202, headers: { 'content-type': 'application/json' }, body: { ok: true } },
    ]);
    const ok = await runCli(
      ['send-event', '--sample', '--to', `${retried.url}/events`, '--provider', 'acme', '--initial-delay', '5ms'],
      { env },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(retried.requests).toHaveLength(2);
    const refused = await serve([
      { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_document' } },
    ]);
    const rejected = await runCli(['send-event', '--sample', '--to', `${refused.url}/events`, '--provider', 'acme'], {
      env,
    });
    expect(rejected.code).toBe(1);
  });

  it('only the first answer is judged: a 404 after a 503 is the receiver speaking, as before', async () => {
    const server = await serve([{ status: 503 }, { status: 404 }]);
    const result = await deliver(
      { url: server.url, body: Buffer.from('{}'), secret: 's', headers: { 'X-CAI-Provider': 'acme' } },
      { retry: { initialDelayMs: 5 } },
    );
    expect(result.outcome).toBe('rejected');
    expect(result.attempts).toHaveLength(2);
  });

  it('deliver({ endpointCheck: false }) leaves the judgement to the caller', async () => {
    const server = await serve([{ status: 404 }]);
    const result = await deliver(
      { url: server.url, body: Buffer.from('{}'), secret: 's', headers: {} },
      { endpointCheck: false },
    );
    expect(result.outcome).toBe('rejected');
  });
});

describe('the one judgement (src/http/not-an-endpoint.ts)', () => {
  it('describes what came back, and words the error for either interface', () => {
    expect(
      notTheEndpoint({
        status: 501,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from(STATIC_SERVER.body as string),
      }),
    ).toBe('501 Not Implemented, an HTML page ("Error response")');
    expect(notTheEndpoint({ status: 503, headers: {}, body: Buffer.alloc(0) })).toBeUndefined();
    expect(notAnEndpoint(undefined, 'http://x.test/', '404 Not Found', 'a signed request')).toEqual({
      message: 'http://x.test/ is not an endpoint of the interface: a signed request got 404 Not Found',
      hint: 'check --to: the events URL (§4.2), or the provider endpoint (§4.1)',
    });
  });
});
