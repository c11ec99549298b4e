import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** Self-signed certificates made by openssl at test time (so they never expire in the repository). */
function makeCertificate(dir: string, name: string, days: number): { key: Buffer; cert: Buffer; certPath: string } {
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      String(days),
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath), cert: readFileSync(certPath), certPath };
}

const handler = (_req: unknown, res: { writeHead(s: number): void; end(): void }) => {
  res.writeHead(405);
  res.end();
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let dir: string;
let good: { certPath: string };
let short: { certPath: string };
const servers: Server[] = [];
const hosts: Record<'modern' | 'legacy' | 'shortLived' | 'plain', string> = {
  modern: '',
  legacy: '',
  shortLived: '',
  plain: '',
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cai-doctor-'));
  const goodCert = makeCertificate(dir, 'good', 365);
  const shortCert = makeCertificate(dir, 'short', 10);
  good = goodCert;
  short = shortCert;
  const modern = createHttpsServer({ key: goodCert.key, cert: goodCert.cert }, handler);
  // A server that still accepts TLS 1.0/1.1: what §5.8 forbids.
  const legacy = createHttpsServer(
    { key: goodCert.key, cert: goodCert.cert, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' },
    handler,
  );
  const shortLived = createHttpsServer({ key: shortCert.key, cert: shortCert.cert }, handler);
  const plain = createHttpServer(handler);
  servers.push(modern, legacy, shortLived, plain);
  hosts.modern = await listen(modern);
  hosts.legacy = await listen(legacy);
  hosts.shortLived = await listen(shortLived);
  hosts.plain = await listen(plain);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

interface Check {
  id: string;
  verdict: string;
  message: string;
  hint?: string;
}

async function doctor(argv: string[], options: { now?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const result = await runCli(['doctor', '--json', ...argv], {
    cwd: options.cwd ?? dir,
    now: options.now,
    env: options.env,
  });
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: Check[]; summary: Record<string, number> };
  // This machine's checks (node, temp, config, secrets) are another test's: the verdicts of the URL's checks.
  const verdicts = Object.fromEntries(
    report.checks.filter((c) => !['node', 'temp', 'config', 'secrets'].includes(c.id)).map((c) => [c.id, c.verdict]),
  );
  return { result, report, verdicts, check: (id: string) => report.checks.find((c) => c.id === id) as Check };
}

describe('cai doctor against local servers', () => {
  it('passes a TLS 1.2+ server with a trusted certificate and a synchronised clock', async () => {
    const { result, verdicts, check } = await doctor([
      '--target',
      `https://${hosts.modern}/contact-jobs`,
      '--ca',
      good.certPath,
    ]);
    expect(result.code).toBe(0);
    expect(verdicts).toEqual({
      dns: 'pass',
      tcp: 'pass',
      tls: 'pass',
      certificate: 'pass',
      'tls-legacy': 'pass',
      clock: 'pass',
    });
    expect(check('tls').message).toMatch(/^negotiates TLSv1\.3 /);
    expect(check('certificate').message).toMatch(/^localhost, issued by localhost, valid until .* \((364|365) days\)$/);
  });

  it('fails a self-signed certificate that is not trusted, with a hint to pass --ca', async () => {
    const { result, check } = await doctor(['--target', `https://${hosts.modern}/`]);
    expect(result.code).toBe(1);
    expect(check('certificate')).toMatchObject({
      verdict: 'fail',
      message: 'localhost is not trusted: DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(check('certificate').hint).toContain('--ca FILE');
  });

  it('fails a server that still accepts TLS 1.1 (§5.8)', async () => {
    const { result, check } = await doctor(['--target', `https://${hosts.legacy}/`, '--ca', good.certPath]);
    expect(result.code).toBe(1);
    expect(check('tls')).toMatchObject({ verdict: 'pass' });
    expect(check('tls-legacy')).toMatchObject({
      verdict: 'fail',
      message: 'accepts TLSv1.1, below the TLS 1.2 minimum (§5.8)',
    });
  });

  it('warns about a certificate close to expiry, and fails one that has expired', async () => {
    const soon = await doctor(['--target', `https://${hosts.shortLived}/`, '--ca', short.certPath]);
    expect(soon.result.code).toBe(0);
    expect(soon.check('certificate').verdict).toBe('warn');
    expect(soon.check('certificate').message).toMatch(/^localhost expires in (9|10) days/);
    const later = await doctor(['--target', `https://${hosts.shortLived}/`, '--ca', short.certPath], {
      now: Date.now() + 20 * 86_400_000,
    });
    expect(later.check('certificate').verdict).toBe('fail');
    expect(later.check('certificate').message).toMatch(/^localhost expired on /);
  });

  it('measures the clock offset from the Date header against the 300 s window (§5.5)', async () => {
    const behind = await doctor(['--target', `https://${hosts.modern}/`, '--ca', good.certPath], {
      now: Date.now() + 400_000,
    });
    expect(behind.result.code).toBe(1);
    expect(behind.check('clock').verdict).toBe('fail');
    // `now` is fixed when the probe starts and the server's Date header is read when it answers, in whole seconds:
    // the offset is 400 s less however long the handshake took on a busy machine (398 s seen in CI).
    const offset = /^the server's clock is (\d+) s behind this machine's: beyond the 300 s window/.exec(
      behind.check('clock').message,
    );
    expect(offset, behind.check('clock').message).not.toBeNull();
    expect(Number(offset?.[1])).toBeGreaterThanOrEqual(330);
    expect(Number(offset?.[1])).toBeLessThanOrEqual(401);
    const drifting = await doctor(['--target', `https://${hosts.modern}/`, '--ca', good.certPath], {
      now: Date.now() + 120_000,
    });
    expect(drifting.result.code).toBe(0);
    expect(drifting.check('clock').verdict).toBe('warn');
  });

  it('fails a closed port and skips what depends on it', async () => {
    const server = createHttpServer();
    const host = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const { result, verdicts, check } = await doctor(['--target', `https://${host}/`]);
    expect(result.code).toBe(1);
    expect(verdicts).toEqual({
      dns: 'pass',
      tcp: 'fail',
      tls: 'skip',
      'tls-legacy': 'skip',
      certificate: 'skip',
      clock: 'skip',
    });
    expect(check('tcp').message).toMatch(/^cannot connect to 127\.0\.0\.1 port \d+ \(ECONNREFUSED\)/);
  });

  it('fails an https URL whose port does not speak TLS', async () => {
    const { result, check } = await doctor(['--target', `https://${hosts.plain}/`]);
    expect(result.code).toBe(1);
    expect(check('tls').verdict).toBe('fail');
    expect(check('clock').verdict).toBe('skip');
  });

  it('checks a whole environment: configuration, secrets, and each URL it names', async () => {
    const work = mkdtempSync(join(tmpdir(), 'cai-doctor-env-'));
    writeFileSync(join(work, 'events.secret'), 'e'.repeat(40));
    chmodSync(join(work, 'events.secret'), 0o600);
    const config = {
      version: 1,
      environments: {
        local: {
          provider_code: 'acme',
          platform_id: 'plat',
          provider_endpoint: `https://${hosts.modern}/cai`,
          events_url: `http://${hosts.plain}/events`,
          branches: [{ branch_code: 'BR-1', name: 'One' }],
          secrets: { jobs: { env: 'JOBS' }, events: { file: 'events.secret' } },
        },
      },
    };
    writeFileSync(join(work, 'cai.config.json'), JSON.stringify(config));
    const { result, report } = await doctor(['--ca', good.certPath], { cwd: work, env: { JOBS: 'j'.repeat(40) } });
    expect(result.code).toBe(0);
    const summary = report.checks.map((c) => `${c.id} ${c.verdict}`);
    expect(summary).toEqual([
      'node pass',
      'temp pass',
      'config pass', // A
      'config pass', // B
      'config warn', // B: no authorised_origins (§5.7)
      'secrets pass',
      'secrets pass',
      'dns pass',
      'tcp pass',
      'tls pass',
      'certificate pass',
      'tls-legacy pass',
      'clock pass',
      'url warn',
      'dns pass',
      'tcp pass',
      'clock pass',
    ]);
    expect(report.checks[13]?.message).toBe('plain http on a local address: fine for a mock, not for a deployment');
    // The same secret for both directions breaks §5.1.
    const same = await doctor(['--ca', good.certPath, '--interface', 'B'], {
      cwd: work,
      env: { JOBS: 'e'.repeat(40) },
    });
    expect(same.result.code).toBe(1);
    expect(same.report.checks.find((c) => c.id === 'secrets' && c.verdict === 'fail')?.message).toBe(
      'the jobs and events secrets are the same',
    );
    // A missing secret and an incomplete environment fail with hints.
    const missing = await doctor(['--interface', 'A', '--target', `https://${hosts.modern}/`, '--ca', good.certPath], {
      cwd: work,
    });
    expect(missing.result.code).toBe(1);
    expect(missing.report.checks.find((c) => c.id === 'secrets' && c.verdict === 'fail')).toMatchObject({
      message: 'secrets.jobs: env JOBS: environment variable JOBS is not set',
      hint: 'export JOBS with the jobs secret, or point secrets.jobs at a file',
    });
  });

  it("warns that cai config init's placeholder addresses are placeholders, and names the field to change", async () => {
    const work = mkdtempSync(join(tmpdir(), 'cai-doctor-init-'));
    const init = await runCli(['config', 'init'], { cwd: work });
    expect(init.code).toBe(0);
    const { report } = await doctor(['--env', 'test', '--timeout', '1s'], { cwd: work });
    const warnings = report.checks.filter((check) => check.id === 'config' && check.verdict === 'warn');
    expect(warnings.map((check) => check.message)).toEqual(
      expect.arrayContaining([
        'provider_endpoint https://provider.example/test/cai is a placeholder: names under .example and .invalid never resolve (RFC 2606)',
        'events_url https://platform.example/test/cai/events is a placeholder: names under .example and .invalid never resolve (RFC 2606)',
      ]),
    );
  });

  it('prints a readable list on the terminal, hints under failures, and a summary line', async () => {
    const result = await runCli(['doctor', '--target', `https://${hosts.legacy}/`, '--ca', good.certPath], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines).toContain(
      '  pass  node         Node.js ' + process.version.slice(1) + ' (cai needs 20.19.0 or later)',
    );
    expect(
      lines.some((line) => line.startsWith('  skip  config       no deployment profile: no cai.config.json from ')),
    ).toBe(true);
    expect(lines).toContain(`https://${hosts.legacy}/`);
    expect(lines).toContain('  FAIL  tls-legacy   accepts TLSv1.1, below the TLS 1.2 minimum (§5.8)');
    expect(lines).toContain(
      "                     hint: set the server's minimum protocol to TLSv1.2 (e.g. ssl_protocols TLSv1.2 TLSv1.3;)",
    );
    expect(lines.at(-2)).toBe('7 passed, 1 warning, 1 failed, 2 skipped');
  });

  it('with no profile and no URL, checks this machine and exits 0 (1 when a check fails); an unreadable --ca is a usage error', async () => {
    const alone = await runCli(['doctor'], { cwd: dir });
    expect(alone.code, alone.stderr).toBe(0);
    const lines = alone.stdout.split('\n');
    expect(lines[0]).toBe(`  pass  node         Node.js ${process.version.slice(1)} (cai needs 20.19.0 or later)`);
    expect(lines[1]).toMatch(/^ {2}pass {2}temp {9}.+ is writable \(reproductions of failing checks go there\)$/);
    expect(lines[2]).toMatch(
      /^ {2}skip {2}config {7}no deployment profile: no cai\.config\.json from .+, and neither --config nor CAI_CONFIG$/,
    );
    expect(alone.stdout).toContain(
      '  warn  secrets      CAI_SECRET is not set: the secret of the commands that sign or verify, for the direction they work in\n',
    );
    expect(alone.stdout).toContain('  skip  network      no URL to probe (DNS, TCP, TLS, certificate, clock)\n');
    expect(lines.at(-2)).toBe('2 passed, 1 warning, 0 failed, 3 skipped');
    // The same secret in both variables breaks §5.1: exit 1, not 2.
    const same = await runCli(['--json', 'doctor'], {
      cwd: dir,
      env: { CAI_SECRET: 's'.repeat(40), CAI_CALLBACK_SECRET: 's'.repeat(40) },
    });
    expect(same.code).toBe(1);
    const report = JSON.parse(same.stdout) as { ok: boolean; checks: Check[] };
    expect(report.ok).toBe(false);
    expect(report.checks.filter((c) => c.id === 'secrets').map((c) => `${c.verdict} ${c.message}`)).toEqual([
      'pass CAI_SECRET is set (40 characters): the secret of the commands that sign or verify, for the direction they work in',
      "pass CAI_CALLBACK_SECRET is set (40 characters): the events secret of Interface A runs, for the provider's callbacks (§5.1)",
      'fail CAI_SECRET and CAI_CALLBACK_SECRET are the same secret',
    ]);
    expect(same.stdout).not.toContain('s'.repeat(40));
    const ca = await runCli(['doctor', '--target', `https://${hosts.modern}/`, '--ca', 'nope.pem'], { cwd: dir });
    expect(ca.code).toBe(2);
    expect(ca.stderr).toBe(
      'error: CA certificate file nope.pem does not exist\nhint: check the path, or pass - to read from stdin\n',
    );
  });
});
