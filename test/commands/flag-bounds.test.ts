/**
 * How flags are read, whatever the command: a bound on every duration and on the numbers that had none, a flag that
 * takes one value given twice, an empty --only, unknown options and help topics, and the exit code --json states
 * after Ctrl-C (docs/cli.md, docs/limits.md "Flag values").
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_flag_bounds' };
const TO = 'http://127.0.0.1:9/events';

let servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

/** One `error:` line and one `hint:` line, exit 2. */
async function usage(argv: string[], error: string, hint?: string): Promise<void> {
  const result = await runCli(argv, { env });
  expect(result.stderr).toMatch(/^error: .*\nhint: .*\n$/);
  expect(result.stderr.split('\n')[0]).toBe(`error: ${error}`);
  if (hint !== undefined) expect(result.stderr.split('\n')[1]).toBe(`hint: ${hint}`);
  expect(result.stdout).toBe('');
  expect(result.code).toBe(2);
}

describe('every duration flag has a bound of 24 h', () => {
  it.each([
    ['doctor', '--to', TO, '--timeout'],
    ['trigger', 'job', '--to', TO, '--pace'],
    ['mock', 'platform', '--provider', 'acme', '--latency'],
    ['conformance', 'run', '--mock', '--interface', 'B', '--timeout'],
    ['conformance', 'run', '--mock', '--interface', 'A', '--callback-wait'],
    ['send-event', '--to', TO, '--provider', 'acme', '--sample', '--timeout'],
    ['load', '--mock', '--duration'],
  ])(
    '%s … %s 999999h is refused, naming the flag and the bound',
    async (...argv) => {
      const flag = argv.at(-1) as string;
      const result = await runCli([...argv, '999999h'], { env });
      expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^error: option '${flag} <[a-z]+>' argument '999999h'`));
      expect(result.stderr.split('\n')[0]).toContain('expected at most 24h (docs/limits.md).');
      expect(result.stderr).not.toContain('TimeoutOverflowWarning');
      expect(result.code).toBe(2);
    },
    20_000,
  );

  it('24h itself is taken; a bare --latency in milliseconds past a day is refused', async () => {
    const dry = await runCli(
      ['send-event', '--to', TO, '--provider', 'acme', '--sample', '--timeout', '24h', '--dry-run'],
      { env },
    );
    expect(dry.code).toBe(0);
    await usage(
      ['mock', 'platform', '--provider', 'acme', '--latency', '86400001'],
      "option '--latency <ms>' argument '86400001' is invalid. expected at most 24h (docs/limits.md).",
    );
  });
});

describe('a flag that takes one value, given twice', () => {
  const hint = (flag: string) => `pass ${flag} once: only the flags whose --help says repeatable take several values`;

  it.each([
    [
      ['send-event', '--to', 'http://a.test/', '--to', 'http://b.test/', '--provider', 'acme', '--sample'],
      '--to',
      'http://a.test/ and http://b.test/',
    ],
    [['send-event', '--to', TO, '--provider', 'acme', '--provider', 'evil', '--sample'], '--provider', 'acme and evil'],
    [
      ['send-event', '--to', TO, '--provider', 'acme', '--body', 'a.json', '--body', 'b.json'],
      '--body',
      'a.json and b.json',
    ],
    [['sign', '--body', 'README.md', '--timestamp', '1', '--timestamp', '2'], '--timestamp', '1 and 2'],
    [['load', '--mock', '--rate', '5/s', '--rate', '7/s'], '--rate', '5/s and 7/s'],
    [
      ['doctor', '--target', 'http://a.test/', '--target', 'http://b.test/'],
      '--target',
      'http://a.test/ and http://b.test/',
    ],
    [['--config', 'a.json', '--config', 'b.json', 'sign'], '--config', 'a.json and b.json'],
  ])('%j is a usage error', async (argv, flag, values) => {
    await usage(argv, `${flag} is given twice (${values})`, hint(flag));
  });

  it('the repeatable flags still collect', async () => {
    const sample = await runCli(
      ['sample', 'event', 'conversation.message', '--set', 'data.text="a"', '--set', 'data.direction="inbound"'],
      { env },
    );
    expect(sample.code).toBe(0);
    expect(JSON.parse(sample.stdout)).toMatchObject({ data: { text: 'a', direction: 'inbound' } });
    const secrets = await runCli(
      ['sign', '--body', 'README.md', '--timestamp', '1', '--secret-env', 'ONE', '--secret-env', 'TWO'],
      { env: { ONE: 'one', TWO: 'two' } },
    );
    expect(secrets.stderr).not.toContain('given twice');
    expect(secrets.code).toBe(0);
  });

  it("a profile's value is no first value: the flag given once wins over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-flag-bounds-'));
    writeFileSync(
      join(dir, 'cai.config.json'),
      JSON.stringify({
        version: 1,
        environments: {
          test: {
            provider_code: 'acme-test',
            events_url: 'https://platform.example/test/events',
            secrets: { events: { env: 'CAI_SECRET' } },
          },
        },
      }),
    );
    const result = await runCli(
      ['--env', 'test', 'send-event', '--provider', 'acme', '--to', TO, '--sample', '--dry-run'],
      { cwd: dir, env },
    );
    expect(result.stderr).not.toContain('given twice');
    expect(result.stdout).toContain('X-CAI-Provider: acme\r\n');
    expect(result.stdout).toContain('POST /events HTTP/1.1');
    expect(result.code).toBe(0);
  });
});

describe('numbers with a stated bound', () => {
  it.each([
    [
      ['verify', '--signature', 'sha256=00', '--timestamp', '1', '--body', 'README.md', '--window'],
      '99999999999999999',
      '86400',
    ],
    [['send-event', '--to', TO, '--provider', 'acme', '--sample', '--max-attempts'], '99999999999', '1000'],
    [['sample', 'event', 'conversation.message', '--count'], '99999999999999999999', '1000000'],
    [['send-event', '--to', TO, '--provider', 'acme', '--ndjson', '-', '--concurrency'], '100000', '256'],
    [['conformance', 'run', '--mock', '--interface', 'B', '--concurrency'], '257', '256'],
    [['conformance', 'run', '--mock', '--interface', 'B', '--max-failures'], '99999999999999999999', '10000'],
    [['mock', 'platform', '--provider', 'acme', '--dedupe-capacity'], '99999999999999999999', '100000000'],
    [['mock', 'platform', '--provider', 'acme', '--fail-first'], '99999999999999999999', '1000'],
  ])('%j %s is refused: at most %s', async (argv, value, bound) => {
    const flag = argv.at(-1) as string;
    await usage(
      [...argv, value],
      `option '${flag} <${flag === '--window' ? 'seconds' : 'n'}>' argument '${value}' is invalid. expected at most ${bound} (docs/limits.md).`,
    );
  });

  it.each([
    [['send-event', '--to', TO, '--provider', 'acme', '--ndjson', '-', '--rate'], '99999999999999999999/s', 'n/s'],
    [['send-job', '--to', TO, '--source', 'p', '--ndjson', '-', '--rate'], '0.5/h', 'n/s'],
    [['mock', 'platform', '--provider', 'acme', '--rate-limit'], '0.0001/s', 'rate'],
    [['load', '--mock', '--rate'], '100001/s', 'n/s'],
  ])('%j %s is refused: a rate from 1/h to 100000/s', async (argv, value, placeholder) => {
    const flag = argv.at(-1) as string;
    const bound = value.endsWith('/h') || value.startsWith('0.') ? 'at least 1/h' : 'at most 100000/s';
    await usage(
      [...argv, value],
      `option '${flag} <${placeholder}>' argument '${value}' is invalid. expected ${bound} (docs/limits.md).`,
    );
  });
});

describe('mock provider --speed', () => {
  it.each([
    ['1e-9', 'from 0.01 to 1000000 (docs/limits.md).'],
    ['5e-324', 'from 0.01 to 1000000 (docs/limits.md).'],
    ['99999999999999999999', 'from 0.01 to 1000000 (docs/limits.md).'],
  ])('%s is refused, not played in 1 ms by an overflowing timer', async (value, bound) => {
    const result = await runCli(['mock', 'provider', '--provider', 'acme', '--speed', value], { env });
    expect(result.stderr.split('\n')[0]).toBe(
      `error: option '--speed <factor>' argument '${value}' is invalid. expected ${bound}`,
    );
    expect(result.stderr).not.toContain('TimeoutOverflowWarning');
    expect(result.code).toBe(2);
  });
});

describe('a flag with a bound of its own names that bound', () => {
  it.each(['25h', '31m'])('conformance run --budget %s: from 1s to 30m, not 24h', async (value) => {
    await usage(
      ['conformance', 'run', '--mock', '--interface', 'B', '--budget', value],
      `option '--budget <duration>' argument '${value}' is invalid. expected a duration from 1s to 30m (docs/limits.md).`,
    );
  });

  it.each(['1e9', 'Infinity'])('load --slo-scale %s: at most 1000, not "above 0"', async (value) => {
    await usage(
      ['load', '--mock', '--slo', 'spec', '--slo-scale', value],
      `option '--slo-scale <factor>' argument '${value}' is invalid. expected at most 1000 (docs/load.md, Bounds).`,
    );
  });
});

describe('conformance run: flags that say opposite things, or belong to the other interface', () => {
  it.each([[['--generate', '5', '--no-generate']], [['--no-generate', '--generate', '5']]])('%j', async (flags) => {
    await usage(
      ['conformance', 'run', '--mock', '--interface', 'B', ...flags],
      '--generate and --no-generate are both given',
      'pass one of them',
    );
  });

  it.each([
    ['B', ['--callback-wait', '10s'], '--callback-wait', 'A', 'a contact-jobs endpoint'],
    ['B', ['--source', 'p'], '--source', 'A', 'a contact-jobs endpoint'],
    ['B', ['--callback-secret-env', 'X'], '--callback-secret-env', 'A', 'a contact-jobs endpoint'],
    ['A', ['--lead-id', 'lead_1'], '--lead-id', 'B', 'an events endpoint'],
  ])('--interface %s with %j is refused', async (iface, flags, flag, other, endpoint) => {
    await usage(
      ['conformance', 'run', '--mock', '--interface', iface, ...flags],
      `${flag} is for interface ${other}, not ${iface}`,
      `pass --interface ${other} to check ${endpoint}, or drop the option`,
    );
  });
});

describe('conformance run --only', () => {
  it.each(['', ',', ' , '])('%j is a usage error, not every check', async (value) => {
    await usage(
      ['conformance', 'run', '--mock', '--interface', 'B', '--only', value],
      `option '--only <ids|tags>' argument '${value}' is invalid. expected check ids, tags or patterns such as B-AUTH-*, not an empty list.`,
    );
  });
});

describe('unknown options and help topics', () => {
  it('cai --bogus is an unknown option', async () => {
    await usage(['--bogus'], "unknown option '--bogus'", "run 'cai --help' for the commands");
    await usage(['--quiet', '--config', 'x.json', '--bogus'], "unknown option '--bogus'");
  });

  it('cai help nosuch names the command, on one line, with no help printed', async () => {
    await usage(['help', 'nosuch'], 'cai has no command nosuch', "run 'cai --help' for its commands");
    await usage(['help', 'sigm'], 'cai has no command sigm (did you mean sign?)');
  });

  it('a pasted value far too long is quoted back cut short, with its length, and a typo is still named', async () => {
    const pasted = 'x'.repeat(60_000);
    await usage(
      ['mock', 'platform', '--provider', 'acme', '--break', pasted],
      `option '--break <fault>' argument '${'x'.repeat(80)}…' (60000 characters) is invalid. not a fault: 'cai mock platform --help' lists the 42 faults`,
    );
    await usage(
      ['send-event', '--provider', 'acme', '--sample', '--to', `example.test/${'a'.repeat(300)}`],
      `option '--to <url>' argument 'example.test/${'a'.repeat(67)}…' (313 characters) is invalid. expected an absolute URL such as https://example.test/path.`,
    );
    await usage(
      ['mock', 'platform', '--provider', 'acme', '--break', 'no-dedup'],
      "option '--break <fault>' argument 'no-dedup' is invalid. not a fault: did you mean no-dedupe?",
    );
  });

  it('cai help sign and cai help help still print help on stdout', async () => {
    for (const argv of [
      ['help', 'sign'],
      ['help', 'help'],
    ]) {
      const result = await runCli(argv, { env });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: cai /);
      expect(result.stderr).toBe('');
    }
  });
});

describe('after Ctrl-C, --json states the exit code cai exits with', () => {
  it('send-event against a receiver answering 503: exitCode 130, exit 130', async () => {
    let release: () => void = () => {};
    const interrupt = new Promise<void>((resolve) => (release = resolve));
    const server = await startScriptedServer(() => {
      setTimeout(release, 10);
      return { status: 503 };
    });
    servers.push(server);
    const result = await runCli(
      ['--json', 'send-event', '--to', server.url, '--provider', 'acme', '--sample', '--initial-delay', '20s'],
      { env, interrupt },
    );
    expect(result.code).toBe(130);
    const document = JSON.parse(result.stdout) as { exitCode?: number; error?: { exitCode: number } };
    expect(document.exitCode ?? document.error?.exitCode).toBe(130);
  });

  it('load --mock: exitCode 130 beside interrupted: true', async () => {
    // Once the run has started (its first line), however long a loaded machine takes to get there.
    const result = await runCli(['--json', 'load', '--mock', '--rate', '50/s', '--duration', '20s'], {
      env,
      interrupt: { stderr: /^cai load: / },
    });
    expect(result.code).toBe(130);
    const document = JSON.parse(result.stdout) as { exitCode: number; interrupted: boolean };
    expect(document).toMatchObject({ exitCode: 130, interrupted: true });
  }, 20_000);
});
