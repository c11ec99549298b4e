/**
 * cai doctor's `url` check (src/doctor/checks.ts): plain http fails (§5.8), but warns on this machine, by the one
 * definition of a loopback address the senders use too (src/http/loopback.ts). Each target points at port 1 on
 * 127.0.0.1 or at a name that does not resolve, so the later checks fail at once; only the url check is read.
 */
import { describe, expect, it } from 'vitest';
import { checkTarget } from '../../src/doctor/checks.js';

async function urlCheck(url: string) {
  const results = await checkTarget({ url }, { timeoutMs: 5000, now: () => Date.now() });
  return results.find((result) => result.id === 'url');
}

describe('cai doctor: the url check', () => {
  it.each([
    'http://127.0.0.1:1/',
    'http://127.1.2.3:1/',
    'http://[::1]:1/',
    'http://localhost:1/',
    'http://app.localhost:1/',
  ])('%s is this machine: a warning', async (url) => {
    expect(await urlCheck(url)).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/^plain http on a local address/),
    });
  });

  it.each(['http://127.example.invalid:1/', 'http://platform.example.invalid:1/'])(
    '%s is another machine: a failure (§5.8)',
    async (url) => {
      expect(await urlCheck(url)).toMatchObject({
        verdict: 'fail',
        message: expect.stringMatching(/^plain http: the interface requires TLS/),
      });
    },
  );

  it('https has no url check', async () => {
    expect(await urlCheck('https://127.0.0.1:1/')).toBeUndefined();
  });
});
