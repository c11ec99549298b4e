import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startMockPlatform } from '../../../src/mock/platform.js';
import { startMockProvider } from '../../../src/mock/provider.js';
import { sign } from '../../../src/signing/sign.js';
import { ROOT } from '../../helpers/cli.js';
import { LIVE_SECRET, event } from '../../helpers/mock-client.js';

describe('mock platform over TLS (§5.8)', () => {
  it('cuts a connection that never finishes its handshake within the headers time-out', async () => {
    const fixture = (name: string) => readFileSync(`${ROOT}fixtures/tls/${name}`);
    const mock = await startMockPlatform({
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      tls: { cert: fixture('server.pem'), key: fixture('server.key') },
      limits: { headersTimeoutMs: 300 },
    });
    try {
      // A TCP connection that sends nothing: no ClientHello. Node's own default would hold it 120 s.
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(mock.port, '127.0.0.1');
        const timer = setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, 20_000);
        socket.on('error', () => {});
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      expect(closed).toBe(true);
    } finally {
      await mock.close();
    }
  });

  it('serves HTTPS with --tls-cert/--tls-key and accepts a signed event', async () => {
    const fixture = (name: string) => readFileSync(`${ROOT}fixtures/tls/${name}`);
    const mock = await startMockPlatform({
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      tls: { cert: fixture('server.pem'), key: fixture('server.key') },
    });
    const dispatcher = new Agent({ connect: { ca: fixture('ca.pem') } });
    try {
      expect(mock.url).toMatch(/^https:\/\/127\.0\.0\.1:[0-9]+\/events$/);
      const body = JSON.stringify(event());
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await request(mock.url, {
        method: 'POST',
        dispatcher,
        headers: {
          'content-type': 'application/json',
          'x-cai-provider': 'acme',
          'x-cai-timestamp': timestamp,
          'x-cai-signature': sign(LIVE_SECRET, timestamp, body),
        },
        body,
      });
      expect(response.statusCode).toBe(202);
      expect(await response.body.json()).toEqual({ ok: true });
    } finally {
      await dispatcher.close();
      await mock.close();
    }
  });

  it('lets the provider mock call back over TLS with a given authority (--ca)', async () => {
    const fixture = (name: string) => readFileSync(`${ROOT}fixtures/tls/${name}`);
    const platform = await startMockPlatform({
      providerCode: 'acme',
      secrets: [LIVE_SECRET],
      tls: { cert: fixture('server.pem'), key: fixture('server.key') },
    });
    const provider = await startMockProvider({
      providerCode: 'acme',
      secrets: ['jobs-secret-0123456789'],
      callbackSecrets: [LIVE_SECRET],
      scenario: { kind: 'closed', outcome: 'opted_out' },
      speed: 100_000,
      callbackTls: { ca: fixture('ca.pem') },
    });
    try {
      const job = {
        lead_id: 'lead-tls',
        event_id: 'job-tls-1',
        branch_code: 'MAD-01',
        contact: { name: 'Ana', phone_e164: '+34600111222' },
        callback_url: platform.url,
      };
      const body = JSON.stringify(job);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await request(`${provider.url}/contact-jobs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-cai-source': 'platform',
          'x-cai-timestamp': timestamp,
          'x-cai-signature': sign('jobs-secret-0123456789', timestamp, body),
        },
        body,
      });
      expect(response.statusCode).toBe(202);
      await response.body.dump();
      await provider.idle();
      expect(provider.sent.map((e) => e.outcome)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
      expect(platform.records.map((r) => r.event_id)).toEqual(provider.sent.map((e) => e.event_id));
    } finally {
      await provider.close();
      await platform.close();
    }
  });

  it('refuses a key that is not PEM as a usage error', async () => {
    await expect(
      startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], tls: { cert: 'x', key: 'y' } }),
    ).rejects.toMatchObject({ code: 'bad_tls_files' });
  });
});
