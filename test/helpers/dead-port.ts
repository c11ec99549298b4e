import { createServer } from 'node:net';

/**
 * A loopback port where nothing listens, for the "connection refused" paths. A port bound with port 0 and closed
 * again comes from the kernel's ephemeral range (32768–60999 on Linux), where the next test's server, or the source
 * port of any outgoing connection, may take it before the command under test connects: a test then meets a live
 * server instead of a refusal. So the port is chosen below that range, where nothing in the suite binds, and checked
 * free by binding it once.
 */
export async function deadLoopbackPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindsAndCloses(port)) return port;
  }
  throw new Error('no free loopback port below the ephemeral range after 50 tries');
}

function bindsAndCloses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
