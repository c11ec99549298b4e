import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { chooseEnvironment, loadProfile, parseConfig, type LoadedConfig } from '../../src/config/load.js';
import { locateConfig } from '../../src/config/locate.js';
import { starterConfig } from '../../src/config/init.js';
import { useWords } from '../../src/errors.js';
import { SHARED_HINTS } from '../../src/commands/common/hints.js';

// The messages in the CLI's words (its flags), as the commands print them.
beforeAll(() => useWords(SHARED_HINTS));

const valid = {
  version: 1,
  environments: {
    test: {
      provider_code: 'acme',
      platform_id: 'plat',
      provider_endpoint: 'https://provider.example/cai',
      events_url: 'https://platform.example/cai/events',
      branches: [{ branch_code: 'BR-1', name: 'One' }],
      authorised_origins: ['203.0.113.7', '2001:db8::/32'],
      secrets: { jobs: { env: 'JOBS' }, events: [{ file: 'events.secret' }, { env: 'EVENTS_OLD' }] },
    },
  },
};

function usage(fn: () => unknown): CaiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CaiError) return error;
    throw error;
  }
  throw new Error('expected a CaiError');
}

describe('parseConfig', () => {
  it('accepts the documented shape and the starter file', () => {
    expect(parseConfig(JSON.stringify(valid)).environments.test?.provider_code).toBe('acme');
    expect(
      Object.keys(
        parseConfig(JSON.stringify(starterConfig('https://schema.example/cai.config.schema.json'))).environments,
      ),
    ).toEqual(['test', 'production']);
  });

  it.each([
    ['a string', 'whsec_abc'],
    ['a list holding a string', [{ env: 'A' }, 'whsec_abc']],
    ['an object with a value', { value: 'whsec_abc' }],
  ])('refuses an inline secret given as %s, naming where it is', (_what, jobs) => {
    const config = structuredClone(valid) as { environments: { test: { secrets: Record<string, unknown> } } };
    config.environments.test.secrets.jobs = jobs;
    const error = usage(() => parseConfig(JSON.stringify(config), 'cai.config.json'));
    expect(error.code).toBe('inline_secret');
    expect(error.message).toMatch(/^cai\.config\.json: environments\.test\.secrets\.jobs(\[1\])? holds a secret value/);
    expect(error.message).not.toContain('whsec_abc');
    expect(error.hint).toContain('{"env": "NAME"}');
  });

  it('refuses a secret-like key holding a string', () => {
    const config = { version: 1, environments: { test: { jobs_secret: 'whsec_abc' } } };
    expect(usage(() => parseConfig(JSON.stringify(config))).code).toBe('inline_secret');
  });

  it('names the field of each schema problem', () => {
    const config = {
      version: 1,
      environments: {
        test: { events_url: 'ftp://x', authorised_origins: ['300.1.1.1'], secrets: { jobs: { env: 'A', file: 'b' } } },
      },
    };
    const error = usage(() => parseConfig(JSON.stringify(config), 'c.json'));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain('c.json is invalid: ');
    expect(error.message).toContain('environments.test.events_url: expected an absolute http(s) URL');
    expect(error.message).toContain('environments.test.authorised_origins.0: expected an IP address or CIDR range');
    expect(error.message).toContain('environments.test.secrets.jobs');
  });

  it('refuses unknown keys (a typo must not silently drop a setting)', () => {
    const config = { version: 1, environments: { test: { provider_cod: 'acme' } } };
    expect(usage(() => parseConfig(JSON.stringify(config))).message).toMatch(/provider_cod/);
  });

  it('refuses duplicate branch codes, a wrong version, and a default_env that does not exist', () => {
    expect(
      usage(() =>
        parseConfig(
          JSON.stringify({
            version: 1,
            environments: {
              t: {
                branches: [
                  { branch_code: 'A', name: '' },
                  { branch_code: 'A', name: '' },
                ],
              },
            },
          }),
        ),
      ).message,
    ).toContain('unique');
    expect(usage(() => parseConfig(JSON.stringify({ version: 2, environments: {} }))).message).toContain(
      'expected "version": 1',
    );
    expect(
      usage(() => parseConfig(JSON.stringify({ version: 1, default_env: 'x', environments: {} }))).message,
    ).toContain('default_env');
  });

  it('gives JSON syntax errors a line and a column', () => {
    const error = usage(() => parseConfig('{\n  "version": 1,\n  "environments": {,}\n}', 'c.json'));
    expect(error.message).toMatch(/^c\.json is not valid JSON: .* at line 3, column 20$/);
  });
});

describe('chooseEnvironment', () => {
  const loaded = (config: unknown): LoadedConfig => ({
    location: { path: '/x/cai.config.json', origin: 'cwd' },
    config: parseConfig(JSON.stringify(config)),
  });
  const two = { version: 1, environments: { test: {}, production: {} } };

  it('takes --env / CAI_ENV, else the only one, else default_env, else none', () => {
    expect(chooseEnvironment(loaded(two), { name: 'production', origin: 'flag' })?.name).toBe('production');
    expect(chooseEnvironment(loaded(valid), undefined)).toMatchObject({ name: 'test', origin: 'only', baseDir: '/x' });
    expect(chooseEnvironment(loaded({ ...two, default_env: 'test' }), undefined)).toMatchObject({
      name: 'test',
      origin: 'default_env',
    });
    expect(chooseEnvironment(loaded(two), undefined)).toBeUndefined();
  });

  it('refuses an environment the file does not define, listing those it does', () => {
    const error = usage(() => chooseEnvironment(loaded(two), { name: 'prod', origin: 'env' }));
    expect(error.message).toBe('environment prod (from CAI_ENV) is not in /x/cai.config.json');
    expect(error.hint).toContain('test, production');
  });
});

describe('locateConfig and loadProfile', () => {
  it('finds ./cai.config.json, prefers --config over CAI_CONFIG, and refuses a named file that is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-config-'));
    expect(locateConfig(undefined, {}, dir)).toBeUndefined();
    writeFileSync(join(dir, 'cai.config.json'), JSON.stringify(valid));
    writeFileSync(join(dir, 'other.json'), JSON.stringify(valid));
    expect(locateConfig(undefined, {}, dir)).toEqual({ path: join(dir, 'cai.config.json'), origin: 'cwd' });
    expect(locateConfig(undefined, { CAI_CONFIG: 'other.json' }, dir)).toEqual({
      path: join(dir, 'other.json'),
      origin: 'env',
    });
    expect(locateConfig('cai.config.json', { CAI_CONFIG: 'other.json' }, dir)?.origin).toBe('flag');
    expect(usage(() => locateConfig('missing.json', {}, dir)).message).toBe(
      'config file missing.json (from --config) does not exist',
    );
    expect(loadProfile({ env: 'test' }, {}, dir).chosen?.origin).toBe('flag');
  });

  it('refuses --env when there is no config file rather than ignoring it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-config-'));
    expect(usage(() => loadProfile({}, { CAI_ENV: 'test' }, dir)).message).toBe(
      `CAI_ENV names environment test but there is no cai.config.json in ${dir} or any parent directory`,
    );
    expect(loadProfile({}, {}, dir)).toEqual({});
  });
});
