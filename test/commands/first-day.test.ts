/**
 * What a first day with cai ran into, each reproduced: --quiet that still spoke, a send-job 401 explained with
 * Interface B notions, a mock 401 line that gave no cause.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { sampleEvent } from '../../src/spec/sample.js';
import { fakeIo, runCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_first_day_0123456789' };

describe('--quiet means quiet', () => {
  it('prints no note: only the result, warnings and errors', async () => {
    const argv = [
      'conformance',
      'run',
      '--interface',
      'A',
      '--target',
      'http://127.0.0.1:9/cai',
      '--source',
      'platform-eu',
      '--branch-code',
      'BR-001',
    ];
    const loud = await runCli(argv, { env });
    expect(loud.stderr).toMatch(/^note: no callback secret/m);
    const quiet = await runCli(['--quiet', ...argv], { env });
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).not.toContain('note:');
    expect(quiet.stderr).toMatch(/^error: target unreachable: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});

describe("send-job's 401 speaks of Interface A", () => {
  it('names the jobs secret, the clock and X-CAI-Source; no provider code, no egress address (those are Interface B)', async () => {
    const server = await startScriptedServer([{ status: 401 }]);
    try {
      const job = await runCli(['send-job', '--to', server.url, '--source', 'platform-eu', '--sample'], { env });
      expect(job.code).toBe(1);
      const verdict = job.stdout.split('\n')[0] as string;
      expect(verdict).toBe(
        "✘ rejected: 401 Unauthorized (the provider refused the credential: check the jobs secret (each direction has its own, §5.1), the clock (300 s window, §5.5) and --source (X-CAI-Source, §4.1); not retried: §4.1 leaves the provider's error statuses open)",
      );
      expect(verdict).not.toMatch(/provider code|unrecognised provider|egress|origin/);
      const event = await runCli(['send-event', '--to', server.url, '--provider', 'acme', '--sample'], { env });
      expect(event.stdout.split('\n')[0]).toContain(
        '(§7: invalid signature, timestamp outside the window, unrecognised provider or unauthorised origin',
      );
    } finally {
      await server.close();
    }
  });
});

describe("the mock's line for a 401 says the likely cause and points to --ui", () => {
  const secret = 'whsec_first_day_mock_0123';
  const post = async (url: string, timestamp: string, key: string) => {
    const body = JSON.stringify(sampleEvent('job.closed'));
    const signature = `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
    const answer = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-cai-provider': 'acme',
        'x-cai-timestamp': timestamp,
        'x-cai-signature': signature,
      },
    });
    expect(answer.status).toBe(401);
  };

  it.each([
    [[], 'run with --ui to see why'],
    [['--ui'], 'the inspector shows why'],
  ])('%j', async (extra, pointer) => {
    const io = fakeIo({ env: { CAI_SECRET: secret } });
    const finished = run(['mock', 'platform', '--provider', 'acme', ...extra], io);
    while (!io.out().includes('\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    const url = io.out().split('\n')[0] as string;
    const now = Math.floor(Date.now() / 1000);
    await post(url, `${now}000`, secret);
    await post(url, String(now - 3600), secret);
    await post(url, String(now), 'whsec_not_this_one_0123');
    io.interrupt();
    expect(await finished).toBe(130);
    const lines = io
      .out()
      .split('\n')
      .filter((line) => line.includes('[401]'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/invalid_signature: .*; likely: the timestamp is in milliseconds \(§4: unix seconds\) \(/);
    expect(lines[1]).toMatch(/; likely: the sender's clock is 360[01] s behind \(§5\.5: ±300 s\) \(/);
    expect(lines[2]).toMatch(/; likely: another secret, or other bytes than those sent \(/);
    for (const line of lines) expect(line.endsWith(`(${pointer})`), line).toBe(true);
  });
});

describe('a failing run leaves no temp directory behind', () => {
  it('sign --format curl refused for a missing flag writes no body file (all it lacks named at once)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'cai-first-day-tmp-'));
    try {
      const result = await runCli(['sign', '--format', 'curl'], { env: { ...env, TMPDIR: tmp }, stdin: '{}' });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'error: --url and --interface are required with --format curl\nhint: pass --url with the full address to POST to; and --interface B --provider CODE (events) or --interface A --source ID (contact jobs)\n',
      );
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
