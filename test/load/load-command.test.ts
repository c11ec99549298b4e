/**
 * `cai load` through the built binary: against the reference receiver (`--mock`) and against independent
 * receivers written in plain Node (test/load/receivers.ts): a correct fast one passes the thresholds, a slow one
 * and a 503-ing one fail them (exit 1), a 429-ing one with no failing threshold exits 0. Every request sent is
 * counted, event_ids are unique across runs and processes, repeats come back as duplicates, and bad usage is one
 * `error:` and one `hint:` with exit 2. Runs of 1–2 s at low rates.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';
import type { LoadReport } from '../../src/load/report.js';
import { startReceiver, type TestReceiver } from './receivers.js';

const SECRET = 'whsec_load_test_secret';
const env = { CAI_SECRET: SECRET };
const receivers: TestReceiver[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<TestReceiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

function load(url: string, ...flags: string[]) {
  return spawnCli(['load', '--to', url, '--provider', 'acme', ...flags], { env });
}

describe('cai load against a correct receiver', () => {
  it('passes its thresholds; every request counted, every repeat confirmed, event_ids unique across two processes', async () => {
    const target = await receiver('correct', SECRET);
    const flags = [
      '--rate',
      '40/s',
      '--duration',
      '2s',
      '--repeat',
      '20%',
      '--mix',
      'conversation.message=80,job.closed=20',
      '--json',
    ];
    const thresholds = [
      '--threshold',
      'http_req_duration: p(99)<10000',
      '--threshold',
      'rate(status=5xx) < 0.005',
      '--threshold',
      'status=401 == 0',
      '--threshold',
      'repeats_unrecognised: count == 0',
    ];
    // Two processes at once against one receiver: a shared event_id would come back as a duplicate nobody repeated.
    const [first, second] = await Promise.all([load(target.url, ...flags, ...thresholds), load(target.url, ...flags)]);
    expect(first.stderr).toBe(`cai load: ${target.url}: 40/s for 2 s\n`);
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    const reports = [first, second].map((result) => JSON.parse(result.stdout) as LoadReport);
    const [report] = reports as [LoadReport];
    expect(report.ok).toBe(true);
    expect(report.thresholds.map((verdict) => [verdict.expression, verdict.ok])).toEqual([
      ['http_req_duration: p(99)<10000', true],
      ['rate(status=5xx) < 0.005', true],
      ['status=401 == 0', true],
      ['repeats_unrecognised: count == 0', true],
    ]);
    expect(Object.keys(report.statuses)).toEqual(['202']);
    expect(report.statuses['202']).toBe(report.requests.sent);
    expect(report.requests.sent).toBeGreaterThan(0);
    expect(report.achievedRatePerSecond).toBeGreaterThan(0);
    expect(report.duplicatesConfirmed).toBeGreaterThan(0);
    // The receiver saw exactly what the two runs say they sent: no unreported warm-up, nothing uncounted.
    expect(target.requests).toBe(reports.reduce((sum, run) => sum + run.requests.sent, 0));
    expect(target.badSignatures).toBe(0);
    expect(target.duplicates).toBe(reports.reduce((sum, run) => sum + run.duplicatesConfirmed, 0));
    expect(new Set(target.ids).size).toBe(target.ids.length);
    expect(target.ids.length).toBe(
      reports.reduce((sum, run) => sum + run.requests.sent - run.duplicates.repeatsSent, 0),
    );
    expect(target.ids.every((id) => /^evt_[0-9a-f]{16}_[0-9a-z]+$/.test(id))).toBe(true);
  });

  it('prints the thresholds ✓/✗ and the counts per status as a summary on stdout', async () => {
    const target = await receiver('correct', SECRET);
    const result = await load(
      target.url,
      '--rate',
      '20/s',
      '--duration',
      '1s',
      '--threshold',
      'http_req_duration: p(99)<10000',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^cai load: interface B, http:\/\/127\.0\.0\.1:\d+\/events\n\nthresholds\n {2}✓ http_req_duration: p\(99\)<10000 {2}p\(99\)=/,
    );
    expect(result.stdout).toMatch(/\nrequests +\d+ sent of 20 planned, \d+ answered, 0 failed/);
    expect(result.stdout).toMatch(/│ 202 +│ \d+ +│ 100\.0 % │/);
    expect(result.stdout).toMatch(/\n1 threshold: 1 passed, 0 failed\n$/);
  });
});

describe('cai load against broken receivers', () => {
  it('fails a latency threshold against a slow receiver (exit 1), and keeps its schedule: what cannot go is dropped', async () => {
    const target = await receiver('slow', SECRET, { delayMs: 300 });
    const [result, capped] = await Promise.all([
      load(target.url, '--rate', '20/s', '--duration', '1s', '--threshold', 'http_req_duration: p(99)<100'),
      // Two connections at 300 ms an answer carry about 7 requests a second of the 20 due.
      load(
        target.url,
        '--rate',
        '20/s',
        '--duration',
        '1s',
        '--connections',
        '2',
        '--threshold',
        'dropped_iterations: count == 0',
        '--json',
      ),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✗ http_req_duration: p\(99\)<100 {2}p\(99\)=\d{3} ms/);
    expect(capped.code).toBe(1);
    const report = JSON.parse(capped.stdout) as LoadReport;
    expect(report.requests.planned).toBe(20);
    expect(report.requests.dropped).toBeGreaterThan(0);
    expect(report.requests.sent + report.requests.dropped).toBe(20);
    expect(report.achievedRatePerSecond).toBeLessThan(report.targetRatePerSecond);
  });

  it('fails the 5xx threshold against a 503-ing receiver (exit 1)', async () => {
    const target = await receiver('503', SECRET);
    const result = await load(
      target.url,
      '--rate',
      '20/s',
      '--duration',
      '1s',
      '--threshold',
      'rate(status=5xx) < 0.005',
      '--json',
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as LoadReport;
    expect(report.statuses).toEqual({ '503': report.requests.sent });
    expect(report.thresholds[0]).toMatchObject({ ok: false, actual: 1 });
    expect(report.exitCode).toBe(1);
  });

  it('exits 0 against a 429-ing receiver when no threshold fails, and 1 with rate(status=429) == 0', async () => {
    // One receiver each: it answers every second request 429, counted across whoever sends, so two runs sharing one
    // could each see only the other half.
    const [lenientTarget, strictTarget] = [await receiver('429', SECRET), await receiver('429', SECRET)];
    const [lenient, strict] = await Promise.all([
      load(
        lenientTarget.url,
        '--rate',
        '20/s',
        '--duration',
        '1s',
        '--threshold',
        'http_req_duration: p(99)<10000',
        '--json',
      ),
      load(strictTarget.url, '--rate', '20/s', '--duration', '1s', '--threshold', 'rate(status=429) == 0'),
    ]);
    expect(lenient.code).toBe(0);
    const report = JSON.parse(lenient.stdout) as LoadReport;
    expect(report.statuses['429']).toBeGreaterThan(0);
    expect(report.retryAfterMissing).toBe(0);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/✗ rate\(status=429\) == 0 {2}rate=0\.\d+ \(\d+ of \d+\)/);
  });
});

describe('cai load against a target that accepts nothing', () => {
  // A latency threshold (or none) would pass every one of these: fast refusals are fast.
  it('signed with the wrong secret: every request refused, exit 1 with the refusals named', async () => {
    const target = await receiver('correct', 'whsec_not_the_load_secret');
    const result = await load(
      target.url,
      '--rate',
      '20/s',
      '--duration',
      '1s',
      '--threshold',
      'http_req_duration: p(99)<10000',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /error: not one of the \d+ requests was accepted: 401 invalid_signature ×\d+\nhint: check the secret and --provider: the receiver's answer to one request in full: cai send-event --sample\n$/,
    );
  });

  it('at an address that is no endpoint (404 to every request): exit 3', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"not_found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/evnts`;
      const result = await load(url, '--rate', '20/s', '--duration', '1s', '--json');
      expect(result.code).toBe(3);
      expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, exitCode: 3, error: { code: 'not_an_endpoint' } });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('over https to a plain-HTTP port (no answer to any request): exit 3', async () => {
    const target = await receiver('correct', SECRET);
    const result = await load(
      target.url.replace('http:', 'https:'),
      '--rate',
      '10/s',
      '--duration',
      '1s',
      '--timeout',
      '2s',
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/error: not one of the \d+ requests was answered \(/);
  });
});

describe('cai load --mock', () => {
  it('loads the reference receiver in process and meets the §8 presets', async () => {
    const result = await spawnCli(['load', '--mock', '--rate', '30/s', '--duration', '1s', '--slo', 'spec', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^note: --slo spec sends 5% repeats to check that no event is lost \(set --repeat to change it\)\ncai load: http:\/\/127\.0\.0\.1:\d+\/events: 30\/s for 1 s\n$/,
    );
    const report = JSON.parse(result.stdout) as LoadReport;
    expect(report.mock).toBe(true);
    expect(report.ok).toBe(true);
    // 5 % of 30 requests, kept exactly: at least one repeat, confirmed as a duplicate.
    expect(report.duplicates.repeatsSent).toBeGreaterThanOrEqual(1);
    expect(report.duplicatesConfirmed).toBe(report.duplicates.repeatsSent);
    expect(report.thresholds.map((verdict) => verdict.expression)).toEqual([
      'availability: rate >= 0.995',
      'repeats_unrecognised: count == 0',
      'rejected: count == 0',
      'retry_after_missing: count == 0',
      'http_req_duration: max < 60000',
    ]);
  });

  it('times the first callbacks of Interface A against the scaled first-contact target', async () => {
    const result = await spawnCli([
      'load',
      '--interface',
      'A',
      '--mock',
      '--callbacks',
      '--rate',
      '10/s',
      '--duration',
      '1s',
      '--threshold',
      'callbacks_missing: count == 0',
      '--slo-scale',
      '0.05',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as LoadReport;
    expect(report.callbacks).toMatchObject({
      tracked: report.requests.sent,
      contacted: report.requests.sent,
      missing: 0,
      invalidSignature: 0,
      targetMs: 15_000,
    });
    expect(report.callbacks?.firstContactMs.count).toBe(report.requests.sent);
  });
});

describe('bad usage and unreachable targets', () => {
  it('gives one error and one hint, exit 2', async () => {
    const results = await Promise.all([
      spawnCli(['load', '--mock', '--rate', 'fast']),
      spawnCli(['load', '--mock', '--threshold', 'http_req_duration < 250']),
      spawnCli(['load', '--mock', '--mix', 'conversation.message=80,job.open=20']),
      spawnCli(['load', '--to', 'http://127.0.0.1:1/events']),
      spawnCli(['load', '--mock', '--interface', 'A', '--mix', 'job.closed=1']),
    ]);
    expect(results.map((result) => result.code)).toEqual([2, 2, 2, 2, 2]);
    expect(results.map((result) => result.stdout)).toEqual(['', '', '', '', '']);
    const [rate, threshold, mix, provider, mixOnA] = results.map((result) => result.stderr);
    expect(rate).toBe(
      "error: option '--rate <n/s>' argument 'fast' is invalid. expected a rate such as 20/s or 600/m.\nhint: run 'cai load --help' for its options and examples\n",
    );
    expect(threshold).toMatch(
      /^error: option '--threshold <expr>' argument 'http_req_duration < 250' is invalid\. expected k6's form .+\nhint: run 'cai load --help' for its options and examples\n$/,
    );
    expect(mix).toMatch(
      /^error: option '--mix <type=weight,…>' argument '.+' is invalid\. "job\.open" is not an event type \(§6\): .+\nhint: /,
    );
    expect(provider).toBe(
      'error: --provider is required\nhint: pass your provider_code for X-CAI-Provider (§4.2), e.g. --provider acme\n',
    );
    expect(mixOnA).toMatch(/^error: --mix is for interface B, not A\nhint: /);
  });

  it("load export's usage errors point at load export's help, not load's", async () => {
    const results = await Promise.all([
      runCli(['load', 'export', '--engine', 'k6', '--out', 'x']),
      runCli(['load', 'export', '--out', 'x']),
      runCli(['load', 'export', '--engine', 'artillery', '--workers', '0', '--out', 'x']),
    ]);
    expect(results.map((result) => result.code)).toEqual([2, 2, 2]);
    for (const { stderr } of results)
      expect(stderr).toMatch(/^error: .+\nhint: run 'cai load export --help' for its options and examples\n$/);
  });

  it('names --callback-listen, its own flag, when the callback port is taken (exit 2)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as AddressInfo).port;
      const result = await spawnCli(
        [
          'load',
          '--interface',
          'A',
          '--mock',
          '--callbacks',
          '--callback-listen',
          `127.0.0.1:${port}`,
          '--rate',
          '2/s',
          '--duration',
          '1s',
        ],
        { env: { ...env, CAI_CALLBACK_SECRET: 'whsec_load_callback_secret' } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use\nhint: choose another --callback-listen HOST:PORT, or port 0 for any free port\n`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('stops at once with exit 3 when nothing listens at the target', async () => {
    const port = await deadLoopbackPort();
    const result = await load(`http://127.0.0.1:${port}/events`, '--rate', '20/s', '--duration', '2s');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      new RegExp(
        `error: nothing answered at http://127\\.0\\.0\\.1:${port}/events: ECONNREFUSED before any answer; the run stopped\\nhint: check the --to URL and that the receiver is running\\n$`,
      ),
    );
  });
});

describe('cai load --help', () => {
  it.each(['load', 'load export'])('cai %s --help ends with examples', async (command) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout.slice(result.stdout.lastIndexOf('Examples:'))).toMatch(
      /^Examples:\n(  \$ cai .+\n(      .+\n)*)+$/,
    );
  });
});
