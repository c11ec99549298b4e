import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULT_RULES, type DefaultRule } from '../../src/commands/common/config-defaults-table.js';
import { installConfigDefaults } from '../../src/commands/common/config-defaults.js';
import { addSecretOptions, type SecretPrefix } from '../../src/commands/common/secret-options.js';
import { buildProgram } from '../../src/program.js';
import type { RunState } from '../../src/commands/common/runner.js';
import { fakeIo } from '../helpers/cli.js';

const settings = {
  provider_code: 'acme',
  platform_id: 'plat-1',
  provider_endpoint: 'https://provider.example/cai/',
  events_url: 'https://platform.example/cai/events',
  branches: [
    { branch_code: 'BR-1', name: 'One' },
    { branch_code: 'BR-2', name: 'Two' },
  ],
  authorised_origins: ['203.0.113.7', '198.51.100.0/24'],
  secrets: { jobs: [{ file: 'jobs.secret' }, { env: 'JOBS_OLD' }], events: { env: 'EVENTS' } },
  tls: 'required',
};

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cai-defaults-'));
  writeFileSync(join(dir, 'cai.config.json'), JSON.stringify({ version: 1, environments: { test: settings } }));
  writeFileSync(join(dir, 'jobs.secret'), 'jobs-secret-value\n');
  chmodSync(join(dir, 'jobs.secret'), 0o600);
  return dir;
}

const SECRET_PREFIXES: readonly SecretPrefix[] = ['secret', 'callback-secret', 'other-secret'];

/** A program whose commands carry exactly the options the table names, to exercise the mechanism alone. */
function programFromTable(state: RunState, seen: Map<string, Record<string, unknown>>): Command {
  const program = new Command('cai').option('--config <file>').option('--env <name>').exitOverride();
  const paths = [...new Set(CONFIG_DEFAULT_RULES.map((rule) => rule.command))];
  for (const path of paths) {
    const [first, second] = path.split(' ') as [string, string | undefined];
    const parent = second ? (program.commands.find((c) => c.name() === first) ?? program.command(first)) : program;
    const command = parent
      .command(second ?? first)
      .addOption(new Option('--interface <id>').choices(['A', 'B']))
      .option('--mock');
    const flags = new Set(CONFIG_DEFAULT_RULES.filter((rule) => rule.command === path).map((rule) => rule.option));
    for (const flag of flags) {
      const prefix = flag.slice(2) as SecretPrefix;
      if (SECRET_PREFIXES.includes(prefix)) addSecretOptions(command, prefix, 'x');
      else if (flag === '--allow-origin')
        command.option(`${flag} <v>`, 'x', (v: string, p: string[] = []) => [...p, v]);
      else command.option(`${flag} <v>`);
    }
    command.action((_o, cmd: Command) => {
      seen.set(
        path,
        Object.fromEntries(
          Object.keys(cmd.opts()).map((key) => [
            key,
            { value: cmd.getOptionValue(key), source: cmd.getOptionValueSource(key) },
          ]),
        ),
      );
    });
  }
  installConfigDefaults(program, state);
  return program;
}

/** What the table promises for one rule, in terms of commander attribute names and values. */
function expected(rule: DefaultRule, dir: string): Record<string, unknown> {
  const camel = (flag: string) => flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
  switch (rule.field) {
    case 'secrets.jobs':
      return {
        [`${camel(rule.option)}File`]: [
          { kind: 'file', named: `${rule.option}-file`, ref: join(dir, 'jobs.secret'), order: 0 },
        ],
        [`${camel(rule.option)}Env`]: [{ kind: 'env', named: `${rule.option}-env`, ref: 'JOBS_OLD', order: 1 }],
      };
    case 'secrets.events':
      return { [`${camel(rule.option)}Env`]: [{ kind: 'env', named: `${rule.option}-env`, ref: 'EVENTS', order: 0 }] };
    case 'provider_endpoint':
      return {
        [camel(rule.option)]:
          rule.shape === 'contact-jobs-url' ? 'https://provider.example/cai/contact-jobs' : settings.provider_endpoint,
      };
    case 'branches':
      return { [camel(rule.option)]: rule.shape === 'first-branch-code' ? 'BR-1' : settings.branches };
    case 'authorised_origins':
      return { [camel(rule.option)]: settings.authorised_origins };
    case 'events_url':
      return { [camel(rule.option)]: rule.shape === 'url-path' ? '/cai/events' : settings.events_url };
    default:
      return { [camel(rule.option)]: settings[rule.field] };
  }
}

describe('config defaults: the table, rule by rule', () => {
  const env = { JOBS_OLD: 'jobs-old-secret', EVENTS: 'events-secret-value' };

  it.each(
    CONFIG_DEFAULT_RULES.map(
      (rule) =>
        [
          `${rule.command}${rule.when ? ` --interface ${rule.when.interface}` : ''} ${rule.option} ← ${rule.field}`,
          rule,
        ] as const,
    ),
  )('%s', async (_name, rule) => {
    const dir = workspace();
    const seen = new Map<string, Record<string, unknown>>();
    const state: RunState = { io: fakeIo({ cwd: dir, env }), exitCode: 0 };
    const argv = [...rule.command.split(' '), ...(rule.when ? ['--interface', rule.when.interface] : [])];
    await programFromTable(state, seen).parseAsync(argv, { from: 'user' });
    const options = seen.get(rule.command) as Record<string, { value: unknown; source: string }>;
    for (const [key, value] of Object.entries(expected(rule, dir))) {
      expect(options[key]?.value, key).toEqual(value);
      expect(options[key]?.source, key).toBe('config');
    }
  });

  it('a flag given on the command line always wins, and silences the whole secret family', async () => {
    const dir = workspace();
    const seen = new Map<string, Record<string, unknown>>();
    const state: RunState = { io: fakeIo({ cwd: dir, env }), exitCode: 0 };
    await programFromTable(state, seen).parseAsync(
      ['send-job', '--to', 'https://elsewhere.example', '--secret', 'inline'],
      { from: 'user' },
    );
    const options = seen.get('send-job') as Record<string, { value: unknown; source: string }>;
    expect(options.to).toEqual({ value: 'https://elsewhere.example', source: 'cli' });
    expect(options.secretEnv).toBeUndefined();
    expect(options.secretFile).toBeUndefined();
    expect(options.source).toEqual({ value: 'plat-1', source: 'config' });
  });

  it('--mock cancels the configured --target of a conformance run', async () => {
    const dir = workspace();
    const seen = new Map<string, Record<string, unknown>>();
    await programFromTable({ io: fakeIo({ cwd: dir, env }), exitCode: 0 }, seen).parseAsync(
      ['conformance', 'run', '--interface', 'B', '--mock'],
      { from: 'user' },
    );
    const options = seen.get('conformance run') as Record<string, { value: unknown }>;
    expect(options.target).toBeUndefined();
    expect(options.secretEnv).toBeUndefined();
    expect(options.provider?.value).toBe('acme');
  });

  it('passes the branches to --catalog as a Branch[] catalog, as data (no file is written)', async () => {
    const dir = workspace();
    const seen = new Map<string, Record<string, unknown>>();
    await programFromTable({ io: fakeIo({ cwd: dir, env }), exitCode: 0 }, seen).parseAsync(['mock', 'provider'], {
      from: 'user',
    });
    const catalog = (seen.get('mock provider') as Record<string, { value: unknown; source: string }>).catalog;
    expect(catalog).toEqual({ value: settings.branches, source: 'config' });
  });

  it('stops with the config field named when a referenced secret is missing, and warns about a loose secret file', async () => {
    const dir = workspace();
    const io = fakeIo({ cwd: dir, env: { EVENTS: 'events-secret-value' } });
    await expect(
      programFromTable({ io, exitCode: 0 }, new Map()).parseAsync(['send-job'], { from: 'user' }),
    ).rejects.toThrow(
      `environment variable JOBS_OLD is not set (secrets.jobs of environment test in ${join(dir, 'cai.config.json')})`,
    );
    chmodSync(join(dir, 'jobs.secret'), 0o644);
    const loose = fakeIo({ cwd: dir, env });
    await programFromTable({ io: loose, exitCode: 0 }, new Map()).parseAsync(['send-job'], { from: 'user' });
    expect(loose.err()).toBe(
      `warning: secret file jobs.secret is readable by other users (mode 644); run: chmod 600 ${join(dir, 'jobs.secret')}\n`,
    );
  });
});

describe('config defaults: the mapping itself', () => {
  it('is the documented table (§5.1: jobs secret for Interface A, events secret for Interface B)', () => {
    const lines = CONFIG_DEFAULT_RULES.map(
      (r) =>
        `${r.command}${r.when ? ` [${r.when.interface}]` : ''} ${r.option} <- ${r.field}${r.shape ? ` (${r.shape})` : ''}${r.unless ? ` unless ${r.unless.join(' ')}` : ''}${r.optional ? ' optional' : ''}`,
    );
    expect(lines).toEqual([
      'sign [A] --secret <- secrets.jobs',
      'sign [A] --source <- platform_id',
      'sign [A] --url <- provider_endpoint (contact-jobs-url)',
      'sign [B] --secret <- secrets.events',
      'sign [B] --provider <- provider_code',
      'sign [B] --url <- events_url',
      'verify [A] --secret <- secrets.jobs',
      'verify [B] --secret <- secrets.events',
      'verify [A] --other-secret <- secrets.events optional',
      'verify [B] --other-secret <- secrets.jobs optional',
      'send-job --to <- provider_endpoint',
      'send-job --source <- platform_id',
      'send-job --secret <- secrets.jobs',
      'send-job --callback-url <- events_url',
      'send-job --branch-code <- branches (first-branch-code)',
      'send-event --to <- events_url',
      'send-event --provider <- provider_code',
      'send-event --secret <- secrets.events',
      'send-job --tls <- tls',
      'send-event --tls <- tls',
      'replay --tls <- tls',
      'conformance run --tls <- tls',
      'mock platform --provider <- provider_code',
      'mock platform --secret <- secrets.events',
      'mock platform --allow-origin <- authorised_origins',
      'mock platform --path <- events_url (url-path)',
      'mock platform --catalog <- branches (catalog)',
      'mock provider --provider <- provider_code',
      'mock provider --source <- platform_id',
      'mock provider --secret <- secrets.jobs',
      'mock provider --callback-secret <- secrets.events',
      'mock provider --catalog <- branches (catalog)',
      'conformance run [A] --target <- provider_endpoint unless --mock',
      'conformance run [A] --source <- platform_id',
      'conformance run [A] --branch-code <- branches (first-branch-code)',
      'conformance run [A] --provider <- provider_code',
      'conformance run [A] --secret <- secrets.jobs unless --mock',
      'conformance run [A] --callback-secret <- secrets.events unless --mock',
      'conformance run [B] --target <- events_url unless --mock',
      'conformance run [B] --provider <- provider_code',
      'conformance run [B] --branch-code <- branches (first-branch-code)',
      'conformance run [B] --secret <- secrets.events unless --mock',
    ]);
  });
});

describe('config defaults: the real program', () => {
  it('every rule whose command is registered names an option that command really has', async () => {
    const program = await buildProgram({ io: fakeIo({ cwd: tmpdir() }), exitCode: 0 });
    const find = (path: string): Command | undefined =>
      path
        .split(' ')
        .reduce<Command | undefined>((command, name) => command?.commands.find((c) => c.name() === name), program);
    let checked = 0;
    for (const rule of CONFIG_DEFAULT_RULES) {
      const command = find(rule.command);
      if (!command) continue; // built on another branch; this test covers it once merged
      const longs = command.options.map((option) => option.long);
      const isSecret = rule.field.startsWith('secrets.');
      expect(longs, `${rule.command} ${rule.option}`).toContain(isSecret ? `${rule.option}-env` : rule.option);
      if (isSecret) expect(longs).toContain(`${rule.option}-file`);
      if (rule.when) expect(longs, `${rule.command} --interface`).toContain('--interface');
      for (const flag of rule.unless ?? []) expect(longs).toContain(flag);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});

describe('config defaults: required options', () => {
  function programWithRequired(state: RunState, seen: Map<string, unknown>): Command {
    // commander's own usage error goes to the run's stderr, as src/program.ts has it, not the test runner's.
    const program = new Command('cai')
      .option('--config <file>')
      .option('--env <name>')
      .exitOverride()
      .configureOutput({ writeErr: (text) => state.io.stderr.write(text) });
    const mock = program.command('mock');
    mock
      .command('platform')
      .requiredOption('--provider <code>')
      .option('--port <n>')
      .action((options: { provider: string }) => {
        seen.set('provider', options.provider);
      });
    installConfigDefaults(program, state);
    return program;
  }

  it('a required option the profile provides is satisfied by it (commander checks before hooks run)', async () => {
    const dir = workspace();
    const seen = new Map<string, unknown>();
    await programWithRequired({ io: fakeIo({ cwd: dir }), exitCode: 0 }, seen).parseAsync(['mock', 'platform'], {
      from: 'user',
    });
    expect(seen.get('provider')).toBe('acme');
  });

  it("without a profile, a missing required option is still commander's usage error", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-noconfig-'));
    const seen = new Map<string, unknown>();
    const io = fakeIo({ cwd: dir });
    await expect(
      programWithRequired({ io, exitCode: 0 }, seen).parseAsync(['mock', 'platform'], {
        from: 'user',
      }),
    ).rejects.toMatchObject({
      code: 'commander.missingMandatoryOptionValue',
      message: "error: required option '--provider <code>' not specified",
    });
    expect(io.err()).toBe("error: required option '--provider <code>' not specified\n");
    expect(seen.size).toBe(0);
  });
});
