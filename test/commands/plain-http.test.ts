/**
 * §5.8 (TLS 1.2 or above, both directions) at the sending commands: plain http to an address that is not this
 * machine is said on stderr by send-event, send-job and replay; under `--tls required` or a profile's
 * `"tls": "required"` it is refused (exit 2, with the hint) before anything is sent; `--allow-http` says it is on
 * purpose. Nothing here reaches another machine: the sends go to a proxy on a loopback port where nothing listens.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-plain-http-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_plain_http' };
const TARGET = 'http://platform.example/events';
const WARNING =
  'warning: sending in clear text to http://platform.example: §5.8 requires TLS 1.2 or above (pass --allow-http if this is on purpose)';
let proxy: string[];
beforeAll(async () => {
  proxy = ['--proxy', `http://127.0.0.1:${await deadLoopbackPort()}`, '--no-retry'];
});

describe('plain http to another machine', () => {
  it('send-event says so, then sends', async () => {
    const result = await runCli(['send-event', '--to', TARGET, '--provider', 'acme', '--sample', ...proxy], { env });
    expect(result.stderr).toContain(`${WARNING}\n`);
    expect(result.code).toBe(3);
  });

  it('send-job and replay too', async () => {
    const job = await runCli(
      [
        'send-job',
        '--to',
        'http://provider.example/cai',
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
        ...proxy,
      ],
      { env },
    );
    expect(job.stderr).toContain('warning: sending in clear text to http://provider.example: §5.8');
    const capture = join(dir, 'capture.http');
    writeFileSync(
      capture,
      (
        await runCli(
          ['send-event', '--to', 'https://platform.example/events', '--provider', 'acme', '--sample', '--dry-run'],
          { env },
        )
      ).stdout,
    );
    const replay = await runCli(['replay', '--request', capture, '--to', TARGET, ...proxy], { env });
    expect(replay.stderr).toContain(`${WARNING}\n`);
  });

  it('--allow-http: on purpose, no warning', async () => {
    const result = await runCli(
      ['send-event', '--to', TARGET, '--provider', 'acme', '--sample', '--allow-http', ...proxy],
      { env },
    );
    expect(result.stderr).not.toContain('clear text');
    expect(result.code).toBe(3);
  });

  it('--tls required: refused before anything is sent, exit 2, with the hint', async () => {
    const result = await runCli(
      ['send-event', '--to', TARGET, '--provider', 'acme', '--sample', '--tls', 'required', ...proxy],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: http://platform.example is plain http, and TLS is required here (--tls required, or the profile\'s "tls": "required"; §5.8)\nhint: use the https:// URL of the endpoint, or pass --allow-http to send in clear text on purpose\n',
    );
  });

  it('a profile marked "tls": "required" refuses it the same; --allow-http still sends', async () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'cai.config.json'),
      JSON.stringify({
        version: 1,
        environments: {
          production: {
            provider_code: 'acme',
            events_url: TARGET,
            tls: 'required',
            secrets: { events: { env: 'CAI_SECRET' } },
          },
        },
      }),
    );
    const refused = await runCli(['send-event', '--sample', ...proxy], { env, cwd: project });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('TLS is required here');
    const allowed = await runCli(['send-event', '--sample', '--allow-http', ...proxy], { env, cwd: project });
    expect(allowed.code).toBe(3);
    expect(allowed.stderr).not.toContain('clear text');
  });

  it('conformance run: said too, refused under --tls required before any probe', async () => {
    const warned = await runCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--target',
        TARGET,
        '--provider',
        'acme',
        '--only',
        'B-SIG-001',
        '--proxy',
        proxy[1] as string,
      ],
      { env },
    );
    expect(warned.stderr).toContain(`${WARNING}\n`);
    const refused = await runCli(
      ['conformance', 'run', '--interface', 'B', '--target', TARGET, '--provider', 'acme', '--tls', 'required'],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('TLS is required here');
  });

  it('a loopback address is this machine: no warning, even under --tls required', async () => {
    const port = await deadLoopbackPort();
    const result = await runCli(
      ['send-event', '--to', `http://127.0.0.1:${port}/events`, '--provider', 'acme', '--sample', '--tls', 'required'],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain('clear text');
    expect(result.stderr).not.toContain('TLS is required');
  });
});
