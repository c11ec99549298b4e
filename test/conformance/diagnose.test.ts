/**
 * A diagnosis instead of a flood: receivers written apart from cai (plain Python and plain Node, test/fixtures/
 * diagnose), each verifying the signature with one usual mistake, refuse the first valid request; the run stops
 * with one block that names the mistake in its first lines, under 30 lines in all, exit 1, on a terminal or not,
 * and every report format carries it. The receivers are judged through the built binary (`npm test` builds it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { verify } from '../../src/signing/verify.js';
import { ROOT, runCli, spawnCli } from '../helpers/cli.js';
import { startScriptedServer, type RecordedRequest } from '../helpers/scripted-server.js';
import { runTty, screenLines } from '../helpers/tty.js';

const FIXTURES = join(ROOT, 'test/fixtures/diagnose');
// The interpreter itself, not a version manager's shim in front of it (pyenv's costs half a second a start).
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const SECRET = 'whsec_diagnose_test_secret';
const EVENTS_SECRET = 'events-direction-secret-for-a';
const dir = mkdtempSync(join(tmpdir(), 'cai-diagnose-'));

interface Receiver {
  url: string;
  child: ChildProcess;
}

const started = new Set<ChildProcess>();
afterAll(() => {
  for (const child of started) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a fixture receiver on a free loopback port and reads its URL (its first line). */
async function startReceiver(command: string, args: string[], secret = SECRET): Promise<Receiver> {
  const child = spawn(command, args, {
    cwd: FIXTURES,
    env: { PATH: process.env.PATH, CAI_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.add(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code} before printing its URL`)));
  });
  return { url, child };
}

async function stop(receiver: Receiver): Promise<void> {
  const exited = new Promise((resolve) => receiver.child.once('exit', resolve));
  receiver.child.kill('SIGTERM');
  await exited;
  started.delete(receiver.child);
}

const python = (verify: string) => startReceiver(PYTHON, ['receiver_b.py', '--provider', 'acme', '--verify', verify]);
const node = (iface: 'A' | 'B', verify: string, secret = SECRET) =>
  startReceiver(
    process.execPath,
    ['receiver.mjs', '--interface', iface, '--identity', iface === 'B' ? 'acme' : 'platform-eu', '--verify', verify],
    secret,
  );
const runB = (url: string, ...extra: string[]) => [
  'conformance',
  'run',
  '--interface',
  'B',
  '--target',
  url,
  '--provider',
  'acme',
  '--format',
  'table',
  '--repro-dir',
  join(dir, 'repro'),
  ...extra,
];

/** Everything the run printed, stdout then stderr, as lines. */
function outputLines(result: { stdout: string; stderr: string }): string[] {
  return [...screenLines(result.stdout), ...screenLines(result.stderr)];
}

// Each test starts its own receiver: they run at once.
describe.concurrent('a receiver that refuses the first valid request: the run stops with the cause named', () => {
  it.each([
    [
      'Python, verifying over json.dumps(json.loads(body))',
      () => python('json-dumps'),
      "your receiver accepts the signature computed over Python's json.dumps re-serialisation of the body",
      'it must verify over the raw bytes exactly as received, before any parsing (§5.2)',
      'over json.dumps(json.loads(body)): 202',
    ],
    [
      'Python, verifying over the compact json.dumps',
      () => python('compact'),
      'your receiver accepts the signature computed over the compact re-serialisation of the body',
      'it must verify over the raw bytes exactly as received, before any parsing (§5.2)',
      'over json.dumps(json.loads(body), separators=(",", ":")): 202',
    ],
    [
      'Node, verifying over timestamp + body without the dot',
      () => node('B', 'no-dot'),
      'your receiver accepts the signature computed over timestamp + body without the dot between them',
      'the signed string is the timestamp, one literal ".", then the raw body (§5.2)',
      'over timestamp + body, without the dot: 202',
    ],
  ])('%s', async (_name, start, cause, fix, accepted) => {
    const receiver = await start();
    try {
      const result = await spawnCli(runB(receiver.url), { env: { CAI_SECRET: SECRET } });
      const lines = outputLines(result);
      expect(result.code).toBe(1);
      expect(lines.length).toBeLessThan(30);
      expect(lines.slice(0, 10).join('\n')).toContain(cause);
      expect(lines.slice(0, 10).join('\n')).toContain(fix);
      expect(result.stdout).toMatch(
        /^ {2}refused: {2}a valid event signed over its raw bytes got 401 \{"error": ?"invalid signature"\} \(expected 202 \(§4\.2, §7\)\)$/m,
      );
      expect(result.stdout).toContain(`  accepted: the same event signed ${accepted}`);
      // The checks not run are not listed one by one; no warning repeats what the block says.
      expect(result.stdout).not.toMatch(/B-[A-Z]+-\d{3}/);
      expect(result.stdout).toMatch(/^0 passed, 0 failed, 0 skipped \(\d+ checks not run\)$/m);
      expect(result.stderr).toBe('');
    } finally {
      await stop(receiver);
    }
  });

  it('a receiver with another secret: no signing is accepted, the likely causes are listed with what was ruled out', async () => {
    const receiver = await node('B', 'raw', 'not-the-secret-cai-signs-with');
    try {
      const result = await spawnCli(runB(receiver.url), { env: { CAI_SECRET: SECRET } });
      const lines = outputLines(result);
      expect(result.code).toBe(1);
      expect(lines.length).toBeLessThan(30);
      expect(lines[2]).toMatch(
        /^✗ valid, correctly signed events are refused, however cai signs them: the suite not run \(\d+ checks\)$/,
      );
      expect(lines.slice(0, 10).join('\n')).toContain(
        "  likely:   the secret: the receiver's events secret is not the one cai signs with",
      );
      expect(result.stdout).toContain(
        '            the provider code: X-CAI-Provider "acme" is not the one the platform expects (§5.6; --provider)',
      );
      expect(result.stdout).toContain(
        "            the origin: this machine's address is not among the platform's registered origins (§5.7)",
      );
      expect(result.stdout).toMatch(
        /^ {2}excluded: re-serialisations of the body \(Python's json\.dumps, JSON\.stringify, Python's compact json\.dumps, sorted keys, pretty-printed, PHP's json_encode\); the signed string \(the body alone, no dot, milliseconds\); the header's format \(uppercase hex, base64, no sha256= prefix\); the key \(an empty secret, the secret with a newline\); the clock \(cai signed on the receiver's own, read from its Date header: [+-]\d+ s from cai's\)$/m,
      );
      expect(result.stdout).not.toMatch(/B-[A-Z]+-\d{3}/);
      expect(result.stdout).not.toContain(SECRET);
    } finally {
      await stop(receiver);
    }
  });

  it('on an 80-column terminal too: the cause in the first 10 lines, under 30 in all, exit 1', async () => {
    const receivers = await Promise.all([python('json-dumps'), node('B', 'raw', 'not-the-secret-cai-signs-with')]);
    try {
      const [reserialising, wrongSecret] = await Promise.all(
        receivers.map((receiver) => runTty(runB(receiver.url), { columns: 80, env: { CAI_SECRET: SECRET } })),
      );
      for (const result of [reserialising, wrongSecret]) {
        expect(result?.code).toBe(1);
        expect(outputLines(result as { stdout: string; stderr: string }).length).toBeLessThan(30);
      }
      const first = screenLines(reserialising?.stdout ?? '')
        .slice(0, 10)
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(first).toContain(
        "your receiver accepts the signature computed over Python's json.dumps re-serialisation of the body",
      );
      expect(
        screenLines(wrongSecret?.stdout ?? '')
          .slice(0, 10)
          .join(' ')
          .replace(/\s+/g, ' '),
      ).toContain("likely: the secret: the receiver's events secret is not the one cai signs with");
    } finally {
      await Promise.all(receivers.map(stop));
    }
  });

  it('every report says it: --json (the diagnosis, every request, no check), JUnit (one failed testcase), HTML, Markdown', async () => {
    const receiver = await python('json-dumps');
    try {
      const files = {
        junit: join(dir, 'report.xml'),
        html: join(dir, 'report.html'),
        summary: join(dir, 'summary.md'),
      };
      const result = await spawnCli(
        ['--json', ...runB(receiver.url, '--junit', files.junit, '--html', files.html, '--summary', files.summary)],
        { env: { CAI_SECRET: SECRET } },
      );
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as {
        ok: boolean;
        checks: unknown[];
        causes: unknown[];
        preflight: { status: number };
        diagnosis: {
          cause: { variant: string; sections: string[] };
          trials: { variant: string; accepted: boolean; status: number }[];
          notRun: number;
          remaining: string[];
        };
      };
      expect(report.ok).toBe(false);
      expect(report.checks).toEqual([]);
      expect(report.causes).toEqual([]);
      expect(report.preflight.status).toBe(401);
      expect(report.diagnosis.cause).toMatchObject({ variant: 'python-json-dumps', sections: ['§5.2'] });
      expect(report.diagnosis.remaining).toEqual([]);
      expect(report.diagnosis.notRun).toBeGreaterThan(60);
      // The correct signing again, a wrong secret, then the signings in order until one is accepted.
      expect(report.diagnosis.trials.map((trial) => [trial.variant, trial.status, trial.accepted])).toEqual([
        ['raw', 401, false],
        ['wrong-secret', 401, false],
        ['python-json-dumps', 202, true],
      ]);
      const cause =
        "your receiver accepts the signature computed over Python's json.dumps re-serialisation of the body";
      const junit = readFileSync(files.junit, 'utf8');
      expect(junit).toContain('tests="1" failures="1" errors="0" skipped="0"');
      expect(junit).toContain(
        `<testcase classname="cai.conformance" name="the first valid, correctly signed request" time="0.000">\n      <failure message="${cause.replace(/'/g, '&#39;')}`,
      );
      expect(readFileSync(files.html, 'utf8')).toContain(cause.replace(/'/g, '&#39;'));
      const markdown = readFileSync(files.summary, 'utf8');
      expect(markdown).toContain('- ✗ **valid, correctly signed events are refused: diagnosed, the suite not run');
      expect(markdown).toContain(`  cause: ${cause}`);
    } finally {
      await stop(receiver);
    }
  });

  it("interface A: a provider that verifies jobs with the events secret is named (the other direction's secret, §5.1)", async () => {
    const receiver = await node('A', 'raw', EVENTS_SECRET);
    try {
      const result = await spawnCli(
        [
          'conformance',
          'run',
          '--interface',
          'A',
          '--target',
          receiver.url,
          '--source',
          'platform-eu',
          '--branch-code',
          'BR-001',
          '--provider',
          'acme',
          '--callback-secret-env',
          'EVENTS',
          '--format',
          'table',
          '--repro-dir',
          join(dir, 'repro-a'),
        ],
        { env: { CAI_SECRET: SECRET, EVENTS: EVENTS_SECRET } },
      );
      const lines = outputLines(result);
      expect(result.code).toBe(1);
      expect(lines.length).toBeLessThan(30);
      expect(lines.slice(0, 10).join('\n')).toContain(
        "  cause:    your receiver verifies with the other direction's secret: each direction has its own, and jobs are signed with the jobs secret (§5.1)",
      );
      expect(result.stdout).not.toContain(EVENTS_SECRET);
    } finally {
      await stop(receiver);
    }
  });

  it('a receiver that verifies over the raw bytes is not diagnosed: its checks run', async () => {
    const receiver = await node('B', 'raw');
    try {
      const result = await spawnCli(['--json', ...runB(receiver.url, '--only', 'B-ACCEPT-001,B-SIG-001,B-SIG-004')], {
        env: { CAI_SECRET: SECRET },
      });
      const report = JSON.parse(result.stdout) as { diagnosis?: unknown; checks: { id: string; verdict: string }[] };
      expect(report.diagnosis).toBeUndefined();
      expect(report.checks.map((check) => [check.id, check.verdict])).toEqual([
        ['B-ACCEPT-001', 'passed'],
        ['B-SIG-001', 'passed'],
        ['B-SIG-004', 'passed'],
      ]);
      expect(result.code).toBe(0);
    } finally {
      await stop(receiver);
    }
  });
});

describe('what the diagnosis says when no signing is the cause', () => {
  const verifies = (request: RecordedRequest) =>
    verify({
      secrets: SECRET,
      signature: request.headers['x-cai-signature'] as string | undefined,
      timestamp: request.headers['x-cai-timestamp'] as string | undefined,
      rawBody: request.body,
    }).valid;

  it('a receiver that answers a wrong signature otherwise than a right one (403 to every valid request): the signature is right, the origin or the code is not', async () => {
    const server = await startScriptedServer(
      (request) =>
        verifies(request)
          ? { status: 403, body: { error: 'origin not allowed' } }
          : { status: 401, body: { error: 'bad signature' } },
      { path: '/events' },
    );
    try {
      const result = await runCli(['--json', ...runB(server.url)], { env: { CAI_SECRET: SECRET } });
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as {
        diagnosis: { cause?: unknown; signatureAccepted: unknown; remaining: string[]; trials: { variant: string }[] };
      };
      expect(report.diagnosis.cause).toBeUndefined();
      expect(report.diagnosis.signatureAccepted).toEqual({ wrongSignatureAnswer: '401 {"error":"bad signature"}' });
      // No signing is tried once the signature is known to be right.
      expect(report.diagnosis.trials.map((trial) => trial.variant)).toEqual(['raw', 'wrong-secret']);
      expect(report.diagnosis.remaining.map((cause) => cause.split(':')[0])).toEqual([
        'the provider code',
        'the origin',
      ]);
      const text = await runCli(runB(server.url), { env: { CAI_SECRET: SECRET } });
      expect(text.stdout).toContain(
        '✗ valid, correctly signed events are refused, though their signature is right: the suite not run',
      );
      expect(text.stdout).toContain(
        '  note:     a wrong signature gets another answer (401 {"error":"bad signature"}): the signature is not what is refused',
      );
    } finally {
      await server.close();
    }
  });

  /** An A run against a receiver that refuses every job with `error`: its diagnosis. */
  async function refusedJobs(error: string, flags: string[], env: NodeJS.ProcessEnv) {
    const server = await startScriptedServer([{ status: 400, body: { error } }]);
    try {
      const argv = [
        '--json',
        'conformance',
        'run',
        '--interface',
        'A',
        '--target',
        server.url,
        '--source',
        'platform-eu',
      ];
      const result = await runCli([...argv, ...flags], { env: { CAI_SECRET: SECRET, ...env } });
      expect(result.code).toBe(1);
      return (JSON.parse(result.stdout) as { diagnosis: { refused: { status: number }; remaining: string[] } })
        .diagnosis;
    } finally {
      await server.close();
    }
  }

  it('interface A, a job refused with 400 whatever its signature: the job itself is among the causes left', async () => {
    const diagnosis = await refusedJobs(
      'unknown branch',
      ['--branch-code', 'BR-404', '--repro-dir', join(dir, 'repro-a400')],
      {},
    );
    expect(diagnosis.refused.status).toBe(400);
    expect(diagnosis.remaining.at(-1)).toBe(
      'the contact job itself: the provider refuses its branch_code "BR-404" (--branch-code) or another of its fields (§2.2)',
    );
  });

  it('interface A, a job refused for its plain-http callback_url: the callback_url is named first, with the option', async () => {
    const diagnosis = await refusedJobs(
      'callback_url must be https (§5.8)',
      ['--branch-code', 'BR-1', '--provider', 'acme'],
      {
        CAI_CALLBACK_SECRET: 'events-secret-0123',
      },
    );
    expect(diagnosis.remaining[0]).toMatch(
      /^the callback_url: "http:\/\/127\.0\.0\.1:\d+\/[^"]+" is plain http \(cai's listener\); a provider that asks TLS for its events \(§5\.8\) refuses it: give an https address that reaches the listener \(--callback-url\)$/,
    );
  });
});
