import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMockPlatform } from '../../src/mock/platform.js';
import { startMockProvider } from '../../src/mock/provider.js';
import { runCli } from '../helpers/cli.js';

const JOBS_SECRET = 'jobs-secret-0123456789abcdef';
const EVENTS_SECRET = 'events-secret-0123456789abcdef';

describe('cai report on logs really written by the mocks', () => {
  it('counts the jobs the provider mock logged and the lifecycle events the platform mock logged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-report-mocks-'));
    const platformLog = join(dir, 'platform.ndjson');
    const providerLog = join(dir, 'provider.ndjson');
    const platform = await startMockPlatform({
      host: '127.0.0.1',
      port: 0,
      providerCode: 'acme',
      secrets: [EVENTS_SECRET],
      logFile: platformLog,
    });
    const provider = await startMockProvider({
      host: '127.0.0.1',
      port: 0,
      providerCode: 'acme',
      secrets: [JOBS_SECRET],
      callbackSecrets: [EVENTS_SECRET],
      scenario: { kind: 'booked' },
      speed: 10_000,
      logFile: providerLog,
    });
    try {
      for (const branch of ['BR-1', 'BR-1', 'BR-2']) {
        const sent = await runCli(
          [
            'send-job',
            '--to',
            provider.url,
            '--source',
            'plat',
            '--secret-env',
            'JOBS',
            '--sample',
            '--set',
            `branch_code=${branch}`,
            '--callback-url',
            platform.url,
            '--json',
          ],
          { env: { JOBS: JOBS_SECRET } },
        );
        expect(sent.code, sent.stdout + sent.stderr).toBe(0);
      }
      await provider.idle();
    } finally {
      await provider.close();
      await platform.close();
    }
    const eventLines = readFileSync(platformLog, 'utf8').trim().split('\n').length;
    const result = await runCli(['report', '--log', providerLog, '--log', platformLog, '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout);
    expect(report.malformed).toEqual([]);
    expect(report.lines).toBe(3 + eventLines);
    expect(report.records.used).toBe(3 + eventLines);
    expect(report.branches.map((b: { branch_code: string; jobs: number }) => [b.branch_code, b.jobs])).toEqual([
      ['BR-1', 2],
      ['BR-2', 1],
    ]);
    // Every job was contacted and booked: the provider mock plays the whole §3 lifecycle.
    expect(report.total.first_contact).toMatchObject({
      contacted: 3,
      not_contacted: 0,
      within_target: 3,
      within_target_share: 1,
    });
    expect(report.total.appointments.booked).toBe(3);
    expect(report.total.conversations.started).toBe(3);
    expect(report.total.message_delivery.count).toBe(
      report.total.conversations.messages_outbound + report.total.conversations.messages_inbound,
    );
  });
});
