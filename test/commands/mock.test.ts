import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const env = { CAI_SECRET: 'live-secret-0123456789', CAI_CALLBACK_SECRET: 'events-secret-0123456789' };

describe('cai mock (in-process)', () => {
  it('platform: prints the URL, then stops on Ctrl-C with exit 130', async () => {
    const result = await runCli(['mock', 'platform', '--provider', 'acme'], { env, interrupt: 'when-serving' });
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/events\n$/);
    expect(result.stderr).toBe(
      'mock platform: provider acme, 1 secret\nno --log: accepted events are kept in memory only\nready; Ctrl-C to stop\nSIGINT: finishing requests in flight…\nstopped\n',
    );
  });

  it('platform --json: the first line is {"url": …}', async () => {
    const result = await runCli(['--json', 'mock', 'platform', '--provider', 'acme', '--path', '/cai/events'], {
      env,
      interrupt: 'when-serving',
    });
    expect(result.code).toBe(130);
    expect(JSON.parse(result.stdout.trim())).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:[0-9]+\/cai\/events$/),
    });
  });

  it('provider: prints the base URL and stops on the interrupt', async () => {
    const result = await runCli(
      ['mock', 'provider', '--provider', 'acme', '--scenario', 'random', '--break', 'bad-ack'],
      { env, interrupt: 'when-serving' },
    );
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\n$/);
    expect(result.stderr).toContain('deliberately broken: bad-ack');
  });

  it('provider without --source: a note that the source checks of a conformance run will warn, and how to avoid it', async () => {
    const note =
      'note: no --source: jobs are accepted whatever their X-CAI-Source (§4.1), so a conformance run warns on its source checks (--only source); pass --source PLATFORM_ID to accept only that platform';
    const without = await runCli(['mock', 'provider', '--provider', 'acme'], { env, interrupt: 'when-serving' });
    expect(without.stderr).toContain(`${note}\n`);
    const given = await runCli(['mock', 'provider', '--provider', 'acme', '--source', 'platform-eu'], {
      env,
      interrupt: 'when-serving',
    });
    expect(given.stderr).not.toContain('no --source');
  });

  it.each(['platform', 'provider'])('%s --host "" is refused, not read as every interface', async (name) => {
    // Interrupted once it serves: a mock that listens anyway ends with 130, not a hung test.
    const result = await runCli(['mock', name, '--provider', 'acme', '--host', ''], { env, interrupt: 'when-serving' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: the address to listen on is empty\nhint: use --host 127.0.0.1 (or 0.0.0.0 for every interface)\n',
    );
  });

  it.each(['platform', 'provider'])('%s --catalog "" is refused, not a mock that checks no branch', async (name) => {
    const result = await runCli(['mock', name, '--provider', 'acme', '--catalog', ''], {
      env,
      interrupt: 'when-serving',
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "error: the catalog file's path is empty\nhint: give --catalog the path of the branch catalog (JSON), or leave it out\n",
    );
  });

  it('refuses a test secret without --test-provider, and TLS files that do not go together', async () => {
    const orphan = await runCli(['mock', 'platform', '--provider', 'acme', '--test-secret-env', 'X'], { env });
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toBe(
      'error: a test secret was given without --test-provider\nhint: pass --test-provider CODE with the test credential (§1)\n',
    );
    const tls = await runCli(['mock', 'platform', '--provider', 'acme', '--tls-cert', 'fixtures/tls/server.pem'], {
      env,
    });
    expect(tls.code).toBe(2);
    expect(tls.stderr).toBe(
      'error: --tls-cert and --tls-key go together\nhint: pass both the PEM certificate and its PEM private key\n',
    );
    const missing = await runCli(
      ['mock', 'platform', '--provider', 'acme', '--tls-cert', 'nope.pem', '--tls-key', 'nope.key'],
      { env },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: cannot read the TLS cert nope\.pem: .*\nhint: check the --tls-cert path\n$/,
    );
    const logDir = await runCli(['mock', 'platform', '--provider', 'acme', '--log', 'test'], { env });
    expect(logDir.code).toBe(2);
    expect(logDir.stderr).toMatch(
      /^error: the log .*test is not a regular file \(a directory\)\nhint: pass --log a regular file \(it is created when missing\)\n$/,
    );
    const noDir = await runCli(['mock', 'platform', '--provider', 'acme', '--log', '/nonexistent-cai-dir/x.ndjson'], {
      env,
    });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(
      /^error: cannot use the log \/nonexistent-cai-dir\/x\.ndjson: its directory \/nonexistent-cai-dir does not exist\nhint: /,
    );
    const catalog = await runCli(['mock', 'provider', '--provider', 'acme', '--catalog', 'package.json'], { env });
    expect(catalog.code).toBe(2);
    expect(catalog.stderr).toMatch(/^error: the catalog .*package\.json is not a list of branches\nhint: /);
  });

  it('reads --catalog as cai validate does: a missing file in words, and - from stdin', async () => {
    expect(await runCli(['mock', 'platform', '--provider', 'acme', '--catalog', 'missing.json'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: catalog file missing.json does not exist\nhint: check the path, or pass - to read from stdin\n',
    });
    // Not a list: the catalog was read from stdin, not looked for in a file named -.
    const piped = await runCli(['mock', 'provider', '--provider', 'acme', '--catalog', '-'], { env, stdin: '{}' });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/^error: the catalog - is not a list of branches\nhint: /);
  });
});
