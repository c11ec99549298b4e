/**
 * The sender keeps at most NETWORK_CAPS.responseBodyBytes of an answer (src/bounds.ts): past it the rest is
 * discarded, the connection closed, and the response says so. Real servers on loopback.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { NETWORK_CAPS } from '../../src/bounds.js';
import { createDispatcher, postOnce } from '../../src/http/client.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(answer: (response: ServerResponse) => void): Promise<{ url: string; closed: Promise<void> }> {
  let onClose: () => void = () => {};
  const closed = new Promise<void>((resolve) => (onClose = resolve));
  server = createServer((request, response) => {
    request.resume();
    response.on('close', onClose);
    answer(response);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/events`, closed };
}

describe('postOnce keeps at most the response cap', () => {
  it('an endless answer: the first 1 MiB, the rest discarded, the connection closed', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let written = 0;
    const { url, closed } = await serve((response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) written += chunk.length;
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const dispatcher = createDispatcher();
    try {
      const answer = await postOnce({
        url,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        dispatcher,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.length).toBe(NETWORK_CAPS.responseBodyBytes);
      expect(answer.bodyTruncated).toBe(true);
      await closed; // the server sees its connection go: nothing more is read
      expect(written).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await dispatcher.destroy();
    }
  });

  it('an answer of exactly the cap is whole', async () => {
    const { url } = await serve((response) =>
      response.writeHead(202, { 'content-type': 'text/plain' }).end(Buffer.alloc(NETWORK_CAPS.responseBodyBytes, 0x62)),
    );
    const dispatcher = createDispatcher();
    try {
      const answer = await postOnce({ url, headers: {}, body: Buffer.from('{}'), dispatcher });
      expect(answer.body.length).toBe(NETWORK_CAPS.responseBodyBytes);
      expect(answer.bodyTruncated).toBeUndefined();
    } finally {
      await dispatcher.close();
    }
  });
});
