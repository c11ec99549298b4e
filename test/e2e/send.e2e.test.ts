import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { verify } from '../../src/signing/verify.js';

const SECRET = 'whsec_e2e_send';
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cai send-event through the built binary', () => {
  it('retries 503, 503 and exits 0 on the 202, every attempt freshly signed', async () => {
    server = await startScriptedServer([{ status: 503 }, { status: 503 }, { status: 202, body: { ok: true } }]);
    const result = await spawnCli(
      ['send-event', '--to', server.url, '--provider', 'acme', '--sample', '--initial-delay', '10ms', '--json'],
      { env: { CAI_SECRET: SECRET } },
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ ok: true, verdict: 'accepted', exitCode: 0 });
    expect(doc.attempts).toHaveLength(3);
    for (const request of server.requests) {
      expect(
        verify({
          secrets: SECRET,
          signature: request.headers['x-cai-signature'] as string,
          timestamp: request.headers['x-cai-timestamp'] as string,
          rawBody: request.body,
        }).valid,
      ).toBe(true);
    }
  });

  it('exits 3 with one error line and one hint line when the receiver is unreachable', async () => {
    server = await startScriptedServer([{ status: 202 }]);
    const url = server.url;
    await server.close();
    server = undefined;
    const result = await spawnCli(
      ['send-event', '--to', url, '--provider', 'acme', '--sample', '--no-retry', '--quiet'],
      { env: { CAI_SECRET: SECRET } },
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: delivery failed after 1 attempt: cannot reach ${url}: the connection was refused (ECONNREFUSED); retries are off\n` +
        'hint: drop --no-retry to retry 5xx, 429 and connection failures (§7)\n',
    );
  });

  it('exits 2 on a bad option value', async () => {
    const result = await spawnCli([
      'send-event',
      '--to',
      'http://127.0.0.1:9',
      '--provider',
      'acme',
      '--sample',
      '--retry-for',
      'soon',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: option '--retry-for <duration>' argument 'soon' is invalid. expected a duration such as 500ms, 30s, 2m or 24h.\nhint: run 'cai send-event --help' for its options and examples\n",
    );
  });
});
