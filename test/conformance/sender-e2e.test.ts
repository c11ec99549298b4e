/**
 * `cai conformance run --role sender` through the built binary: cai's own senders (`cai send-event`,
 * `cai send-job`, the built binary again) as the trigger pass every sender check of their interface; a broken
 * sender fails with exit 1, its evidence saved and its JUnit written; a trigger that sends nothing stops the run
 * with exit 3; a person sending by hand is told where and what, and judged; TLS works as for `cai mock`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, spawnCli, spawnProcess } from '../helpers/cli.js';
import { LEFT_OPEN_BY_LAG } from '../helpers/lag.js';
import { DURATION_TEXT } from '../helpers/duration.js';

const SECRET = 'sender-e2e-secret-0123456789';
const env = { CAI_SECRET: SECRET };
const dir = mkdtempSync(join(tmpdir(), 'cai-sender-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cai = `'${process.execPath}' '${BIN}'`;
const fixture = (iface: string, fault: string) =>
  `'${process.execPath}' '${join(ROOT, 'test', 'fixtures', 'broken-sender.mjs')}' --interface ${iface} --identity acme --fault ${fault}`;

/** One run: a timing verdict that cai's own lag leaves open is cai's to decide (it plays that scenario again). */
const judged = (argv: string[]) => spawnCli(argv, { env });

interface JudgedCheck {
  id: string;
  verdict: string;
  actual?: string;
}

/**
 * A correct sender passes every check: none fails or warns, and the only ones not judged are timing judgements that
 * cai's own lag left open on a busy machine (played again, and still open), each saying so. On a quiet machine all
 * `total` pass.
 */
function passesEveryCheck(report: { ok: boolean; checks: JudgedCheck[] }, total: number): void {
  const open = report.checks.filter((check) => check.verdict === 'not-judged');
  const wrong = report.checks.filter((check) => check.verdict !== 'passed' && check.verdict !== 'not-judged');
  expect(wrong.map((check) => `${check.id} ${check.verdict}: ${check.actual}`)).toEqual([]);
  for (const check of open) expect(check.actual, check.id).toMatch(LEFT_OPEN_BY_LAG);
  expect(report.checks.length).toBe(total);
  expect(report.ok).toBe(true);
}

describe('cai conformance run --role sender (built binary)', () => {
  it.concurrent('interface B: cai send-event, with a short first backoff, sending one event of every type, passes every sender check', async () => {
    // One event of each type of §6 per scenario (cai sample, then a batch), so that each type's own check is judged.
    const types = 'conversation.message appointment.booked appointment.rescheduled appointment.cancelled job.closed';
    const trigger = `for t in ${types}; do ${cai} sample event $t --compact; done | ${cai} send-event --to "$CAI_TARGET_URL" --provider acme --ndjson - --initial-delay 100ms`;
    const result = await judged([
      '--json',
      'conformance',
      'run',
      '--interface',
      'B',
      '--role',
      'sender',
      '--provider',
      'acme',
      '--trigger',
      trigger,
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { ok: boolean; seed: number; target: string; checks: JudgedCheck[] };
    expect(report.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The 36 checks of the scenarios and the 7 of the stateful phase (one per relation of the sender model).
    passesEveryCheck(report, 43);
    expect(report.seed).toEqual(expect.any(Number));
  });

  it.concurrent('interface A: cai send-job passes every sender check', async () => {
    const trigger = `${cai} send-job --to "$CAI_TARGET_URL" --source platform-eu --sample --initial-delay 100ms`;
    const result = await judged([
      '--json',
      'conformance',
      'run',
      '--interface',
      'A',
      '--role',
      'sender',
      '--source',
      'platform-eu',
      '--trigger',
      trigger,
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      role: string;
      seed: number;
      summary: { passed: number; failed: number; warnings: number };
      scenarios: { id: string; attempts: { answer: string }[] }[];
      checks: JudgedCheck[];
    };
    expect(report).toMatchObject({ ok: true, role: 'sender', summary: { failed: 0, warnings: 0 } });
    passesEveryCheck(report, 35);
    expect(report.seed).toEqual(expect.any(Number));
    // A scenario whose timing cai's lag left open is played again: `retry-429-again-1`, in its place.
    const played = report.scenarios.filter((entry) => !entry.id.startsWith('state-'));
    expect(played.map((entry) => entry.id.replace(/-again-\d+$/, ''))).toEqual([
      'accept',
      'retry-5xx',
      'retry-500',
      'retry-429',
      'retry-429-date',
      'retry-network',
      'reject-400',
      'reject-401',
    ]);
    expect(report.scenarios.filter((entry) => entry.id.startsWith('state-')).length).toBeGreaterThanOrEqual(2);
    expect(played.find((entry) => entry.id.startsWith('retry-5xx'))?.attempts.map((attempt) => attempt.answer)).toEqual(
      ['503', '504', '502', '503', '501', '202 with the acknowledgment'],
    );
  });

  it.concurrent('a sender that retries a 400 fails with exit 1, names the check, saves what it sent and writes JUnit', async () => {
    const repro = join(dir, 'retries-400');
    const junit = join(dir, 'retries-400.xml');
    const argv = [
      'conformance',
      'run',
      '--interface',
      'B',
      '--role',
      'sender',
      '--provider',
      'acme',
      '--only',
      'BS-REJECT-001',
      '--observe',
      '1s',
      '--format',
      'table',
      '--repro-dir',
      repro,
      '--junit',
      junit,
      '--trigger',
      fixture('B', 'retries-400'),
    ];
    const result = await spawnCli(argv, { env });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /^cai conformance: the sender of interface B, judged by cai on http:\/\/127\.0\.0\.1:\d+, sender's clock offset [+-]\d+ s$/m,
    );
    expect(result.stdout).toContain(
      '\n✗ BS-REJECT-001 a 400 is not retried (must, §7)\n  expected: no attempt after the 400 (cai listened 1.00 s more, --observe)\n',
    );
    expect(result.stdout).toMatch(/^ {2}actual: {3}retried: 2 more attempts, the first \d+ ms after the 400$/m);
    expect(result.stdout).toContain(`\n  body:     ${repro}/reject-400/attempt-1.body\n`);
    expect(result.stdout).toContain(
      `\n  repro:    ${process.execPath} ${BIN} conformance run --interface B --provider acme --format table --role sender --trigger '`,
    );
    expect(result.stdout).toMatch(/ --observe 1000ms --only BS-REJECT-001\n/);
    expect(result.stdout).toMatch(/^0 passed, 1 failed, 0 skipped$/m);
    expect(result.stderr).toBe(
      `JUnit report written to ${junit}\nwhat the sender sent, for the failing checks: ${repro}\n`,
    );
    // The saved request is what came, and cai verify reads it.
    expect(readFileSync(join(repro, 'reject-400', 'timeline.txt'), 'utf8')).toMatch(
      /^\+\d+(\.\d+)? m?s #3 POST \/reject-400\/events event_id fixture-[0-9a-f-]+, X-CAI-Timestamp \d+, \d+ bytes → 400$/m,
    );
    const verify = await spawnCli(['verify', '--request', join(repro, 'reject-400', 'attempt-2.http')], { env });
    expect(verify.code, verify.stderr).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="cai conformance: interface B sender" tests="1" failures="1"');
    expect(xml).toContain('<failure message="expected no attempt after the 400');
  }, 60_000);

  it.concurrent('a waived failure does not fail the run', async () => {
    const waivers = join(dir, 'waivers.json');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(
        waivers,
        JSON.stringify([{ id: 'BS-REJECT-001', reason: 'the retry queue is fixed in ticket OPS-7' }]),
      ),
    );
    const argv = [
      'conformance',
      'run',
      '--interface',
      'B',
      '--role',
      'sender',
      '--provider',
      'acme',
      '--only',
      'BS-REJECT-001',
      '--observe',
      '1s',
      '--waivers',
      waivers,
      '--format',
      'table',
      '--repro-dir',
      join(dir, 'waived'),
      '--trigger',
      fixture('B', 'retries-400'),
    ];
    const result = await spawnCli(argv, { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('\n~ BS-REJECT-001 a 400 is not retried (must, §7)\n');
    expect(result.stdout).toContain('\n  waived:   the retry queue is fixed in ticket OPS-7\n');
  }, 60_000);

  it.concurrent('a trigger that makes nothing arrive stops the run with exit 3, saying what the trigger did', async () => {
    const result = await spawnCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--role',
        'sender',
        '--provider',
        'acme',
        '--only',
        'reject',
        '--trigger',
        'echo "my-sender: no route to the staging queue" >&2; exit 4',
      ],
      { env },
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: the sender sent nothing: no attempt arrived in 3 scenarios (the trigger exited 4: my-sender: no route to the staging queue)\n' +
        'hint: run the trigger by hand with CAI_TARGET_URL set, and check that it makes the sender post there\n',
    );
  }, 60_000);

  it.concurrent("over TLS with the mocks' certificate options: the sender trusts the CA and passes", async () => {
    const tls = (name: string) => join(ROOT, 'fixtures', 'tls', name);
    const trigger = `${cai} send-event --to "$CAI_TARGET_URL" --provider acme --sample --ca '${tls('ca.pem')}'`;
    const argv = [
      '--json',
      'conformance',
      'run',
      '--interface',
      'B',
      '--role',
      'sender',
      '--provider',
      'acme',
      '--only',
      'BS-SIG-001',
      '--tls-cert',
      tls('server.pem'),
      '--tls-key',
      tls('server.key'),
      '--trigger',
      trigger,
    ];
    const result = await spawnCli(argv, { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      target: string;
      summary: { passed: number };
      scenarios: { targetUrl: string }[];
    };
    expect(report.target).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(report.scenarios[0]?.targetUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/accept\/events$/);
    expect(report.summary.passed).toBe(1);
  }, 60_000);

  it.concurrent('by hand: cai tells the person where to send and what it will answer, then judges what came', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'conformance',
        'run',
        '--interface',
        'B',
        '--role',
        'sender',
        '--provider',
        'acme',
        '--only',
        'BS-HDR-001',
        '--observe',
        '500ms',
        '--wait',
        '30s',
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /send one or more events to (http:\/\/\S+) now/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.on('close', () => reject(new Error(`exited early: ${stderr}`)));
    });
    const sent = await spawnProcess(
      process.execPath,
      [BIN, 'send-event', '--to', url, '--provider', 'acme', '--sample'],
      { cwd: ROOT, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env } },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const code = await new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.on('close', resolve),
    );
    expect(code, stdout + stderr).toBe(0);
    const lines = stderr.split('\n');
    expect(lines[0]).toMatch(
      /^listening as the platform's events endpoint on http:\/\/127\.0\.0\.1:\d+; waiting for the sender, one scenario at a time$/,
    );
    expect(lines.slice(1, 5)).toEqual([
      '',
      'scenario 1/1 accept: an accepted delivery: signed, valid, sent once',
      `  send one or more events to ${url} now, and let the sender retry as it would`,
      "  answers to each event's attempts: 202; waiting up to 30 s (--wait)",
    ]);
    expect(lines[5]).toMatch(new RegExp(`^• accept: 1 document, 1 attempt in ${DURATION_TEXT} \\(answered 202\\)$`));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/events$/);
    expect(stdout).toMatch(/^1 passed, 0 failed, 0 skipped$/m);
  }, 60_000);
});
