/**
 * An Interface A run whose provider accepts every job and never calls back, with stderr not a terminal (a CI log):
 * the run says what it is still waiting for instead of going silent (a line every 10 s at most), and the failure names the URL and the job.
 */
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

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
        /actual: +no event at http:\/\/127\.0\.0\.1:\d+\/cai-conformance\/callbacks-[0-9a-f]+ within [\d.]+ s of the answer to the job "[^"]+"/,
      );
    } finally {
      await provider.close();
    }
  }, 60_000);
});
