/**
 * How long a receiver keeps an idle connection: `cai mock` keeps Node's 5 s (docs/mocks.md); the reference receiver
 * of a `--mock` run, in cai's own process beside the client that judges it, keeps it 60 s, so that a loop held up
 * past undici's 2 s margin cannot close a connection under a check's next request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/conformance/catalogue.js';
import { Cleanups, credentialsFor, targetOf } from '../../src/conformance/receiver-setup.js';
import type { ConformanceOptions } from '../../src/conformance/run-receiver.js';
import { startMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';

const cleanups: Cleanups[] = [];
afterEach(async () => {
  for (const each of cleanups.splice(0)) await each.run();
});

/** The Keep-Alive header of the receiver's answer to a POST (any answer: an unsigned one is refused). */
async function keepAliveOf(url: string): Promise<string | null> {
  const response = await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  await response.arrayBuffer();
  return response.headers.get('keep-alive');
}

describe('idle keep-alive connections', () => {
  it('cai mock platform and provider keep them 5 s; a receiver given keepAliveTimeoutMs keeps them that long', async () => {
    const platform = await startMockPlatform({ providerCode: 'acme', secrets: ['s'], keepRecords: false });
    const provider = await startMockProvider({
      providerCode: 'acme',
      sourceId: 'platform',
      secrets: ['s'],
      callbackSecrets: ['c'],
      keepRecords: false,
    });
    const longer = await startMockPlatform({
      providerCode: 'acme',
      secrets: ['s'],
      keepRecords: false,
      limits: { keepAliveTimeoutMs: 42_000 },
    });
    try {
      expect(await keepAliveOf(platform.url)).toBe('timeout=5');
      expect(await keepAliveOf(`${provider.url}/contact-jobs`)).toBe('timeout=5');
      expect(await keepAliveOf(longer.url)).toBe('timeout=42');
    } finally {
      await Promise.all([platform.close(), provider.close(), longer.close()]);
    }
  });

  it.each(['B', 'A'] as const)('the reference receiver of a --mock run on %s keeps them 60 s', async (iface) => {
    const options = {
      interface: iface,
      mock: true,
      selection: { only: [], skip: [], include: [] },
    } as unknown as ConformanceOptions;
    const done = new Cleanups();
    cleanups.push(done);
    const url = await targetOf(options, { planned: [] } as unknown as Plan, credentialsFor(options), done);
    expect(await keepAliveOf(iface === 'A' ? `${url}/contact-jobs` : url)).toBe('timeout=60');
  });
});
