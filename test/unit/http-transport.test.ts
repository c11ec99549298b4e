import { describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { openDispatcher, resolveTransport } from '../../src/http/transport.js';
import { describeNetworkError } from '../../src/http/network-errors.js';
import { classifyOutcome } from '../../src/http/retry.js';
import { openTransport } from '../../src/commands/common/transport-options.js';
import { Output } from '../../src/output/output.js';
import { fakeIo } from '../helpers/cli.js';
import { TLS_FIXTURE } from '../helpers/scripted-server.js';

const io = (env: NodeJS.ProcessEnv = {}) => fakeIo({ env });

async function usageErrorOf(promise: Promise<unknown>): Promise<CaiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CaiError);
  return error as CaiError;
}

describe('resolveTransport: the one builder of transport options', () => {
  it('reads --ca, and passes the local address, time-out and pool size through', async () => {
    const transport = await resolveTransport(
      { ca: TLS_FIXTURE.caFile, localAddress: '127.0.0.1', connectTimeoutMs: 500, connections: 3 },
      io(),
    );
    expect(transport.client).toEqual({
      ca: TLS_FIXTURE.ca,
      localAddress: '127.0.0.1',
      connectTimeoutMs: 500,
      connections: 3,
    });
    expect(transport.info).toEqual([]);
  });

  it('refuses a --ca that is missing or holds no certificate, naming the file', async () => {
    const missing = await usageErrorOf(resolveTransport({ ca: 'no-such-ca.pem' }, io()));
    expect([missing.code, missing.message, missing.hint]).toEqual([
      'unreadable_file',
      'CA certificate file no-such-ca.pem does not exist',
      'check the path, or pass - to read from stdin',
    ]);
    const notPem = await usageErrorOf(resolveTransport({ ca: 'package.json' }, io()));
    expect([notPem.code, notPem.message]).toEqual(['bad_ca', 'package.json holds no PEM certificate']);
  });

  it('warns about --insecure (the command says it: the transport only carries it)', async () => {
    const given = io();
    const transport = await openTransport(
      { insecure: true },
      { io: given, output: await Output.create(given, { json: false, quiet: false, debug: false }) },
    );
    expect(transport.client).toEqual({ insecure: true });
    expect(given.err()).toBe(
      'warning: --insecure: the TLS certificate is NOT verified; anyone on the path can read and change this request. Never use it in production.\n',
    );
  });

  it("takes --proxy, else the environment's proxy for the target, and shows it without its password", async () => {
    const env = { HTTPS_PROXY: 'http://user:pw@proxy.test:3128', NO_PROXY: 'internal.test' };
    const fromEnv = await resolveTransport({}, io(env), 'https://platform.test/events');
    expect(fromEnv.client.proxy).toBe('http://user:pw@proxy.test:3128');
    expect(fromEnv.info).toEqual(['via proxy http://user:***@proxy.test:3128/']);
    expect((await resolveTransport({}, io(env), 'https://api.internal.test/events')).client.proxy).toBeUndefined();
    expect((await resolveTransport({}, io(env))).client.proxy).toBeUndefined();
    expect(
      (await resolveTransport({ proxy: 'http://other.test:8080' }, io(env), 'https://platform.test/events')).client
        .proxy,
    ).toBe('http://other.test:8080');
  });

  it('refuses a local address this machine does not have, or of the other family than the target', async () => {
    const notLocal = await usageErrorOf(resolveTransport({ localAddress: '192.0.2.1' }, io(), 'http://127.0.0.1:9/'));
    expect([notLocal.code, notLocal.kind, notLocal.message]).toEqual([
      'local_address',
      'usage',
      'cannot send from 192.0.2.1: this machine has no such address (EADDRNOTAVAIL)',
    ]);
    const family = await usageErrorOf(resolveTransport({ localAddress: '::1' }, io(), 'http://127.0.0.1:9/'));
    expect([family.code, family.kind, family.data]).toEqual([
      'local_address',
      'usage',
      { reason: 'family', family: 4 },
    ]);
    // Through a proxy, the proxy is the peer.
    const viaProxy = await resolveTransport(
      { localAddress: '127.0.0.1', proxy: 'http://127.0.0.1:3128' },
      io(),
      'http://[::1]:9/',
    );
    expect(viaProxy.client.localAddress).toBe('127.0.0.1');
  });

  it('a local address found unfit only when connecting (a name of the other family) is not retried', () => {
    const cause = Object.assign(new Error('bind EINVAL ::1'), { code: 'EINVAL' });
    const error = describeNetworkError('http://receiver.test/', 1000, cause);
    expect(error.code).toBe('local_address');
    expect(classifyOutcome({ kind: 'error', code: error.code })).toBe('fatal');
  });

  it('opens a pool, and turns a proxy undici refuses into a usage error', async () => {
    const dispatcher = openDispatcher(await resolveTransport({ connections: 2 }, io()));
    await dispatcher.close();
    let error: unknown;
    try {
      openDispatcher({ client: { proxy: 'not a url' }, info: [] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaiError);
    expect((error as CaiError).code).toBe('bad_transport');
  });
});
