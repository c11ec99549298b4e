import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sampleEvent, startMockPlatform } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';

// Every case fails before anything is sent: the target is a closed port, and none may be contacted.
const base = ['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--sample', 'job.closed'];
const env = { CAI_SECRET: 'whsec_send_usage_secret' };

describe('send: flags that would do nothing, or harm, are usage errors (exit 2), nothing sent', () => {
  it.each([
    [['--format', 'curl'], 'error: --format curl prints a command instead of sending, so it needs --dry-run'],
    [['--concurrency', '4'], 'error: --concurrency works in batch mode only'],
    [
      ['--timeout', '0'],
      "error: option '--timeout <duration>' argument '0' is invalid. expected a duration of more than 0, such as 500ms or 10s.",
    ],
    [
      ['--local-address', '999.1.1.1'],
      "error: option '--local-address <ip>' argument '999.1.1.1' is invalid. expected an IPv4 or IPv6 address such as 127.0.0.2.",
    ],
    [
      ['--local-address', '::1'],
      'error: cannot send from ::1 (IPv6) to 127.0.0.1 (IPv4): a connection keeps one address family',
      "hint: pass --local-address an IPv4 address of this machine, as the target's is",
    ],
    [
      // TEST-NET-1 (RFC 5737): no machine has it.
      ['--local-address', '192.0.2.1'],
      'error: cannot send from 192.0.2.1: this machine has no such address (EADDRNOTAVAIL)',
      'hint: --local-address must be an address of this machine',
    ],
    [
      ['--retry-for', '48h'],
      "error: option '--retry-for <duration>' argument '48h' is invalid. expected at most 24h: §8 retries for up to 24 hours.",
    ],
  ])('%j', async (extra, firstLine, hint?: string) => {
    const result = await runCli([...base, ...extra], { env });
    expect(result.code).toBe(2);
    // After the line that names the generated document, where there is one.
    const lines = result.stderr.split('\n').filter((line) => !line.startsWith('sending a generated'));
    expect(lines[0]).toBe(firstLine);
    if (hint !== undefined) expect(lines.slice(1)).toEqual([hint, '']);
    expect(result.stderr).not.toContain('attempt');
  });

  it('--verbose with --ndjson', async () => {
    const result = await runCli(
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--ndjson', '-', '--verbose'],
      { env, stdin: '{}\n' },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('error: --verbose does not work with --ndjson');
  });
});

describe('send batch: a results file that cannot be written fails the run', () => {
  it.skipIf(!existsSync('/dev/full'))(
    '--output on a full device → exit 2 after the summary, never a silent 0',
    async () => {
      const secret = 'whsec_send_usage_batch';
      const platform = await startMockPlatform({ providerCode: 'acme', secrets: [secret] });
      try {
        const lines = [sampleEvent('job.closed'), sampleEvent('job.closed')]
          .map((doc) => JSON.stringify(doc))
          .join('\n');
        const result = await runCli(
          ['send-event', '--to', platform.url, '--provider', 'acme', '--ndjson', '-', '--output', '/dev/full'],
          {
            env: { CAI_SECRET: secret },
            stdin: `${lines}\n`,
          },
        );
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('error: the results file /dev/full is incomplete:');
        expect(platform.records.length).toBe(2);
      } finally {
        await platform.close();
      }
    },
  );
});
