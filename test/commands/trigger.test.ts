/**
 * `cai trigger`: the flows a provider sends (Interface B), each event signed, valid, with the flow's one lead,
 * ordered times and fresh ids, accepted by the platform's reference receiver (`cai mock platform`); the flow stops at
 * the first event not accepted; and `job` (Interface A): one job to the provider's reference receiver, its
 * conversation shown as it comes back, the time to first contact judged against §8. Real servers on 127.0.0.1:0.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildFlow, findFlow, FLOWS } from '../../src/send/flows.js';
import { startMockPlatform, type MockRequestEntry, type RunningMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';
import { sign } from '../../src/signing/sign.js';
import { verify } from '../../src/signing/verify.js';
import { validateDocument } from '../../src/spec/validate.js';
import { endsConversation } from '../../src/spec/event-types.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const SECRET = 'whsec_trigger_events_0123456789abcd';
const JOBS_SECRET = 'whsec_trigger_jobs_0123456789abcdef';
const env = { CAI_SECRET: SECRET };

let platform: RunningMockPlatform;
let entries: MockRequestEntry[] = [];
beforeAll(async () => {
  platform = await startMockPlatform({
    providerCode: 'acme',
    secrets: [SECRET],
    onRequest: (entry) => entries.push(entry),
  });
});
afterAll(() => platform.close());
afterEach(() => {
  entries = [];
});

const scripted: ScriptedServer[] = [];
afterAll(() => Promise.all(scripted.map((server) => server.close())));

describe('cai trigger --list', () => {
  it('names every flow, exit 0; --json lists them with their events', async () => {
    const result = await runCli(['trigger', '--list']);
    expect(result.code).toBe(0);
    for (const flow of FLOWS) expect(result.stdout).toContain(flow.name);
    const json = await runCli(['--json', 'trigger', '--list']);
    const { flows } = JSON.parse(json.stdout) as { flows: { name: string; interface: string; events: string[] }[] };
    expect(flows.find((flow) => flow.name === 'appointment-booked')?.events.at(-1)).toBe('appointment.booked');
    expect(flows.map((flow) => flow.name)).toEqual(
      expect.arrayContaining(['appointment-rescheduled', 'appointment-cancelled', 'job-closed-opted-out', 'job']),
    );
  });
});

describe('the flows, as data', () => {
  it.each(FLOWS.filter((flow) => flow.interface === 'B').map((flow) => [flow.name, flow] as const))(
    '%s: valid events, one lead, fresh ids, ordered times, ending with its result',
    (_name, flow) => {
      const { values, events } = buildFlow(flow, { now: new Date('2026-11-28T12:00:00Z') });
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const { document } of events) {
        expect(validateDocument(document, { kind: 'event' }).errors).toEqual([]);
        expect(document.lead_id).toBe(values.lead_id);
      }
      expect(new Set(events.map((event) => event.document.event_id)).size).toBe(events.length);
      const times = events.map((event) => Date.parse(String(event.document.occurred_at)));
      for (let index = 1; index < times.length; index += 1)
        expect(times[index]).toBeGreaterThan(times[index - 1] as number);
      expect(times.at(-1)).toBe(Date.parse('2026-11-28T12:00:00Z'));
      expect(endsConversation(events.at(-1)?.event as string)).toBe(true);
      expect(
        events.slice(0, -1).some((event) => endsConversation(event.event) && event.event === events.at(-1)?.event),
      ).toBe(false);
    },
  );

  it('docs/trigger.md lists every flow, with its interface', () => {
    const page = readFileSync(new URL('../../docs/trigger.md', import.meta.url), 'utf8');
    for (const flow of FLOWS) expect(page).toMatch(new RegExp(`^\\| \`${flow.name}\` \\| ${flow.interface} \\|`, 'm'));
  });

  it('every outcome of §2.12 has its flow; names are read with dots or underscores too', () => {
    for (const outcome of ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out']) {
      const flow = findFlow(`job.closed.${outcome}`);
      expect(buildFlow(flow!).events.at(-1)?.document.outcome).toBe(outcome);
    }
    expect(findFlow('appointment.booked')?.name).toBe('appointment-booked');
  });
});

describe('cai trigger <flow> (Interface B) against the platform mock', () => {
  it('appointment-booked: two or more events, one lead_id, the last appointment.booked, all accepted', async () => {
    const result = await runCli(
      [
        'trigger',
        'appointment-booked',
        '--to',
        platform.url,
        '--provider',
        'acme',
        '--secret-env',
        'CAI_SECRET',
        '--pace',
        '0',
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(entries.every((entry) => entry.verdict === 'accepted')).toBe(true);
    expect(new Set(entries.map((entry) => entry.lead_id)).size).toBe(1);
    expect(entries.at(-1)?.event).toBe('appointment.booked');
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, -1).every((line) => /^✔ \d\/\d /.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^appointment-booked: ${entries.length} of ${entries.length} events sent for lead ${entries[0]?.lead_id}: ${entries.length} new, 0 duplicates, 0 rejected, 0 not delivered$`,
      ),
    );
  });

  it.each(FLOWS.filter((flow) => flow.interface === 'B').map((flow) => flow.name))(
    '%s: every event accepted (--json)',
    async (name) => {
      const result = await runCli(
        ['--json', 'trigger', name, '--to', platform.url, '--provider', 'acme', '--pace', '0'],
        { env },
      );
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        ok: boolean;
        leadId: string;
        events: { verdict: string; document: Record<string, unknown> }[];
        summary: { accepted: number; events: number };
      };
      expect(report.ok).toBe(true);
      expect(report.summary.accepted).toBe(report.summary.events);
      expect(entries.map((entry) => entry.event)).toEqual(report.events.map((event) => event.document.event));
      expect(entries.every((entry) => entry.verdict === 'accepted' && entry.lead_id === report.leadId)).toBe(true);
    },
  );

  it('each event is signed over its bytes, with X-CAI-Provider; a second run sends fresh event_ids', async () => {
    const server = await startScriptedServer([
      { status: 202, headers: { 'content-type': 'application/json' }, body: { ok: true } },
    ]);
    scripted.push(server);
    const first = await runCli(
      ['trigger', 'job-closed-opted-out', '--to', `${server.url}/events`, '--provider', 'acme', '--pace', '0'],
      { env },
    );
    const second = await runCli(
      ['trigger', 'job-closed-opted-out', '--to', `${server.url}/events`, '--provider', 'acme', '--pace', '0'],
      { env },
    );
    expect(first.code + second.code).toBe(0);
    for (const request of server.requests) {
      expect(
        verify({
          secrets: SECRET,
          signature: request.headers['x-cai-signature'] as string,
          timestamp: request.headers['x-cai-timestamp'] as string,
          rawBody: request.body,
        }).valid,
      ).toBe(true);
      expect(request.headers['x-cai-provider']).toBe('acme');
    }
    const ids = server.requests.map(
      (request) => (JSON.parse(request.body.toString('utf8')) as { event_id: string }).event_id,
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stops at the first event not accepted: exit 1, the rest not sent', async () => {
    const server = await startScriptedServer([
      { status: 202, headers: { 'content-type': 'application/json' }, body: { ok: true } },
      { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_document' } },
    ]);
    scripted.push(server);
    const result = await runCli(
      ['trigger', 'appointment-booked', '--to', `${server.url}/events`, '--provider', 'acme', '--pace', '0'],
      { env },
    );
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(result.stdout).toMatch(/^✘ 2\/4 conversation\.message +rejected: 400 Bad Request \{/m);
    expect(result.stdout).toContain('appointment-booked: 2 of 4 events sent for lead ');
    expect(result.stdout).toContain(', 2 not sent');
  });

  it('a URL that is not an events endpoint: exit 3 at the first event, with the diagnosis', async () => {
    const server = await startScriptedServer([
      { status: 501, headers: { 'content-type': 'text/html' }, body: '<html><title>Error response</title></html>' },
    ]);
    scripted.push(server);
    const result = await spawnCli(
      ['trigger', 'appointment-booked', '--to', `${server.url}/events`, '--provider', 'acme'],
      { env },
    );
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain(
      'is not an events endpoint: a signed event got 501 Not Implemented, an HTML page ("Error response")',
    );
  });

  it('Ctrl-C between two events: no further event, exit 130, the summary says what was not sent', async () => {
    const interrupt = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (entries.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    const result = await runCli(
      ['trigger', 'appointment-rescheduled', '--to', platform.url, '--provider', 'acme', '--pace', '30s'],
      { env, interrupt },
    );
    expect(result.code).toBe(130);
    expect(entries).toHaveLength(1);
    expect(result.stderr).toContain('warning: interrupted: sending no further event of the flow');
    expect(result.stdout).toContain('appointment-rescheduled: 1 of 7 events sent for lead ');
  });

  it('--dry-run prints every request, signed, and sends nothing', async () => {
    const result = await runCli(
      ['trigger', 'appointment-booked', '--to', platform.url, '--provider', 'acme', '--dry-run'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^POST \/events HTTP\/1\.1$/gm)).toHaveLength(4);
    expect(result.stdout.match(/^X-CAI-Signature: sha256=[0-9a-f]{64}$/gm)).toHaveLength(4);
    expect(entries).toHaveLength(0);
  });
});

describe('cai trigger: usage', () => {
  it.each([
    [['trigger'], 'error: which flow to send?'],
    [
      ['trigger', 'apointment-booked', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme'],
      'error: no flow named apointment-booked (did you mean appointment-booked?)',
    ],
    [['trigger', 'appointment-booked', '--list'], 'error: --list names the flows; it takes no flow'],
    [
      ['trigger', 'appointment-booked', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--wait', '1m'],
      'error: --wait does not apply to appointment-booked',
    ],
    [
      ['trigger', 'job', '--to', 'http://127.0.0.1:9', '--source', 'p', '--provider', 'acme', '--pace', '1s'],
      'error: --pace does not apply to job',
    ],
    [['trigger', 'appointment-booked', '--provider', 'acme'], 'error: --to is required'],
  ])('%j → exit 2', async (argv, line) => {
    const result = await runCli(argv, { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toContain(line);
    expect(result.stderr).toMatch(/^hint: /m);
  });

  it('job, its --listen port taken: exit 2, and the hint names --listen (it takes no --port)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const result = await runCli(
        ['trigger', 'job', '--to', 'http://127.0.0.1:9', '--source', 'p', '--provider', 'acme'].concat([
          '--listen',
          `127.0.0.1:${port}`,
        ]),
        { env: { ...env, CAI_CALLBACK_SECRET: 'events-secret' } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use\nhint: choose another --listen HOST:PORT, or port 0 for any free port\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('cai trigger job (Interface A) against the provider mock', () => {
  const jobEnv = { CAI_SECRET: JOBS_SECRET, CAI_CALLBACK_SECRET: SECRET };

  it("sends one job, shows the provider's events as they come, and judges the first contact against §8", async () => {
    const provider = await startMockProvider({
      providerCode: 'acme',
      sourceId: 'platform-eu',
      secrets: [JOBS_SECRET],
      callbackSecrets: [SECRET],
      speed: 1000,
      scenario: { kind: 'closed', outcome: 'not_interested' },
    });
    try {
      const result = await runCli(
        ['trigger', 'job', '--to', provider.url, '--source', 'platform-eu', '--provider', 'acme', '--observe', '300ms'],
        { env: jobEnv },
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toMatch(
        /^✔ job accepted \(202 Accepted\): provider_job_id \S+, number \+\d+; waiting for the provider's events$/,
      );
      expect(lines.some((line) => /^\+\S+ +(ms|s) +agent \(\w+\): /.test(line))).toBe(true);
      expect(lines.some((line) => /job\.closed: not_interested after 1 attempt$/.test(line))).toBe(true);
      expect(lines.at(-2)).toMatch(/^✔ first contact after .+: within the 5 min of §8$/);
      expect(lines.at(-1)).toMatch(
        /^\d+ events from the provider in .+: \d+ messages \(\d+ outbound, \d+ inbound\), job\.closed; the conversation ended$/,
      );
    } finally {
      await provider.close();
    }
  });

  it('--json: the job, every event, the first contact and the target in one document', async () => {
    const provider = await startMockProvider({
      providerCode: 'acme',
      secrets: [JOBS_SECRET],
      callbackSecrets: [SECRET],
      speed: 1000,
      scenario: { kind: 'booked' },
    });
    try {
      const result = await runCli(
        [
          '--json',
          'trigger',
          'job',
          '--to',
          provider.url,
          '--source',
          'platform-eu',
          '--provider',
          'acme',
          '--observe',
          '300ms',
        ],
        { env: jobEnv },
      );
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        ok: boolean;
        withinTarget: boolean;
        targetMs: number;
        firstContactMs: number;
        callbacks: { verdict: string; event: string }[];
        job: { lead_id: string };
      };
      expect(report).toMatchObject({ ok: true, withinTarget: true, targetMs: 300_000 });
      expect(
        report.callbacks.some((callback) => callback.event === 'appointment.booked' && callback.verdict === 'accepted'),
      ).toBe(true);
    } finally {
      await provider.close();
    }
  });

  it("--listen and --public-url: the job's callback_url is the public address with the listener's path", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const provider = await startMockProvider({
      providerCode: 'acme',
      secrets: [JOBS_SECRET],
      callbackSecrets: [SECRET],
      speed: 1000,
      scenario: { kind: 'booked' },
    });
    try {
      const result = await runCli(
        [
          '--json',
          'trigger',
          'job',
          '--to',
          provider.url,
          '--source',
          'platform-eu',
          '--provider',
          'acme',
          '--listen',
          `127.0.0.1:${port}`,
          '--public-url',
          `http://127.0.0.1:${port}/`,
          '--observe',
          '300ms',
        ],
        { env: jobEnv },
      );
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as { callbackUrl: string; job: { callback_url: string } };
      expect(report.callbackUrl).toBe(`http://127.0.0.1:${port}/events`);
      expect(report.job.callback_url).toBe(report.callbackUrl);
    } finally {
      await provider.close();
    }
  });

  it('events signed with another secret are refused by the listener, shown, and fail the run (exit 1)', async () => {
    const provider = await startMockProvider({
      providerCode: 'acme',
      secrets: [JOBS_SECRET],
      callbackSecrets: ['whsec_not_the_events_secret_0000'],
      speed: 1000,
      scenario: { kind: 'closed', outcome: 'wrong_number' },
    });
    try {
      const result = await runCli(
        [
          'trigger',
          'job',
          '--to',
          provider.url,
          '--source',
          'platform-eu',
          '--provider',
          'acme',
          '--wait',
          '10m',
          '--observe',
          '300ms',
          '--no-retry',
        ],
        { env: jobEnv },
      );
      expect(result.code).toBe(1);
      // Not the ten minutes of --wait: the provider stopped at the refusal, and the run had failed with it.
      expect(result.stdout).toMatch(
        /; stopped after a refused event and the quiet after it \(--observe\): the run has failed$/m,
      );
      expect(result.stdout).toMatch(/^\+\S+ +(ms|s) +✘ refused 401 invalid_signature: /m);
      expect(result.stdout).toContain('✘ no first contact: no outbound message came (§8: within 5 min of the job)');
    } finally {
      await provider.close();
    }
  });

  it('--json keeps an event nested deeper than cai walks as its text: a hostile provider cannot overflow the stack', async () => {
    // A provider of its own (not cai's mock): it acknowledges the job, then sends a message with an unknown field
    // nested 20 000 deep (valid JSON, under 256 KB, accepted by §9.2) and job.closed.
    const provider = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', async () => {
        const job = JSON.parse(Buffer.concat(parts).toString('utf8')) as { lead_id: string; callback_url: string };
        response.writeHead(202, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ provider_job_id: 'pj_deep', assigned_number_e164: '+34910000001' }));
        const base = { lead_id: job.lead_id, provider_job_id: 'pj_deep', occurred_at: new Date().toISOString() };
        const bodies = [
          `${JSON.stringify({ ...base, event: 'conversation.message', event_id: 'evt_deep_1', channel: 'sms', direction: 'outbound', author: 'agent', text: 'hola', from_number_e164: '+34910000001', to_number_e164: '+34600000000' }).slice(0, -1)},"x_deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
          JSON.stringify({ ...base, event: 'job.closed', event_id: 'evt_deep_2', outcome: 'no_answer', attempts: 1 }),
        ];
        for (const body of bodies) {
          const timestamp = String(Math.floor(Date.now() / 1000));
          await fetch(job.callback_url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-cai-provider': 'acme',
              'x-cai-timestamp': timestamp,
              'x-cai-signature': sign(SECRET, timestamp, body),
            },
            body,
          });
        }
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = provider.address() as AddressInfo;
      const result = await runCli(
        [
          '--json',
          'trigger',
          'job',
          '--to',
          `http://127.0.0.1:${port}`,
          '--source',
          'platform-eu',
          '--provider',
          'acme',
          '--observe',
          '300ms',
        ],
        { env: jobEnv },
      );
      expect(result.stderr).not.toContain('internal');
      const report = JSON.parse(result.stdout) as {
        callbacks: { eventId: string; body?: string; document?: unknown }[];
      };
      const deep = report.callbacks.find((callback) => callback.eventId === 'evt_deep_1');
      expect(deep?.document).toBeUndefined();
      expect(deep?.body).toContain('"x_deep":[[[');
      expect(report.callbacks.find((callback) => callback.eventId === 'evt_deep_2')?.document).toBeDefined();
    } finally {
      await new Promise((resolve) => provider.close(resolve));
    }
  });

  it('a provider that refuses the job: exit 1, no wait', async () => {
    const server = await startScriptedServer([
      { status: 401, headers: { 'content-type': 'application/json' }, body: { error: 'invalid_signature' } },
    ]);
    scripted.push(server);
    const result = await runCli(
      ['trigger', 'job', '--to', server.url, '--source', 'platform-eu', '--provider', 'acme'],
      { env: jobEnv },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✘ job rejected: 401 Unauthorized /);
  });
});
