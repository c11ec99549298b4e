/**
 * What a first day with cai ran into, each reproduced: --quiet that still spoke, a send-job 401 explained with
 * Interface B notions, a mock 401 line that gave no cause.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_first_day_0123456789' };

describe('--quiet means quiet', () => {
  it('prints no note: only the result, warnings and errors', async () => {
    const argv = ['conformance', 'run', '--interface', 'A', '--target', 'http://127.0.0.1:9/cai', '--source', 'platform-eu', '--branch-code', 'BR-001'];
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
      expect(event.stdout.split('\n')[0]).toContain('(§7: invalid signature, timestamp outside the window, unrecognised provider or unauthorised origin');
    } finally {
      await server.close();
    }
  });
});
