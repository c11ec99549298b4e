import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnCli } from '../helpers/cli.js';
import { SPEC_VERSION } from '../../src/spec/constants.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-e2e-'));
const bodyFile = join(dir, 'event.json');
writeFileSync(bodyFile, '{"event":"job.closed","event_id":"evt_e2e"}');

describe('the built binary: bad input gets one error line, one hint line, the right exit code', () => {
  it('missing secret → 2', async () => {
    const result = await spawnCli(['sign', '--body', bodyFile]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: no secret given and CAI_SECRET is not set\nhint: pass --secret-env NAME, --secret-file PATH or --secret VALUE, or set CAI_SECRET\n',
    });
  });

  it('a secret variable set but empty → 2, and says it is empty', async () => {
    const result = await spawnCli(['sign', '--body', bodyFile], { env: { CAI_SECRET: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('error: no secret given and CAI_SECRET is empty');
  });

  it('unreadable body file → 2', async () => {
    const result = await spawnCli(['sign', '--body', join(dir, 'nope.json')], {
      env: { CAI_SECRET: 'whsec_e2e_secret' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: body file ${join(dir, 'nope.json')} does not exist\nhint: check the path, or pass - to read from stdin\n`,
    );
  });

  it('malformed signature → 1 with the reason', async () => {
    const result = await spawnCli(
      ['verify', '--body', bodyFile, '--timestamp', '1768469400', '--signature', 'md5=abc', '--now', '1768469400'],
      {
        env: { CAI_SECRET: 'whsec_e2e_secret' },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(
      'invalid (malformed_signature): the signature is not "sha256=" followed by 64 lowercase hex characters',
    );
    expect(result.stderr).toBe('');
  });

  it('bad timestamp option → 2, with commander naming the option', async () => {
    const result = await spawnCli(['sign', '--body', bodyFile, '--timestamp', 'yesterday'], {
      env: { CAI_SECRET: 'whsec_e2e_secret' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: option '--timestamp <seconds>' argument 'yesterday' is invalid. expected unix seconds, a whole number such as 1700000000.\nhint: run 'cai sign --help' for its options and examples\n",
    );
  });

  it('unknown option → 2 with a suggestion', async () => {
    const result = await spawnCli(['verify', '--signatur', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown option '--signatur' (did you mean --signature?)\nhint: run 'cai verify --help' for its options and examples\n",
    );
  });

  it('--json errors are one JSON document on stdout', async () => {
    const result = await spawnCli(['--json', 'sign', '--body', bodyFile]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      error: {
        code: 'missing_secret',
        message: 'no secret given and CAI_SECRET is not set',
        hint: 'pass --secret-env NAME, --secret-file PATH or --secret VALUE, or set CAI_SECRET',
        exitCode: 2,
      },
    });
  });

  it('--version and help work', async () => {
    // One source for the version: package.json (issue #12); the spec version beside it.
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await spawnCli(['--version'])).toEqual({
      code: 0,
      stdout: `${version} (spec ${SPEC_VERSION})\n`,
      stderr: '',
    });
    expect(await spawnCli(['sign', '--json', '-V'])).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ version, spec: '1.0' })}\n`,
      stderr: '',
    });
    const help = await spawnCli(['help', 'sign']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });

  it('a command group without its subcommand → 2, one error line and one hint line', async () => {
    expect(await spawnCli(['mock'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: cai mock needs a subcommand: platform, provider\nhint: run 'cai mock --help' for what each does\n",
    });
    expect((await spawnCli([])).stderr).toBe("error: cai needs a command\nhint: run 'cai --help' for the commands\n");
  });

  it('global options are told apart from a missing command and from an unknown option', async () => {
    // --config=FILE and --env NAME take values, which are no command words; --bogus is commander's unknown option.
    expect((await spawnCli(['--quiet', '--config=none.json'])).stderr).toBe(
      "error: cai needs a command\nhint: run 'cai --help' for the commands\n",
    );
    const group = await spawnCli(['--env', 'prod', 'mock']);
    expect([group.code, group.stderr.split('\n')[0]]).toEqual([
      2,
      'error: cai mock needs a subcommand: platform, provider',
    ]);
    const unknown = await spawnCli(['--bogus']);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([2, "error: unknown option '--bogus'"]);
  });

  it('a mistyped subcommand → 2, pointing at the group help', async () => {
    const result = await spawnCli(['mock', 'platfrom']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown command 'platfrom' (did you mean platform?)\nhint: run 'cai mock --help' for its options and examples\n",
    );
  });

  it('verify --example reproduces the shipped worked example', async () => {
    const result = await spawnCli(['verify', '--example']);
    expect(result.code).toBe(0);
  });
});
