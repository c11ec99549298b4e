/**
 * The starting `cai.config.json` written by `cai config init`: valid as written, placeholders to replace, and its
 * `$schema` (the schema of this version, `cai schema config`) so that an editor checks it as it is edited.
 */
export function starterConfig(schemaUrl: string): Record<string, unknown> {
  const environment = (name: 'test' | 'production') => ({
    provider_code: 'acme',
    platform_id: 'example-platform',
    provider_endpoint: name === 'test' ? 'https://provider.example/test/cai' : 'https://provider.example/cai',
    events_url: name === 'test' ? 'https://platform.example/test/cai/events' : 'https://platform.example/cai/events',
    branches: [
      { branch_code: 'BR-001', name: 'Main branch' },
      { branch_code: 'BR-002', name: 'North branch' },
    ],
    authorised_origins: ['203.0.113.10', '203.0.113.0/28'],
    secrets:
      name === 'test'
        ? { jobs: { env: 'CAI_TEST_JOBS_SECRET' }, events: { env: 'CAI_TEST_EVENTS_SECRET' } }
        : {
            jobs: { file: 'secrets/production-jobs.secret' },
            events: [
              { file: 'secrets/production-events.secret' },
              { file: 'secrets/production-events.previous.secret' },
            ],
          },
  });
  return {
    $schema: schemaUrl,
    version: 1,
    default_env: 'test',
    environments: { test: environment('test'), production: environment('production') },
  };
}
