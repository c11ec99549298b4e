/**
 * The command surface of the sender role, in-process: usage errors (one `error:` and one `hint:` line, exit 2),
 * `cai conformance list --role sender`, and a Ctrl-C in the middle of a run.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const env = { CAI_SECRET: 'sender-command-secret-0123456789' };
const run = ['conformance', 'run', '--role', 'sender'];

describe('cai conformance run --role sender: usage', () => {
  const usage: [string[], string, string][] = [
    [
      [...run, '--provider', 'acme'],
      "error: which interface's sender to judge?",
      "hint: pass --interface B (a provider's event sender) or --interface A (a platform's job sender)",
    ],
    [
      [...run, '--interface', 'B'],
      'error: interface B needs the provider code the sender must send',
      'hint: pass --provider CODE (the X-CAI-Provider value, §5.6)',
    ],
    [
      [...run, '--interface', 'A'],
      'error: interface A needs the platform id the sender must send',
      'hint: pass --source ID (the X-CAI-Source value, §4.1)',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--target', 'http://x.test/e'],
      'error: --to does not apply to --role sender',
      'hint: in a sender run cai is the receiver: the sender under test posts to CAI_TARGET_URL (see --trigger)',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--mock'],
      'error: --mock does not apply to --role sender',
      'hint: in a sender run cai is the receiver: the sender under test posts to CAI_TARGET_URL (see --trigger)',
    ],
    [
      ['conformance', 'run', '--interface', 'B', '--mock', '--trigger', 'true'],
      'error: --trigger applies to --role sender only',
      'hint: add --role sender to judge a sender, or drop the option',
    ],
    [
      ['conformance', 'run', '--interface', 'B', '--mock', '--wait', '1s'],
      'error: --wait applies to --role sender only',
      'hint: add --role sender to judge a sender, or drop the option',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--only', 'B-DEDUP-001'],
      'error: no interface B sender check or tag matches: B-DEDUP-001',
      "hint: run 'cai conformance list --role sender --interface B' for the ids and tags",
    ],
    [
      [...run, '--interface', 'A', '--source', 'p', '--only', 'BS-HDR-001'],
      'error: no interface A sender check or tag matches: BS-HDR-001',
      "hint: run 'cai conformance list --role sender --interface A' for the ids and tags",
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--skip', 'all'],
      'error: the selection leaves no check to run',
      'hint: loosen --only / --skip',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--wait', '0s'],
      'error: --wait must be more than 0',
      'hint: pass a duration such as 60s',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--tls-cert', 'fixtures/tls/server.pem'],
      'error: --tls-cert and --tls-key go together',
      'hint: pass both the PEM certificate and its PEM private key',
    ],
    [
      [...run, '--interface', 'B', '--provider', 'acme', '--public-url', 'https://tunnel.example/cai'],
      'error: --public-url https://tunnel.example/cai has a path',
      'hint: pass only the origin (https://host[:port]) that forwards to the listener with paths unchanged',
    ],
  ];
  it.each(usage)('%j → exit 2', async (argv, error, hint) => {
    const result = await runCli(argv, { env });
    expect(result.stderr).toBe(`${error}\n${hint}\n`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('a port in use is a usage error', async () => {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const result = await runCli(
        [...run, '--interface', 'B', '--provider', 'acme', '--listen', `127.0.0.1:${port}`, '--trigger', 'true'],
        { env },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use\nhint: pass another --listen HOST:PORT, or port 0 for any free port\n`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a sender that posts elsewhere', () => {
  it('gets 404 there; the run stops with exit 3 and says where the requests went', async () => {
    const post = `fetch(new URL('/events', process.env.CAI_TARGET_URL), { method: 'POST', body: '{}' }).then((r) => process.exit(r.status === 404 ? 0 : 9))`;
    const result = await runCli(
      [
        ...run,
        '--interface',
        'B',
        '--provider',
        'acme',
        '--only',
        'BS-REJECT-001',
        '--wait',
        '3s',
        '--trigger',
        `'${process.execPath}' -e "${post}"`,
      ],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "error: the sender sent nothing: no attempt arrived in 1 scenario (the trigger exited 0); 1 request came to no scenario's URL and was answered 404 (POST /events)\n" +
        'hint: run the trigger by hand with CAI_TARGET_URL set, and check that it makes the sender post there\n',
    );
  });
});

describe('cai conformance list --role sender', () => {
  it('lists the sender checks of both interfaces, with the count by level', async () => {
    const result = await runCli(['conformance', 'list', '--role', 'sender']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /│ BS-RETRY-005 +│ must +│ §7 §8 +│ retry, 5xx, backoff +│ the waits between retries of consecutive 5xx grow \(backoff, not a fixed pace\) +│/,
    );
    expect(result.stdout).not.toContain('B-DEDUP-001');
    expect(result.stdout).toMatch(/^78 checks \(interface B: 29 must, 14 should; interface A: 20 must, 15 should\)$/m);
  });

  it('--json gives each check its role and the scenarios it judges', async () => {
    const result = await runCli(['--json', 'conformance', 'list', '--role', 'sender', '--interface', 'A']);
    const { checks } = JSON.parse(result.stdout) as { checks: { id: string; role: string; scenarios: string[] }[] };
    expect(checks.find((check) => check.id === 'AS-RETRY-008')).toMatchObject({
      role: 'sender',
      scenarios: ['retry-429'],
    });
    expect(checks.every((check) => check.id.startsWith('AS-'))).toBe(true);
  });
});

describe('Ctrl-C during a sender run', () => {
  it('stops the trigger, reports the unfinished checks as not judged and exits 130', async () => {
    let interrupt: () => void = () => undefined;
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
    // The trigger says it started, then waits; cai is interrupted as soon as it runs.
    const marker = join(tmpdir(), `cai-sender-interrupt-${process.pid}`);
    const pending = runCli(
      [
        ...run,
        '--interface',
        'B',
        '--provider',
        'acme',
        '--only',
        'BS-RETRY-001',
        '--format',
        'table',
        '--trigger',
        `touch '${marker}'; sleep 30`,
      ],
      { env, interrupt: interrupted },
    );
    const { existsSync, rmSync } = await import('node:fs');
    while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
    rmSync(marker, { force: true });
    interrupt();
    const result = await pending;
    expect(result.code).toBe(130);
    // Said once, with what the report holds (not again under the report).
    expect(result.stderr.split('\n').filter((line) => /interrupted/.test(line))).toEqual([
      'warning: interrupted: ending the scenario under way, skipping the rest; the checks not run are reported as skipped, those cut short as not judged',
    ]);
    expect(result.stdout).toContain('? BS-RETRY-001 not judged: interrupted before its scenarios were done\n');
  });
});
