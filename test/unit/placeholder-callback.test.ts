import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { DEFAULT_CALLBACK_URL, isPlaceholderCallbackUrl, sampleJob } from '../../src/spec/sample.js';

describe('isPlaceholderCallbackUrl', () => {
  it('names the sample default and addresses under names reserved for documentation (RFC 2606, RFC 6761)', () => {
    expect(isPlaceholderCallbackUrl(sampleJob().callback_url)).toBe(true);
    for (const url of [
      DEFAULT_CALLBACK_URL,
      'https://platform.example/test/cai/events',
      'https://example.com/events',
      'http://cb.EXAMPLE.org./x',
      'https://hooks.invalid/b',
    ]) {
      expect(isPlaceholderCallbackUrl(url), url).toBe(true);
    }
  });

  it('leaves real and local endpoints alone, and anything that is not a URL', () => {
    for (const url of [
      'https://events.acme.com/cai',
      'http://127.0.0.1:8787/events',
      'http://localhost:8787/events',
      'https://myexample.com/e',
      'https://example.community/e',
      'not a url',
      42,
      undefined,
    ]) {
      expect(isPlaceholderCallbackUrl(url), String(url)).toBe(false);
    }
  });
});

describe('cai send-job --sample names a placeholder callback_url', () => {
  const send = (...args: string[]) =>
    runCli(
      [
        'send-job',
        '--sample',
        '--dry-run',
        '--to',
        'http://127.0.0.1:9',
        '--source',
        'platform',
        '--secret-env',
        'JOBS',
        ...args,
      ],
      { env: { JOBS: 'whsec_jobs' } },
    );
  const WARNING =
    "warning: callback_url https://platform.example/cai/events is a placeholder: the provider's events for this job would go nowhere; set your events endpoint with --callback-url URL";

  it('one warning line on stderr when the sample keeps its placeholder, and the job is still prepared', async () => {
    const result = await send();
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([WARNING]);
    expect(result.stdout).toContain('"callback_url":"https://platform.example/cai/events"');
  });

  it('none when --callback-url (or --set callback_url=) gives a real endpoint', async () => {
    for (const args of [
      ['--callback-url', 'https://events.acme.com/cai'],
      ['--set', 'callback_url=http://127.0.0.1:8787/events'],
    ]) {
      const result = await send(...args);
      expect(result.code).toBe(0);
      expect(result.stderr).not.toContain('warning:');
    }
  });
});
