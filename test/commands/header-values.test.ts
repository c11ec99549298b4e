/**
 * Issue 14, finding 5: a CR/LF (or any control character) in a value that becomes a header is a usage error
 * everywhere, before any request, capture or curl line is built: a real send, --dry-run captures (which
 * `cai replay` sends), `cai sign --format curl`, trigger, the conformance identity flags, the mocks' codes, profile
 * values; so is an identity longer than its bound (docs/limits.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-headers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_header_values_test' };
const EVIL = 'acme\r\nX-Evil: 1';
const CR_MESSAGE =
  '"acme\\r\\nX-Evil: 1" holds a carriage return (CR) at character 5: a header value cannot hold control characters (RFC 9110 §5.5)';

describe('a header value with a control character is refused before anything is built', () => {
  it.each([
    [
      'send-event (a real send)',
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--sample', '--provider', EVIL],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'send-event --dry-run (a capture replay sends)',
      ['send-event', '--to', 'http://127.0.0.1:9/events', '--sample', '--dry-run', '--provider', EVIL],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'send-job --dry-run --format curl',
      ['send-job', '--to', 'http://127.0.0.1:9/', '--sample', '--dry-run', '--format', 'curl', '--source', EVIL],
      '--source',
      'X-CAI-Source',
    ],
    [
      'sign --format curl',
      ['sign', '--body', '-', '--format', 'curl', '--url', 'http://127.0.0.1:9/events', '--provider', EVIL],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'conformance run',
      ['conformance', 'run', '--interface', 'B', '--target', 'http://127.0.0.1:9/events', '--provider', EVIL],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'mock provider (X-CAI-Provider on its callbacks)',
      ['mock', 'provider', '--provider', EVIL, '--secret-env', 'CAI_SECRET', '--callback-secret-env', 'CAI_SECRET'],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'trigger (a flow of events)',
      ['trigger', 'appointment-booked', '--to', 'http://127.0.0.1:9/events', '--provider', EVIL],
      '--provider',
      'X-CAI-Provider',
    ],
    [
      'trigger job',
      ['trigger', 'job', '--to', 'http://127.0.0.1:9/', '--provider', 'acme', '--source', EVIL],
      '--source',
      'X-CAI-Source',
    ],
    [
      'mock platform --test-provider',
      ['mock', 'platform', '--provider', 'acme', '--secret-env', 'CAI_SECRET', '--test-provider', EVIL],
      '--test-provider',
      'X-CAI-Provider',
    ],
  ])('%s', async (_name, argv, flag, header) => {
    const result = await runCli(argv, { env, stdin: '{}' });
    const hint =
      flag === '--source'
        ? 'pass the platform id alone, printable ASCII on one line'
        : 'pass the provider code alone, printable ASCII on one line';
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${flag} is the ${header} header, and ${CR_MESSAGE}\nhint: ${hint}\n`,
    });
  });

  it.each([
    ['send-event', ['send-event', '--to', 'http://127.0.0.1:9/events', '--sample', '--dry-run', '--provider']],
    ['trigger', ['trigger', 'job', '--to', 'http://127.0.0.1:9/', '--provider', 'acme', '--source']],
    ['load', ['load', '--to', 'http://127.0.0.1:9/events', '--provider']],
  ])('%s: an identity past 256 characters is refused, without echoing it', async (_name, argv) => {
    const result = await runCli([...argv, 'a'.repeat(257)], { env });
    const flag = argv.at(-1) as string;
    const header = flag === '--source' ? 'X-CAI-Source' : 'X-CAI-Provider';
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: ${flag} is the ${header} header, and its 257 characters are over the 256 cai takes (docs/limits.md)`,
    );
    expect(result.stderr).toMatch(/^error: .*\nhint: .*\n$/);
  });

  it('an identity of 256 characters is sent', async () => {
    const argv = ['send-event', '--to', 'http://127.0.0.1:9/events', '--sample', '--dry-run', '--provider'];
    const result = await runCli([...argv, 'a'.repeat(256)], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`X-CAI-Provider: ${'a'.repeat(256)}\r\n`);
  });

  it('report --provider is a filter, not a header: not refused for its characters', async () => {
    const log = join(dir, 'empty.ndjson');
    writeFileSync(log, '');
    expect((await runCli(['report', '--log', log, '--provider', 'a\tb'])).code).toBe(0);
  });

  it('a profile value that would be a header is refused when the profile is read', async () => {
    const config = join(dir, 'cai.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        environments: { test: { provider_code: EVIL, events_url: 'http://127.0.0.1:9/events' } },
      }),
    );
    const result = await runCli(['--config', config, 'send-event', '--sample', '--dry-run'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: ${config} is invalid: environments.test.provider_code: sent as a header, and it holds a carriage return (CR) at character 5: a header value cannot hold control characters (RFC 9110 §5.5)`,
    );
  });

  it('a profile identity longer than 256 characters is refused when the profile is read', async () => {
    const config = join(dir, 'long.config.json');
    writeFileSync(config, JSON.stringify({ version: 1, environments: { test: { platform_id: 'p'.repeat(257) } } }));
    const result = await runCli(['--config', config, 'config', 'show'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `error: ${config} is invalid: environments.test.platform_id: sent as a header, and it is over the 256 characters cai takes (docs/limits.md)`,
    );
  });

  it('a capture whose header holds a control character is not replayed, not even as a dry run', async () => {
    const capture = join(dir, 'capture.http');
    writeFileSync(capture, 'POST /events HTTP/1.1\r\nX-CAI-Provider: ac\u001bme\r\nContent-Length: 2\r\n\r\n{}');
    const result = await runCli(['replay', '--request', capture, '--to', 'http://127.0.0.1:9/', '--dry-run'], { env });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: the capture ${capture}: the "X-CAI-Provider" header value holds an escape character (ESC) at character 3: a header value cannot hold control characters (RFC 9110 §5.5)\nhint: a header is one line of printable ASCII: correct it at its source\n`,
    });
  });
});
