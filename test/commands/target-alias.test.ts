/**
 * One name for the address on every command: `--to`, shown in every help; `--target` (the name `conformance run` and
 * `doctor` used) accepted by each of them as another name for it, hidden from help. Both with two addresses is a
 * usage error; a `--target` on the command line wins over a profile's address, as `--to` does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../src/mock/platform.js';
import { runCli } from '../helpers/cli.js';
import { loadProgram } from '../docs/cli-surface.js';

const SECRET = 'whsec_target_alias_0123456789';
const env = { CAI_SECRET: SECRET };
const dir = mkdtempSync(join(tmpdir(), 'cai-target-alias-'));

let platform: RunningMockPlatform;
beforeAll(async () => {
  platform = await startMockPlatform({ providerCode: 'acme', secrets: [SECRET] });
});
afterAll(async () => {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

function commandsOf(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return [
    { path: path.join(' '), command },
    ...command.commands.flatMap((sub) => commandsOf(sub, [...path, sub.name()])),
  ];
}

describe('--to everywhere, --target its other name', () => {
  it('every command with an address documents --to and accepts a hidden --target', async () => {
    const program = await loadProgram();
    const withAddress = commandsOf(program).filter(({ command }) =>
      command.options.some((option) => option.long === '--to' || option.long === '--target'),
    );
    expect(withAddress.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['send-job', 'send-event', 'replay', 'load', 'conformance run', 'doctor']),
    );
    for (const { path, command } of withAddress) {
      const to = command.options.find((option) => option.long === '--to');
      const target = command.options.find((option) => option.long === '--target');
      expect(to?.hidden, `cai ${path} --to`).toBe(false);
      expect(target?.hidden, `cai ${path} --target`).toBe(true);
    }
  });

  it('cai send-event --target URL sends to URL', async () => {
    const result = await runCli(['send-event', '--target', platform.url, '--provider', 'acme', '--sample'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('accepted: a new event');
  });

  it('cai conformance run --to URL checks URL', async () => {
    const result = await runCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--to',
        platform.url,
        '--provider',
        'acme',
        '--only',
        'B-ACCEPT-001',
        '--repro-dir',
        join(dir, 'repro'),
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`cai conformance: interface B, ${platform.url}, clock offset`);
    expect(result.stdout).toMatch(/^1 passed, 0 failed, 0 skipped$/m);
  });

  it('cai conformance run --target URL still runs (the name it had)', async () => {
    const result = await runCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--target',
        platform.url,
        '--provider',
        'acme',
        '--only',
        'B-ACCEPT-001',
        '--repro-dir',
        join(dir, 'repro'),
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
  });

  it('both names with two addresses: a usage error; the same address twice is fine', async () => {
    const both = await runCli(
      ['send-event', '--to', platform.url, '--target', 'http://127.0.0.1:9/events', '--provider', 'acme', '--sample'],
      { env },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'error: --to and --target name two addresses\nhint: pass --to URL once (--target is another name for it)\n',
    );
    const same = await runCli(
      ['send-event', '--to', platform.url, '--target', platform.url, '--provider', 'acme', '--sample'],
      { env },
    );
    expect(same.code, same.stderr).toBe(0);
  });

  it('--target is read as --to is: a bad URL is refused with its name', async () => {
    const result = await runCli(['send-event', '--target', 'not a url', '--provider', 'acme', '--sample'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: option '--target <url>' argument 'not a url' is invalid/);
  });

  it("a --target on the command line wins over the profile's address", async () => {
    const profile = join(dir, 'cai.config.json');
    writeFileSync(
      profile,
      JSON.stringify({
        version: 1,
        environments: {
          test: {
            events_url: 'http://127.0.0.1:9/events',
            provider_code: 'acme',
            secrets: { events: { env: 'CAI_SECRET' } },
          },
        },
      }),
    );
    const result = await runCli(['--config', profile, 'send-event', '--target', platform.url, '--sample'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('accepted: a new event');
  });

  it('help shows --to only', async () => {
    for (const argv of [
      ['conformance', 'run', '--help'],
      ['doctor', '--help'],
      ['send-event', '--help'],
    ]) {
      const result = await runCli(argv);
      expect(result.stdout).toMatch(/^ {2}--to <url> /m);
      expect(result.stdout).not.toContain('--target');
    }
  });
});
