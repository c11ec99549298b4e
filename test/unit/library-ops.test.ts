import { describe, expect, it } from 'vitest';
import {
  CONFIG_DEFAULT_RULES,
  CaiConfigSchema,
  parseConfig,
  reportFromLogs,
  reportToCsv,
  runDoctor,
} from '../../src/index.js';
import { ROOT } from '../helpers/cli.js';

describe('library API: configuration, doctor, report', () => {
  it('reportFromLogs gives the same report as cai report --format json', async () => {
    const report = await reportFromLogs(
      [`${ROOT}fixtures/logs/provider.ndjson`, `${ROOT}fixtures/logs/platform.ndjson`],
      { space: 'live' },
    );
    expect(report.total.jobs).toBe(6);
    expect(reportToCsv(report).split('\r\n')[0]).toMatch(/^branch_code,jobs,/);
  });

  it('parseConfig and the schema agree; the defaults table is exported', () => {
    const text = '{"version":1,"environments":{"test":{"provider_code":"acme"}}}';
    expect(parseConfig(text)).toEqual(CaiConfigSchema.parse(JSON.parse(text)));
    expect(CONFIG_DEFAULT_RULES.length).toBeGreaterThan(20);
  });

  it('runDoctor without a profile or targets returns skipped checks, not an exception', async () => {
    const report = await runDoctor({
      interfaces: ['A', 'B'],
      targets: [],
      env: {},
      now: () => Date.now(),
      timeoutMs: 1000,
    });
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => `${c.id} ${c.verdict}`)).toEqual([
      'node pass',
      'temp pass',
      'config skip',
      'secrets warn',
      'secrets skip',
      'network skip',
    ]);
  });
});
