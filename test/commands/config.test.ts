import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { sign } from '../../src/signing/sign.js';

const BODY = '{"event":"job.closed","event_id":"e-1","lead_id":"L1","outcome":"no_answer","attempts":3}';

function workspace(config: unknown = defaultConfig()): string {
  const dir = mkdtempSync(join(tmpdir(), 'cai-config-cmd-'));
  writeFileSync(join(dir, 'cai.config.json'), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, 'body.json'), BODY);
  writeFileSync(join(dir, 'jobs.secret'), 'jobs-secret-from-file\n');
  chmodSync(join(dir, 'jobs.secret'), 0o600);
  return dir;
}

function defaultConfig() {
  return {
    version: 1,
    environments: {
      test: {
        provider_code: 'acme-test',
        events_url: 'https://platform.example/test/events',
        secrets: { jobs: { file: 'jobs.secret' }, events: [{ env: 'EV_NEW' }, { env: 'EV_OLD' }] },
      },
      production: {
        provider_code: 'acme',
        events_url: 'https://platform.example/events',
        secrets: { jobs: { env: 'PROD_JOBS' }, events: { env: 'PROD_EVENTS' } },
      },
    },
  };
}

const secrets = { EV_NEW: 'events-new-secret', EV_OLD: 'events-old-secret', PROD_EVENTS: 'prod-events-secret' };

describe('cai sign / verify with a deployment profile', () => {
  it('signs interface B with the first events secret of the chosen environment and fills the curl command', async () => {
    const dir = workspace();
    const result = await runCli(
      [
        '--env',
        'test',
        'sign',
        '--interface',
        'B',
        '--body',
        'body.json',
        '--timestamp',
        '1767225600',
        '--format',
        'curl',
      ],
      { cwd: dir, env: secrets },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('curl -sS -i -X POST https://platform.example/test/events');
    expect(result.stdout).toContain("-H 'X-CAI-Provider: acme-test'");
    expect(result.stdout).toContain(
      `-H 'X-CAI-Signature: ${sign('events-new-secret', 1767225600, Buffer.from(BODY))}'`,
    );
    expect(result.stderr).toBe('signed with the first of 2 secrets (--secret-env EV_NEW)\n');
  });

  it('CAI_ENV chooses too, and a flag overrides the profile', async () => {
    const dir = workspace();
    const fromEnv = await runCli(
      ['sign', '--interface', 'B', '--body', 'body.json', '--timestamp', '1767225600', '--json'],
      { cwd: dir, env: { ...secrets, CAI_ENV: 'production' } },
    );
    expect(JSON.parse(fromEnv.stdout).signature).toBe(sign('prod-events-secret', 1767225600, Buffer.from(BODY)));
    const flag = await runCli(
      [
        'sign',
        '--env',
        'production',
        '--interface',
        'B',
        '--secret-env',
        'EV_OLD',
        '--body',
        'body.json',
        '--timestamp',
        '1767225600',
        '--json',
      ],
      { cwd: dir, env: secrets },
    );
    expect(JSON.parse(flag.stdout).signature).toBe(sign('events-old-secret', 1767225600, Buffer.from(BODY)));
  });

  it('verify --interface A uses the jobs secret from a file, relative to the config file', async () => {
    const dir = workspace();
    const signature = sign('jobs-secret-from-file', 1767225600, Buffer.from(BODY));
    const result = await runCli(
      [
        'verify',
        '--env',
        'test',
        '--interface',
        'A',
        '--body',
        join(dir, 'body.json'),
        '--timestamp',
        '1767225600',
        '--signature',
        signature,
        '--now',
        '1767225610',
      ],
      { cwd: tmpdir(), env: { ...secrets, CAI_CONFIG: join(dir, 'cai.config.json') } },
    );
    expect(result.stdout).toBe('valid: the signature matches; timestamp 10 s old, within ±300 s\n');
    expect(result.code).toBe(0);
  });

  it('verify --interface B accepts the old secret of a rotation overlap, and names the mix-up with the jobs secret', async () => {
    const dir = workspace();
    const old = await runCli(
      [
        'verify',
        '--env',
        'test',
        '--interface',
        'B',
        '--body',
        'body.json',
        '--timestamp',
        '1767225600',
        '--signature',
        sign('events-old-secret', 1767225600, Buffer.from(BODY)),
        '--now',
        '1767225600',
      ],
      { cwd: dir, env: secrets },
    );
    expect(old.stdout).toBe(
      'valid: the signature matches with secret #2 of 2 (--secret-env EV_OLD); timestamp 0 s old, within ±300 s\n',
    );
    const mixed = await runCli(
      [
        'verify',
        '--env',
        'test',
        '--interface',
        'B',
        '--body',
        'body.json',
        '--timestamp',
        '1767225600',
        '--signature',
        sign('jobs-secret-from-file', 1767225600, Buffer.from(BODY)),
        '--now',
        '1767225600',
      ],
      { cwd: dir, env: secrets },
    );
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toContain("likely cause: the request was signed with the other direction's secret");
  });

  it('without --interface nothing is taken from the profile, and several environments with none chosen apply nothing', async () => {
    const dir = workspace();
    const result = await runCli(['sign', '--body', 'body.json'], { cwd: dir, env: secrets });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: no secret given and CAI_SECRET is not set\nhint: pass --secret-env NAME, --secret-file PATH or --secret VALUE, or set CAI_SECRET\n',
    );
    const none = await runCli(['sign', '--interface', 'B', '--body', 'body.json'], {
      cwd: dir,
      env: { ...secrets, CAI_SECRET: 'fallback-secret' },
    });
    expect(none.code).toBe(0);
    expect(none.stderr).toBe(
      `note: ${join(dir, 'cai.config.json')} defines several environments and none is chosen, so none of its values is used; pass --env NAME or set CAI_ENV\n`,
    );
  });

  it('configuration errors stop every command that would use the profile, with exit 2', async () => {
    const dir = workspace();
    const missing = await runCli(['sign', '--env', 'production', '--interface', 'A', '--body', 'body.json'], {
      cwd: dir,
      env: secrets,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: environment variable PROD_JOBS is not set (secrets.jobs of environment production in ${join(dir, 'cai.config.json')})\nhint: set it, or pass --secret-env NAME / --secret-file PATH to override the config\n`,
    );
    const unknown = await runCli(['sign', '--env', 'staging', '--interface', 'A', '--body', 'body.json'], {
      cwd: dir,
      env: secrets,
    });
    expect(unknown.stderr).toBe(
      `error: environment staging (from --env) is not in ${join(dir, 'cai.config.json')}\nhint: pass one of the file's environments (it defines: test, production)\n`,
    );
    writeFileSync(
      join(dir, 'cai.config.json'),
      '{"version": 1, "environments": {"test": {"secrets": {"jobs": "whsec_inline_value"}}}}',
    );
    const inline = await runCli(['--json', 'sign', '--interface', 'A', '--body', 'body.json'], {
      cwd: dir,
      env: secrets,
    });
    expect(inline.code).toBe(2);
    const doc = JSON.parse(inline.stdout);
    expect(doc.error.code).toBe('inline_secret');
    expect(inline.stdout).not.toContain('whsec_inline_value');
  });

  it('an environment asked for, or a file named, is checked by every command, even one the profile sets nothing of', async () => {
    const dir = workspace();
    for (const [argv, env] of [
      [['--env', 'staging', 'validate', 'body.json'], {}],
      [['sign', '--secret-env', 'EV_NEW', '--body', 'body.json'], { CAI_ENV: 'staging' }],
    ] as const) {
      const result = await runCli([...argv], { cwd: dir, env: { ...secrets, ...env } });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `error: environment staging (from ${argv[0] === '--env' ? '--env' : 'CAI_ENV'}) is not in ${join(dir, 'cai.config.json')}\nhint: pass one of the file's environments (it defines: test, production)\n`,
      );
    }
    writeFileSync(join(dir, 'broken.json'), 'garbage');
    const named = await runCli(['--config', 'broken.json', 'validate', 'body.json'], { cwd: dir });
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^error: .*broken\.json is not valid JSON/);
    // Found by walking up, with no environment asked for: a command that uses none of it does not read it.
    writeFileSync(join(dir, 'cai.config.json'), 'garbage');
    expect((await runCli(['validate', 'body.json'], { cwd: dir })).code).not.toBe(2);
  });

  it('--env without any config file is an error, not silently ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-empty-'));
    const result = await runCli(['sign', '--env', 'test', '--secret-env', 'EV_NEW'], {
      cwd: dir,
      env: secrets,
      stdin: '{}',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: --env names environment test but there is no cai.config.json in ${dir} or any parent directory\nhint: run from the directory that holds it, pass --config FILE, or create one with 'cai config init'\n`,
    );
  });
});

describe('cai config init / show', () => {
  it('init writes a valid starting file and never overwrites one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-init-'));
    const first = await runCli(['config', 'init'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`wrote ${join(dir, 'cai.config.json')}\n`);
    const written = readFileSync(join(dir, 'cai.config.json'), 'utf8');
    writeFileSync(join(dir, 'cai.config.json'), written.replace('"acme"', '"edited"'));
    const again = await runCli(['config', 'init'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `error: ${join(dir, 'cai.config.json')} already exists; it is left unchanged\nhint: edit it, or see what it resolves to with 'cai config show'\n`,
    );
    expect(readFileSync(join(dir, 'cai.config.json'), 'utf8')).toContain('"edited"');
    const show = await runCli(['config', 'show', '--json'], { cwd: dir });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).chosen).toBe('test');
  });

  it('show prints each setting with where it came from, secrets masked, and warns about a loose secret file', async () => {
    const dir = workspace();
    chmodSync(join(dir, 'jobs.secret'), 0o640);
    const result = await runCli(['config', 'show', '--env', 'test', '--json'], { cwd: dir, env: secrets });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/events-new-secret|events-old-secret|jobs-secret-from-file/);
    const doc = JSON.parse(result.stdout);
    expect(doc.config).toEqual({ path: join(dir, 'cai.config.json'), origin: 'cwd' });
    const environment = doc.environments[0];
    expect(environment).toMatchObject({ name: 'test', chosenBy: '--env' });
    const byField = Object.fromEntries(environment.settings.map((s: { field: string }) => [s.field, s]));
    expect(byField.provider_code).toMatchObject({ value: 'acme-test', source: 'environments.test.provider_code' });
    expect(byField['secrets.events'].value).toBe(
      'env EV_NEW: ******** (17 characters); env EV_OLD: ******** (17 characters)',
    );
    expect(byField['secrets.jobs'].value).toBe(
      'file jobs.secret: ******** (21 characters, readable by other users (mode 640))',
    );
    expect(byField.platform_id.value).toBeUndefined();
    expect(result.stderr).toBe(
      `warning: secret file jobs.secret is readable by other users (mode 640); run: chmod 600 ${join(dir, 'jobs.secret')}\n`,
    );
  });

  it('show lists every environment when none is chosen, and says no defaults apply', async () => {
    const dir = workspace();
    const result = await runCli(['config', 'show'], { cwd: dir, env: secrets });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'environment: none chosen (test, production defined; pass --env NAME or set CAI_ENV, or add default_env); no defaults are applied',
    );
    expect(result.stdout).toContain('\nenvironment test\n');
    expect(result.stdout).toContain('\nenvironment production\n');
    expect(result.stdout).toContain('environment variable PROD_JOBS is not set');
  });

  it('show without a config file is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-empty-'));
    const result = await runCli(['config', 'show'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: no cai.config.json in ${dir} or any parent directory\nhint: create one with 'cai config init', or name one with --config FILE or CAI_CONFIG\n`,
    );
  });
});

describe('cai send-job / send-event with a deployment profile (real HTTP on 127.0.0.1)', () => {
  it("takes --to, --source, --callback-url, --provider and each direction's secret from the environment", async () => {
    const { createServer } = await import('node:http');
    const { verify } = await import('../../src/signing/verify.js');
    const received: { url: string; identity: string; callback?: string; valid: boolean }[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks);
        const job = request.url === '/contact-jobs';
        const secret = job ? 'jobs-secret-0123456789' : 'events-secret-0123456789';
        const { valid } = verify({
          secrets: [secret],
          signature: String(request.headers['x-cai-signature']),
          timestamp: String(request.headers['x-cai-timestamp']),
          rawBody: body,
        });
        received.push({
          url: request.url ?? '',
          identity: String(request.headers[job ? 'x-cai-source' : 'x-cai-provider']),
          callback: JSON.parse(body.toString()).callback_url,
          valid,
        });
        response.writeHead(202, { 'content-type': 'application/json' });
        response.end(job ? '{"provider_job_id":"pj-1","assigned_number_e164":"+5511300000001"}' : '{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
      const dir = workspace({
        version: 1,
        environments: {
          local: {
            provider_code: 'acme',
            platform_id: 'plat-1',
            provider_endpoint: base,
            events_url: `${base}/cai/events`,
            secrets: { jobs: { env: 'JOBS' }, events: { env: 'EVENTS' } },
          },
        },
      });
      const env = { JOBS: 'jobs-secret-0123456789', EVENTS: 'events-secret-0123456789' };
      const job = await runCli(['send-job', '--sample', '--json'], { cwd: dir, env });
      expect(job.code).toBe(0);
      const event = await runCli(['send-event', '--sample', 'job.closed', '--json'], { cwd: dir, env });
      expect(event.code).toBe(0);
      expect(received).toEqual([
        { url: '/contact-jobs', identity: 'plat-1', callback: `${base}/cai/events`, valid: true },
        { url: '/cai/events', identity: 'acme', callback: undefined, valid: true },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('cai mock with a deployment profile', () => {
  it('mock platform takes its required --provider, its secret and --allow-origin from the profile', async () => {
    const dir = workspace({
      version: 1,
      environments: {
        local: {
          provider_code: 'acme-local',
          events_url: 'https://platform.example/cai/events',
          authorised_origins: ['127.0.0.1'],
          secrets: { events: { env: 'EVENTS' } },
        },
      },
    });
    const result = await runCli(['mock', 'platform', '--debug'], {
      cwd: dir,
      env: { EVENTS: 'events-secret-0123456789' },
      interrupt: 'when-serving',
    });
    expect(result.code).toBe(130);
    expect(result.stdout.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cai\/events$/);
    expect(result.stderr).toContain('debug: config: --provider = acme-local (provider_code of environment local)');
    expect(result.stderr).toContain('debug: config: --secret = env EVENTS (secrets.events of environment local)');
    expect(result.stderr).toContain(
      'debug: config: --allow-origin = 127.0.0.1 (authorised_origins of environment local)',
    );
    expect(result.stderr).toContain('mock platform: provider acme-local, 1 secret');
  });
});
