/**
 * An Interface A run whose provider accepts every job and never calls back, with stderr not a terminal (a CI log):
 * the run says what it is still waiting for instead of going silent (a line every 10 s at most), and the failure names the URL and the job.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';
import { DURATION_TEXT } from '../helpers/duration.js';

describe('conformance run: a provider that never calls back', () => {
  it('says every 10 s what it waits for, and names the callback URL and the job it waited for', async () => {
    let jobs = 0;
    const provider = await startScriptedServer(
      () => ({ status: 202, body: { provider_job_id: `pj-${(jobs += 1)}`, assigned_number_e164: '+34910000000' } }),
      { path: '/contact-jobs' },
    );
    try {
      const result = await spawnCli(
        [
          'conformance',
          'run',
          '--interface',
          'A',
          '--target',
          provider.url.replace(/\/contact-jobs$/, ''),
          '--source',
          'platform-eu',
          '--branch-code',
          'BR-001',
          '--provider',
          'acme',
          '--only',
          'A-CB-001,A-CB-005',
          '--callback-wait',
          '12s',
          '--format',
          'table',
        ],
        { env: { CAI_SECRET: 'jobs-secret', CAI_CALLBACK_SECRET: 'events-secret' } },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^still running 2 of 2 checks \(0 done\): A-CB-001, A-CB-005; the provider's events of each job are awaited for up to 12 s \(--callback-wait\)$/m,
      );
      expect(result.stdout).toMatch(
        /actual: +no event at http:\/\/127\.0\.0\.1:\d+\/cai-conformance\/callbacks-[0-9a-f]+\?job=[0-9a-f]+ within [\d.]+ s of the answer to the job "[^"]+"/,
      );
    } finally {
      await provider.close();
    }
  }, 60_000);

  it("waits for the events from the job's answer: a provider that answers the job after the whole wait still has it", async () => {
    // A provider in plain Node, not cai's: it answers a job 4 s after it came (longer than --callback-wait 3s), then
    // sends one signed event to its callback_url 200 ms later. Timed from before the job was sent, the wait would
    // be over before the answer; timed from the answer, the event comes well within it.
    const calls: Promise<unknown>[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        let job: { callback_url?: string; lead_id?: string } = {};
        try {
          job = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {}
        const answer = () => {
          response.writeHead(202, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ provider_job_id: 'pj-late', assigned_number_e164: '+34910000000' }));
        };
        if (typeof job.callback_url !== 'string') return answer();
        const callbackUrl = job.callback_url;
        setTimeout(() => {
          answer();
          setTimeout(() => calls.push(sendEvent(callbackUrl, String(job.lead_id))), 200);
        }, 4_000);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await spawnCli(
        [
          'conformance',
          'run',
          '--interface',
          'A',
          '--to',
          `http://127.0.0.1:${port}`,
          '--source',
          'platform-eu',
          '--branch-code',
          'BR-001',
          '--provider',
          'acme',
          '--only',
          'A-CB-001',
          '--callback-wait',
          '3s',
          '--json',
        ],
        { env: { CAI_SECRET: 'jobs-secret', CAI_CALLBACK_SECRET: 'events-secret' } },
      );
      const check = JSON.parse(result.stdout).checks.find((entry: { id: string }) => entry.id === 'A-CB-001');
      expect(check.verdict, `${check.actual}\n${result.stderr}`).toBe('passed');
      expect(check.actual).toMatch(new RegExp(`^1 event\\(s\\), the first ${DURATION_TEXT} after the job$`));
    } finally {
      await Promise.allSettled(calls);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});

function sendEvent(url: string, leadId: string): Promise<unknown> {
  const body = JSON.stringify({
    event: 'conversation.message',
    event_id: 'evt-late-answer-1',
    lead_id: leadId,
    provider_job_id: 'pj-late',
    occurred_at: new Date().toISOString(),
    direction: 'outbound',
    channel: 'sms',
    from_number_e164: '+34910000000',
    text: 'Hello',
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `sha256=${createHmac('sha256', 'events-secret').update(`${timestamp}.${body}`).digest('hex')}`;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-cai-provider': 'acme',
      'x-cai-timestamp': timestamp,
      'x-cai-signature': signature,
    },
    body,
  }).catch(() => undefined);
}
