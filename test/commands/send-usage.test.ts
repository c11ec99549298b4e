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

  it.each([
    [['--no-retry', '--max-attempts', '3'], "option '--no-retry' cannot be used with option '--max-attempts <n>'"],
    [['--retry-for', '5s', '--no-retry'], "option '--no-retry' cannot be used with option '--retry-for <duration>'"],
    [['--ca', 'ca.pem', '--insecure'], "option '--insecure' cannot be used with option '--ca <file>'"],
  ])('conflicting flags %j: one error naming both, one hint', async (extra, error) => {
    const result = await runCli([...base, ...extra], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${error}\nhint: run 'cai send-event --help' for its options and examples\n`,
    });
  });

  it.each([
    ['replay', '--request', 'x.http', '--to', 'http://127.0.0.1:9/'],
    ['trigger', 'appointment-booked', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme'],
    ['load', '--mock'],
    ['mock', 'provider', '--provider', 'acme'],
  ])('%s: --insecure with --ca is refused too', async (...argv) => {
    const result = await runCli([...argv, '--insecure', '--ca', 'ca.pem'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe("error: option '--insecure' cannot be used with option '--ca <file>'");
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

describe('send: a proxy from the environment', () => {
  it('that is no URL is a usage error naming its variable, not its value, before anything is sent', async () => {
    for (const value of ['ht!tp', 'proxy.internal:3128']) {
      const result = await runCli(base, { env: { ...env, HTTP_PROXY: value } });
      expect(result.code).toBe(2);
      // After the line that says what is about to be sent: one error, one hint, and no attempt.
      expect(result.stderr.split('\n').slice(-3)).toEqual([
        'error: HTTP_PROXY is not a proxy URL, such as http://proxy.example:3128',
        "hint: set HTTP_PROXY to the proxy's URL, or unset it",
        '',
      ]);
      expect(result.stderr).not.toContain(value);
      expect(result.stderr).not.toContain('attempt');
    }
  });
});

describe('send batch: a results file that cannot be written fails the run', () => {
  it.each([
    ['', "error: the results file's path is empty\nhint: give the path of the file to write the results to\n"],
    [
      'test',
      'error: cannot write the results file test: it is a directory\nhint: check the path and its permissions\n',
    ],
  ])('--output %j: refused in words before anything is sent', async (path, stderr) => {
    const batch = ['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', '--ndjson', '-'];
    const result = await runCli([...batch, '--output', path], {
      env,
      stdin: `${JSON.stringify(sampleEvent('job.closed'))}\n`,
    });
    expect(result).toEqual({ code: 2, stdout: '', stderr });
  });

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
