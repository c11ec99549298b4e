import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeIo, runCli } from '../helpers/cli.js';
import { run } from '../../src/main.js';
import { startScriptedServer, TLS_FIXTURE, type ScriptedServer } from '../helpers/scripted-server.js';
import { verify } from '../../src/signing/verify.js';
import { parseRawRequest } from '../../src/http/raw-request.js';

const SECRET = 'whsec_send_command_test';
const env = { CAI_SECRET: SECRET };
const ACK = { provider_job_id: 'pj_42', assigned_number_e164: '+447700900123' };

let servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serve(...args: Parameters<typeof startScriptedServer>): Promise<ScriptedServer> {
  const server = await startScriptedServer(...args);
  servers.push(server);
  return server;
}

function expectSignedFresh(server: ScriptedServer, secret = SECRET): void {
  const first = server.requests[0]?.body;
  for (const received of server.requests) {
    expect(received.body.equals(first as Buffer)).toBe(true);
    const result = verify({
      secrets: secret,
      signature: received.headers['x-cai-signature'] as string,
      timestamp: received.headers['x-cai-timestamp'] as string,
      rawBody: received.body,
    });
    expect(result.reason).toBe('ok');
  }
  const ids = server.requests.map((r) => JSON.parse(r.body.toString('utf8')).event_id as string);
  expect(new Set(ids).size).toBe(1);
}

const event = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'job.closed',
    event_id: 'evt_cmd_0001',
    lead_id: 'lead_1',
    outcome: 'no_answer',
    attempts: 3,
    occurred_at: '2026-11-22T13:00:00+00:00',
    ...overrides,
  });

async function tempFile(name: string, content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cai-send-'));
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

describe('cai send-event', () => {
  it('503, 503, 202: exit 0 after three freshly signed attempts of the same bytes', async () => {
    const server = await serve([{ status: 503 }, { status: 503 }, { status: 202, body: { ok: true } }]);
    const result = await runCli(
      ['send-event', '--to', `${server.url}/events`, '--provider', 'acme', '--sample', '--initial-delay', '5ms'],
      { env },
    );
    expect(result.stderr).toContain('attempt 1: 503 Service Unavailable');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('accepted: a new event');
    expect(result.stdout).toMatch(/attempts\s+3 \(503 → 503 → 202\)/);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]?.url).toBe('/events');
    expect(server.requests[0]?.headers['x-cai-provider']).toBe('acme');
    expectSignedFresh(server);
  });

  it('429 with Retry-After: waits what it asks (in --json) and reports it', async () => {
    const server = await serve([{ status: 429, headers: { 'retry-after': '1' } }, { status: 202 }]);
    const file = await tempFile('event.json', event());
    const result = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--body', file, '--json'], {
      env,
    });
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.verdict).toBe('accepted');
    expect(doc.attempts.map((a: { status: number }) => a.status)).toEqual([429, 202]);
    expect(doc.attempts[0].retryAfter).toBe('1');
    expect(doc.attempts[0].waitMs).toBe(1000);
    expect(doc.attempts[0].signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(result.stdout).not.toContain(SECRET);
    expectSignedFresh(server);
  });

  it('400: rejected, exit 1, one attempt, the §7 advice', async () => {
    const server = await serve([{ status: 400, body: { error: 'schema' } }]);
    const result = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('rejected: 400 Bad Request (§7: invalid schema');
    expect(result.stdout).toContain('"error": "schema"');
    expect(server.requests).toHaveLength(1);
  });

  it('says duplicate for the §2.13 answer, and rejects a malformed one', async () => {
    const server = await serve([
      { status: 202, body: { ok: true, duplicate: true } },
      { status: 200, body: { ok: true, duplicate: true } },
    ]);
    const first = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--json'], { env });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ verdict: 'duplicate', duplicate: true });
    const second = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { env });
    expect(second.code).toBe(1);
    expect(second.stdout).toContain('a duplicate is answered with status 202, not 200 (§2.13)');
  });

  it('a receiver slower than --timeout: exit 3 with one error and one hint', async () => {
    const server = await serve([{ status: 202, delayMs: 5000 }]);
    const result = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--timeout', '100ms', '--no-retry'],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `error: delivery failed after 1 attempt: no complete response from ${server.url} within 100 ms; retries are off\n`,
    );
    expect(result.stderr).toContain('hint: drop --no-retry');
  });

  it('a duplicate after its own attempt timed out is named the repeat of that attempt, not of an earlier send', async () => {
    const server = await serve([
      { status: 202, delayMs: 3000, body: { ok: true } },
      { status: 202, body: { ok: true, duplicate: true } },
    ]);
    const result = await runCli(
      [
        'send-event',
        '--to',
        server.url,
        '--provider',
        'acme',
        '--sample',
        '--timeout',
        '200ms',
        '--initial-delay',
        '10ms',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^✔ accepted as a duplicate \(202 Accepted\) of this send's own earlier attempt, which reached/m,
    );
  });

  it('a redirect: not followed, exit 3, the Location named', async () => {
    const server = await serve([{ status: 301, headers: { location: 'https://new.example/events' } }]);
    const result = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'error: the receiver answered 301 redirecting to https://new.example/events; redirects are not followed\n',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('TLS: refused without --ca (exit 3), accepted with --ca or --insecure (with a warning)', async () => {
    const server = await serve([{ status: 202 }], { tls: { key: TLS_FIXTURE.key, cert: TLS_FIXTURE.cert } });
    const refused = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/error: TLS with https:\/\/127\.0\.0\.1:\d+ failed/);
    expect(refused.stderr).toContain('hint: pass --ca FILE');
    const trusted = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--ca', TLS_FIXTURE.caFile],
      { env },
    );
    expect(trusted.code).toBe(0);
    const insecure = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--insecure'], {
      env,
    });
    expect(insecure.code).toBe(0);
    expect(insecure.stderr).toContain('warning: --insecure: the TLS certificate is NOT verified');
    expect(server.requests).toHaveLength(2);
  });

  it("a placeholder host (cai config init's platform.example) is named as such at once, not retried (exit 3)", async () => {
    const result = await runCli(
      [
        'send-event',
        '--to',
        'https://platform.example/test/cai/events',
        '--provider',
        'acme',
        '--sample',
        '--retry-for',
        '5s',
      ],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "error: cannot reach https://platform.example: platform.example is a placeholder (names under .example and .invalid never resolve, RFC 2606)\nhint: pass the receiver's real address with --to",
    );
  });

  it('https to a plain-HTTP port: one error line that says so, and a hint to use http:// (exit 3)', async () => {
    const server = await serve([{ status: 202 }]);
    const url = server.url.replace('http:', 'https:');
    const result = await runCli(['send-event', '--to', url, '--provider', 'acme', '--sample', '--no-retry'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: TLS with https:\/\/127\.0\.0\.1:\d+ failed: the server answered in plain HTTP, not TLS \(ERR_SSL_WRONG_VERSION_NUMBER\)\nhint: use an http:\/\/ URL/m,
    );
    expect(result.stderr.split('\n').filter((line) => line.startsWith('error:'))).toHaveLength(1);
    expect(result.stderr).not.toContain('ssl3_record');
  });

  it('refuses an invalid body unless --no-validate', async () => {
    const server = await serve([{ status: 400 }]);
    const file = await tempFile('bad.json', event({ outcome: 'maybe' }));
    const refused = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--body', file], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('not sent: the body is not a valid event');
    expect(refused.stdout).toContain('outcome');
    expect(refused.stderr).toBe(
      'error: the body is invalid (1 error): not sent\nhint: correct the body, or pass --no-validate to send it anyway (to test a receiver on purpose)\n',
    );
    expect(server.requests).toHaveLength(0);
    const sent = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--body', file, '--no-validate'],
      { env },
    );
    expect(sent.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.toString('utf8')).toBe(event({ outcome: 'maybe' }));
  });

  it('--set and --unset shape a sample; with --body they are refused (exit 2)', async () => {
    const server = await serve([{ status: 202 }]);
    const result = await runCli(
      [
        'send-event',
        '--to',
        server.url,
        '--provider',
        'acme',
        '--sample',
        'job.closed',
        '--set',
        'outcome=opted_out',
        '--set',
        'attempts=5',
        '--unset',
        'lead_id',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const sent = JSON.parse(server.requests[0]?.body.toString('utf8') ?? '{}');
    expect(sent).toMatchObject({ event: 'job.closed', outcome: 'opted_out', attempts: 5 });
    expect(sent.lead_id).toBeUndefined();
    const file = await tempFile('event.json', event());
    const refused = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--body', file, '--set', 'outcome=x'],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'error: --set and --unset work with --sample only\nhint: a --body file is sent byte for byte (§5.2): edit the file instead\n',
    );
  });

  it('--dry-run prints a raw request that verifies, and a curl command; sends nothing', async () => {
    const file = await tempFile('event.json', event());
    const raw = await runCli(
      ['send-event', '--to', 'https://platform.example/cai/events', '--provider', 'acme', '--body', file, '--dry-run'],
      { env },
    );
    expect(raw.code).toBe(0);
    const parsed = parseRawRequest(Buffer.from(raw.stdout, 'latin1'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.request.target).toBe('/cai/events');
    expect(parsed.request.headers.host).toBe('platform.example');
    expect(parsed.request.body.toString('utf8')).toBe(event());
    expect(
      verify({
        secrets: SECRET,
        signature: parsed.request.headers['x-cai-signature'],
        timestamp: parsed.request.headers['x-cai-timestamp'],
        rawBody: parsed.request.body,
      }).valid,
    ).toBe(true);
    const curl = await runCli(
      [
        'send-event',
        '--to',
        'https://platform.example/cai/events',
        '--provider',
        'acme',
        '--body',
        file,
        '--dry-run',
        '--format',
        'curl',
      ],
      { env },
    );
    expect(curl.stdout).toContain('curl -sS -i -X POST https://platform.example/cai/events');
    expect(curl.stdout).toContain("-H 'X-CAI-Provider: acme'");
    expect(curl.stdout).toContain(`--data-binary @${file}`);
  });

  it('--verbose shows the request headers of every attempt, the signature but never the secret', async () => {
    const server = await serve([{ status: 500 }, { status: 202 }]);
    const result = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--verbose', '--initial-delay', '1ms'],
      { env },
    );
    expect(result.code).toBe(0);
    const signatures = result.stderr.split('\n').filter((line) => line.startsWith('> X-CAI-Signature: sha256='));
    expect(signatures).toHaveLength(2);
    expect(signatures).toEqual(server.requests.map((r) => `> X-CAI-Signature: ${r.headers['x-cai-signature']}`));
    expect(result.stderr).toContain('> X-CAI-Provider: acme');
    expect(result.stderr + result.stdout).not.toContain(SECRET);
  });

  it('a results file that cannot be written stops the batch before anything is sent (exit 2)', async () => {
    const server = await serve([{ status: 202 }]);
    const input = await tempFile('events.ndjson', event());
    const result = await runCli(
      [
        'send-event',
        '--to',
        server.url,
        '--provider',
        'acme',
        '--ndjson',
        input,
        '--output',
        '/nonexistent-dir/results.ndjson',
      ],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: cannot write the results file \/nonexistent-dir\/results.ndjson: /);
    expect(server.requests).toHaveLength(0);
  });

  it('Ctrl-C during a retry wait: no further attempt, exit 130, says so', async () => {
    let release: () => void = () => {};
    const interrupt = new Promise<void>((resolve) => (release = resolve));
    const server = await serve(() => {
      setTimeout(release, 10);
      return { status: 503 };
    });
    const result = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--initial-delay', '20s'],
      { env, interrupt },
    );
    expect(result.code).toBe(130);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('warning: interrupted: no further attempt will be made');
    expect(result.stderr).toContain('error: interrupted after 1 attempt(s), before the next one\n');
  });

  it('Ctrl-C twice during the first attempt: says the request may have arrived, not that nothing was sent', async () => {
    const io = fakeIo({ env });
    const server = await serve(() => {
      // The request has arrived: the first Ctrl-C lets it finish, the second aborts it.
      setTimeout(() => {
        io.interrupt();
        io.interrupt();
      }, 10);
      return { status: 202, delayMs: 20_000 };
    });
    const code = await run(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], io);
    expect(code).toBe(130);
    expect(server.requests).toHaveLength(1);
    expect(io.err()).toContain(
      'error: interrupted during attempt 1, before its answer: the receiver may have the request\n' +
        'hint: send the same document again to be sure: a repeated event_id is ignored (§6.1)\n',
    );
  });

  it('--print-schedule prints the plan without --to', async () => {
    const result = await runCli(['send-event', '--print-schedule', '--retry-for', '10s'], { env: {} });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('within --retry-for 10 s');
    expect(result.stdout).toContain('attempt 4    after 2 s–4 s');
  });

  it('usage errors: missing --to, missing secret, bad event type', async () => {
    const noTo = await runCli(['send-event', '--provider', 'acme', '--sample'], { env });
    expect(noTo.code).toBe(2);
    expect(noTo.stderr).toBe(
      'error: --to is required\nhint: pass the events URL, e.g. --to https://platform.example/cai/events\n',
    );
    const noSecret = await runCli(['send-event', '--to', 'http://127.0.0.1:9/', '--provider', 'acme', '--sample'], {
      env: {},
    });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^error: .*secret/);
    const badType = await runCli(
      ['send-event', '--to', 'http://127.0.0.1:9/', '--provider', 'acme', '--sample', 'job.open'],
      { env },
    );
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('error: --sample job.open: not an event type\n');
  });
});

describe('cai send-job', () => {
  it('POSTs to {to}/contact-jobs with X-CAI-Source and checks the acknowledgment', async () => {
    const server = await serve([{ status: 202, body: ACK }]);
    const result = await runCli(
      [
        'send-job',
        '--to',
        `${server.url}/cai/`,
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('job accepted (202 Accepted)');
    expect(result.stdout).toMatch(/provider_job_id\s+pj_42/);
    expect(server.requests[0]?.url).toBe('/cai/contact-jobs');
    expect(server.requests[0]?.headers['x-cai-source']).toBe('platform');
    expect(JSON.parse(server.requests[0]?.body.toString('utf8') ?? '{}').callback_url).toBe(
      'https://platform.example/cb',
    );
    expectSignedFresh(server);
  });

  it('takes --to, --source, the secret and --callback-url from a deployment profile; a --body send ignores the latter', async () => {
    const server = await serve([{ status: 202, body: ACK }]);
    const config = await tempFile(
      'cai.config.json',
      JSON.stringify({
        version: 1,
        default_env: 'test',
        environments: {
          test: {
            provider_code: 'acme',
            platform_id: 'platform-x',
            provider_endpoint: `${server.url}/p`,
            events_url: 'https://platform.example/cai/events',
            branches: [{ branch_code: 'BR-001', name: 'Main' }],
            secrets: { jobs: { env: 'JOBS_SECRET' }, events: { env: 'EVENTS_SECRET' } },
          },
        },
      }),
    );
    const job = await tempFile(
      'job.json',
      JSON.stringify({
        lead_id: 'l1',
        event_id: 'e1',
        branch_code: 'BR-001',
        contact: { name: 'A', phone_e164: '+447700900123' },
        callback_url: 'https://platform.example/cb',
      }),
    );
    const viaBody = await runCli(['send-job', '--config', config, '--body', job], {
      env: { JOBS_SECRET: 'whsec_jobs' },
    });
    expect(viaBody.stderr).toBe('');
    expect(viaBody.code).toBe(0);
    const viaSample = await runCli(['send-job', '--config', config, '--sample'], {
      env: { JOBS_SECRET: 'whsec_jobs' },
    });
    expect(viaSample.code).toBe(0);
    expect(server.requests.map((r) => [r.url, r.headers['x-cai-source']])).toEqual([
      ['/p/contact-jobs', 'platform-x'],
      ['/p/contact-jobs', 'platform-x'],
    ]);
    expect(JSON.parse(server.requests[1]?.body.toString('utf8') ?? '{}').callback_url).toBe(
      'https://platform.example/cai/events',
    );
    for (const received of server.requests) {
      expect(
        verify({
          secrets: 'whsec_jobs',
          signature: received.headers['x-cai-signature'] as string,
          timestamp: received.headers['x-cai-timestamp'] as string,
          rawBody: received.body,
        }).valid,
      ).toBe(true);
    }
  });

  it('a 202 whose acknowledgment breaks §2.3 is rejected, naming the deviation', async () => {
    const server = await serve([
      { status: 202, headers: { 'content-type': 'text/plain' }, body: '{"provider_job_id":7}' },
    ]);
    const result = await runCli(['send-job', '--to', server.url, '--source', 'platform', '--sample', '--json'], {
      env,
    });
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout);
    expect(doc.verdict).toBe('rejected');
    expect(doc.problems).toEqual([
      'Content-Type is "text/plain": §4.1 answers with application/json',
      'provider_job_id is number 7, not a non-empty string (§2.3)',
      'assigned_number_e164 is missing (§2.3)',
    ]);
  });
});

describe('batch mode', () => {
  const lines = (count: number) =>
    Array.from({ length: count }, (_, i) => event({ event_id: `evt_batch_${String(i + 1).padStart(3, '0')}` }));

  it('sends every line, records results, and --resume sends only what was not accepted', async () => {
    let failing = true;
    const server = await serve((request) => {
      const id = JSON.parse(request.body.toString('utf8')).event_id as string;
      if (id === 'evt_batch_003') return { status: 400, body: { error: 'no' } };
      if (id === 'evt_batch_005' && failing) return { status: 503 };
      return { status: 202 };
    });
    const input = await tempFile(
      'events.ndjson',
      `${lines(6).join('\n')}\n\n${event({ event_id: 'evt_batch_bad', outcome: 'nope' })}\n`,
    );
    const output = join(input, '..', 'results.ndjson');
    const first = await runCli(
      [
        'send-event',
        '--to',
        server.url,
        '--provider',
        'acme',
        '--ndjson',
        input,
        '--output',
        output,
        '--concurrency',
        '3',
        '--no-retry',
      ],
      { env },
    );
    expect(first.code).toBe(3);
    expect(first.stdout).toMatch(/accepted\s*│\s*4/);
    expect(first.stdout).toMatch(/rejected 400\s*│\s*1/);
    expect(first.stdout).toMatch(/failed \(delivery\)\s*│\s*1/);
    expect(first.stdout).toMatch(/invalid \(not sent\)\s*│\s*1/);
    expect(first.stderr).toContain('line 3 (evt_batch_003): rejected: status 400');
    expect(first.stderr).toContain('line 8 (evt_batch_bad): not sent, invalid');
    const records = (await readFile(output, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records).toHaveLength(7);
    expect(records.find((r) => r.eventId === 'evt_batch_005')).toMatchObject({
      verdict: 'failed',
      status: 503,
      attempts: 1,
    });
    expect(server.requests).toHaveLength(6);

    failing = false;
    const second = await runCli(
      [
        'send-event',
        '--to',
        server.url,
        '--provider',
        'acme',
        '--ndjson',
        input,
        '--resume',
        output,
        '--output',
        output,
        '--json',
      ],
      { env },
    );
    const out = second.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const summary = out.at(-1).summary;
    expect(summary).toMatchObject({ total: 7, skipped: 4, accepted: 1, rejected: 1, invalid: 1 });
    expect(second.code).toBe(1);
    // Only evt_batch_003 and evt_batch_005 were sent again.
    const resent = server.requests
      .slice(6)
      .map((r) => JSON.parse(r.body.toString('utf8')).event_id)
      .sort();
    expect(resent).toEqual(['evt_batch_003', 'evt_batch_005']);
  });

  it('Ctrl-C: what is on the wire finishes, nothing else starts, nothing is sent twice, every document is accounted for', async () => {
    let release: () => void = () => {};
    const interrupt = new Promise<void>((resolve) => (release = resolve));
    const server = await serve((_request, index) => {
      if (index === 1) setTimeout(release, 20);
      return { status: 202, delayMs: 150 };
    });
    const input = await tempFile('events.ndjson', lines(12).join('\n'));
    const result = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--ndjson', input, '--concurrency', '2', '--json'],
      { env, interrupt },
    );
    const out = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const summary = out.at(-1).summary;
    const records = out.slice(0, -1);
    expect(records).toHaveLength(12);
    expect(summary.interrupted).toBe(true);
    expect(summary.accepted).toBe(server.requests.length);
    expect(summary.notSent).toBe(12 - server.requests.length);
    expect(summary.notSent).toBeGreaterThan(0);
    const ids = server.requests.map((r) => JSON.parse(r.body.toString('utf8')).event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      records
        .filter((r: { verdict: string }) => r.verdict === 'accepted')
        .map((r: { eventId: string }) => r.eventId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('warning: interrupted: finishing the requests in flight');
  });

  it('Ctrl-C twice with requests in flight: they are reported interrupted, never as retried', async () => {
    const io = fakeIo({ env });
    let arrived = 0;
    const server = await serve(() => {
      // Both requests have arrived: the first Ctrl-C lets them finish, the second aborts them.
      arrived += 1;
      if (arrived === 2)
        setTimeout(() => {
          io.interrupt();
          io.interrupt();
        }, 10);
      return { status: 202, delayMs: 20_000 };
    });
    const input = await tempFile('events.ndjson', lines(4).join('\n'));
    const code = await run(
      ['send-event', '--to', server.url, '--provider', 'acme', '--ndjson', input, '--concurrency', '2'],
      io,
    );
    expect(code).toBe(130);
    expect(io.err()).toContain('warning: aborting the requests in flight');
    expect(io.err()).not.toContain('retrying');
    expect(io.err()).not.toContain('UND_ERR');
    expect(io.out()).toMatch(/│ failed \(delivery\) +│ 2 +│/);
  });

  it('Ctrl-C while --rate paces the batch: the wait ends, the summary and the --resume hint are printed', async () => {
    let release: () => void = () => {};
    const interrupt = new Promise<void>((resolve) => (release = resolve));
    const server = await serve(() => {
      setTimeout(release, 20);
      return { status: 202 };
    });
    const input = await tempFile('events.ndjson', lines(3).join('\n'));
    const results = await tempFile('results.ndjson', '');
    const result = await runCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--ndjson', input, '--rate', '1/h', '--output', results],
      { env, interrupt },
    );
    expect(server.requests).toHaveLength(1);
    expect(result.stdout).toContain('interrupted: 2 document(s) not sent: line(s) 2-3');
    expect(result.stderr).toContain(`hint: send the rest with --resume ${results} --output ${results}\n`);
    expect(result.code).toBe(130);
    // Each record is written as its document ends: the first may end after the stop, its answer still on the wire.
    const recorded = (await readFile(results, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number; verdict: string })
      .sort((a, b) => a.line - b.line);
    expect(recorded.map((record) => [record.line, record.verdict])).toEqual([
      [1, 'accepted'],
      [2, 'not-sent'],
      [3, 'not-sent'],
    ]);
  });
});

describe('cai replay', () => {
  it('re-sends a captured request with a fresh signature, or unchanged with --keep-timestamp', async () => {
    const server = await serve([{ status: 202 }]);
    const file = await tempFile('event.json', event());
    const dry = await runCli(
      ['send-event', '--to', 'https://platform.example/cai/events', '--provider', 'acme', '--body', file, '--dry-run'],
      { env, now: Date.parse('2026-01-01T00:00:00Z') },
    );
    const capture = await tempFile('captured.http', dry.stdout);
    const fresh = await runCli(['replay', '--request', capture, '--to', server.url], { env });
    expect(fresh.code).toBe(0);
    expect(server.requests[0]?.url).toBe('/cai/events');
    expect(server.requests[0]?.headers['x-cai-provider']).toBe('acme');
    expect(server.requests[0]?.body.toString('utf8')).toBe(event());
    expectSignedFresh(server);

    const kept = await runCli(['replay', '--request', capture, '--to', `${server.url}/other`, '--keep-timestamp'], {
      env: {},
    });
    expect(kept.code).toBe(0);
    expect(kept.stderr).toContain('outside the ±300 s window (§5.5); a conforming receiver answers 401');
    expect(server.requests[1]?.url).toBe('/other');
    expect(server.requests[1]?.headers['x-cai-timestamp']).toBe(String(Date.parse('2026-01-01T00:00:00Z') / 1000));
  });

  it('--keep-timestamp --dry-run says the captured headers go out as they are, and names a malformed timestamp', async () => {
    const capture = await tempFile(
      'malformed.http',
      `POST /cai/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-CAI-Provider: acme\r\nX-CAI-Timestamp: 17xx\r\nX-CAI-Signature: sha256=${'0'.repeat(64)}\r\n\r\n${event()}`,
    );
    const result = await runCli(
      ['replay', '--request', capture, '--to', 'http://127.0.0.1:9', '--keep-timestamp', '--dry-run'],
      { env: {} },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('X-CAI-Timestamp: 17xx\r\n');
    expect(result.stderr).toContain(
      'warning: the captured X-CAI-Timestamp "17xx" is not an integer number of unix seconds (§4): it is sent as it is, and a conforming receiver answers 401',
    );
    expect(result.stderr).toContain('A real send keeps the captured X-CAI-Timestamp and X-CAI-Signature');
    expect(result.stderr).not.toContain('signs afresh');
  });

  it('refuses a file that is not a request (exit 2)', async () => {
    const capture = await tempFile('captured.http', 'hello');
    const result = await runCli(['replay', '--request', capture, '--to', 'http://127.0.0.1:9'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${capture} is not a raw HTTP request`);
  });
});
