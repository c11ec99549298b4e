/**
 * `--ui` on the mocks: its values, the URL on stderr (and in the first --json line), its usage errors, and a port
 * already taken (exit 2 before the mock's URL is printed). Through the built binary.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parseUiAddress } from '../../src/commands/mock/command.js';
import { spawnCli } from '../helpers/cli.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';

afterAll(() => stopAllMockProcesses());

const ENV = { CAI_SECRET: 'whsec_ui_test_0123456789', CAI_CALLBACK_SECRET: 'whsec_ui_events_0123456789' };

describe('parseUiAddress', () => {
  it('reads HOST:PORT, HOST, :PORT and PORT, defaulting to 127.0.0.1 and a free port', () => {
    expect(parseUiAddress('127.0.0.1:4040')).toEqual({ host: '127.0.0.1', port: 4040 });
    expect(parseUiAddress('0.0.0.0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseUiAddress(':4040')).toEqual({ host: '127.0.0.1', port: 4040 });
    expect(parseUiAddress('4040')).toEqual({ host: '127.0.0.1', port: 4040 });
    expect(parseUiAddress('[::1]:4040')).toEqual({ host: '::1', port: 4040 });
    expect(parseUiAddress('localhost')).toEqual({ host: 'localhost', port: 0 });
    expect(() => parseUiAddress('a:b:c')).toThrow('expected HOST:PORT, HOST, :PORT or PORT, e.g. 127.0.0.1:4040.');
    expect(() => parseUiAddress('127.0.0.1:70000')).toThrow('expected a port from 0 to 65535.');
  });
});

describe('cai mock … --ui', () => {
  it('prints the mock URL alone on stdout and the inspector URL on stderr, which serves the page', async () => {
    const mock = await startMockProcess(['mock', 'provider', '--provider', 'acme', '--ui'], ENV);
    expect(mock.lines[0]).toBe(mock.url);
    const line = /^inspector: (http:\/\/127\.0\.0\.1:[0-9]+\/)$/m.exec(mock.stderr());
    expect(line).not.toBeNull();
    const page = await request(line?.[1] as string);
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain('<title>cai inspector: mock provider</title>');
    mock.child.kill('SIGINT');
    expect(await mock.exited).toBe(130);
    expect(mock.stderr()).toMatch(/SIGINT: finishing requests in flight…\nstopped\n$/);
  });

  it('keeps the first --json line {"url"} without --ui', async () => {
    const mock = await startMockProcess(['mock', 'platform', '--provider', 'acme', '--json'], ENV);
    expect(Object.keys(JSON.parse(mock.lines[0] as string) as object)).toEqual(['url']);
    expect(mock.stderr()).not.toContain('inspector');
  });

  it('refuses a bad --ui value as a usage error (exit 2)', async () => {
    const result = await spawnCli(['mock', 'platform', '--provider', 'acme', '--ui', '99999'], { env: ENV });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: option '--ui [host:port]' argument '99999' is invalid. expected a port from 0 to 65535.\nhint: run 'cai mock platform --help' for its options and examples\n",
    );
  });

  it('stops with exit 2, before printing the mock URL, when the inspector port is taken', async () => {
    const taken: Server = await new Promise((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => resolve(server));
    });
    try {
      const port = (taken.address() as { port: number }).port;
      const result = await spawnCli(['mock', 'platform', '--provider', 'acme', '--ui', `127.0.0.1:${port}`], {
        env: ENV,
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: the inspector's port ${port} on 127.0.0.1 is already in use\nhint: choose another --ui HOST:PORT, or --ui alone for any free port\n`,
      );
    } finally {
      taken.close();
    }
  });
});
