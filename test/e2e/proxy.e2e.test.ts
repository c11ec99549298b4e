/**
 * `--proxy` through the built binary: the bundle carries undici's dispatchers without its index, so the tunnel
 * (ProxyAgent's CONNECT, a method the index adds to every dispatcher) is tested where it runs, against a proxy and a
 * receiver written here with node:http and node:net alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startConnectProxy } from '../helpers/connect-proxy.js';

const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listening(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

it('cai send-event --proxy sends through the proxy with CONNECT', async () => {
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers['x-cai-provider']}`);
    req.resume().on('end', () => res.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  const receiverPort = await listening(receiver);
  const proxy = await startConnectProxy();
  closers.push(proxy.close);

  const result = await spawnCli(
    [
      'send-event',
      '--to',
      `http://127.0.0.1:${receiverPort}/events`,
      '--provider',
      'acme',
      '--sample',
      '--proxy',
      proxy.url,
      '--no-retry',
    ],
    { env: { CAI_SECRET: 'whsec_proxy_e2e_0123456789' } },
  );
  expect(result.code, result.stderr).toBe(0);
  expect(proxy.tunnels).toEqual([`127.0.0.1:${receiverPort}`]);
  expect(received).toEqual(['POST /events acme']);
});
