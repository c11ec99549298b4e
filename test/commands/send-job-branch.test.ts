import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type RunningMockProvider } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';

const jobsSecret = 'whsec_send_job_branch_jobs';
const eventsSecret = 'whsec_send_job_branch_events';
let provider: RunningMockProvider;

beforeAll(async () => {
  provider = await startMockProvider({
    providerCode: 'acme',
    secrets: [jobsSecret],
    callbackSecrets: [eventsSecret],
    catalog: [{ branch_code: 'BR-SEV-01', name: 'Sevilla Centro', number_e164: '+34955000001' }],
    speed: 1_000_000,
  });
});
afterAll(() => provider.close());

describe('cai send-job --sample --branch-code (a provider that checks its catalog, §1)', () => {
  const base = () => [
    'send-job',
    '--to',
    provider.url,
    '--source',
    'platform',
    '--sample',
    '--callback-url',
    'http://127.0.0.1:9/events',
    '--json',
  ];

  it("a sampled job with a catalog branch_code is accepted, with that unit's origin number", async () => {
    const result = await runCli([...base(), '--branch-code', 'BR-SEV-01', '--no-retry'], {
      env: { CAI_SECRET: jobsSecret },
    });
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.verdict).toBe('accepted');
    expect(doc.response.json.assigned_number_e164).toBe('+34955000001');
  });

  it('without it, the sample carries a code outside the catalog and is rejected', async () => {
    const result = await runCli([...base(), '--no-retry'], { env: { CAI_SECRET: jobsSecret } });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).response.status).toBe(400);
  });

  it('--branch-code with a --body file is a usage error (the file is sent byte for byte)', async () => {
    const result = await runCli(
      [
        'send-job',
        '--to',
        provider.url,
        '--source',
        'platform',
        '--body',
        'package.json',
        '--branch-code',
        'BR-SEV-01',
      ],
      {
        env: { CAI_SECRET: jobsSecret },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --branch-code works with --sample only\nhint: set branch_code in the body file instead\n',
    );
  });
});
