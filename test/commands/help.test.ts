import { describe, expect, it } from 'vitest';
import { runCli, fakeIo } from '../helpers/cli.js';
import { buildProgram } from '../../src/program.js';

const COMMANDS = [
  'sign',
  'verify',
  'validate',
  'schema',
  'send-job',
  'send-event',
  'replay',
  'trigger',
  'doctor',
  'report',
  'sample',
  'sample job',
  'sample event',
  'sample ack',
  'sample duplicate-ack',
  'mock',
  'mock platform',
  'mock provider',
  'conformance',
  'conformance run',
  'conformance list',
  'config',
  'config show',
  'config init',
  'completion',
];

describe("every command's --help ends with examples", () => {
  it.each(COMMANDS)('cai %s --help', async (command) => {
    const result = await runCli([...command.split(' '), '--help']);
    expect(result.code).toBe(0);
    const examples = result.stdout.slice(result.stdout.lastIndexOf('Examples:'));
    expect(examples).toMatch(/^Examples:\n(  \$ (\w+=\S+ )*cai .+\n(      .+\n)*)+/);
  });
});

describe('cai help <group> <command>', () => {
  it.each([
    ['conformance', 'run'],
    ['mock', 'provider'],
    ['sample', 'event'],
    ['config', 'init'],
  ])("cai help %s %s shows that command's help, as --help does", async (group, command) => {
    const routed = await runCli(['help', group, command]);
    const direct = await runCli([group, command, '--help']);
    expect(routed.code).toBe(0);
    expect(routed.stdout).toMatch(new RegExp(`^Usage: cai ${group} ${command} `));
    expect(routed.stdout).toBe(direct.stdout);
  });

  it('with global flags before it, and a group alone, as before', async () => {
    expect((await runCli(['--no-color', 'help', 'conformance', 'run'])).stdout).toMatch(/^Usage: cai conformance run /);
    expect((await runCli(['help', 'conformance'])).stdout).toMatch(/^Usage: cai conformance \[options\] \[command\]/);
  });

  it.each([
    [
      ['help', 'conformance', 'rn'],
      'error: cai conformance has no command rn (did you mean run?)',
      "hint: run 'cai conformance --help' for its commands",
    ],
    [['help', 'nosuch', 'x'], 'error: cai has no command nosuch', "hint: run 'cai --help' for its commands"],
    [['help', 'sign', 'x'], 'error: cai sign has no subcommands', "hint: run 'cai sign --help' for its commands"],
    [
      ['sgin', '--help'],
      'error: cai has no command sgin (did you mean sign?)',
      "hint: run 'cai --help' for its commands",
    ],
    [
      ['--no-color', 'inspector', '-h'],
      'error: cai has no command inspector',
      "hint: run 'cai --help' for its commands",
    ],
  ])('%j names the word that is no command: exit 2', async (argv, error, hint) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${error}\n${hint}\n`);
  });
});

describe('cai --help lists the commands without loading them (src/commands/common/registry.ts)', () => {
  it('as the commands themselves would: the same names, usages and descriptions', async () => {
    const help = async (argv?: string[]) =>
      (await buildProgram({ io: fakeIo({ env: { COLUMNS: '200' } }), exitCode: 0 }, argv)).helpInformation();
    // Without argv, every command's module is registered, as they describe themselves.
    expect(await help(['--help'])).toBe(await help());
  });
});
