/**
 * The reproduction of a check that sent several requests, against a receiver of the user's (not the built-in one):
 * a burst of concurrent repeats keeps as evidence only the answer that was wrong, and that one request sent alone
 * would be accepted as new, not show the failure; the script runs the whole check again instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../../src/conformance/run-receiver.js';
import { receiverReproducer } from '../../src/commands/conformance/repro-defaults.js';
import { startMockPlatform } from '../../src/mock/platform.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-repro-target-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reproductions of multi-request checks against a target', () => {
  it('a burst of concurrent repeats (B-DEDUP-002) is reproduced by running the check again, not by one of its requests', async () => {
    const secret = 'whsec_repro_target';
    const platform = await startMockPlatform({
      providerCode: 'acme',
      secrets: [secret],
      faults: ['no-dedupe'],
      keepRecords: false,
    });
    try {
      const options: ConformanceOptions = {
        interface: 'B',
        target: platform.url,
        identity: 'acme',
        secrets: [secret],
        secretLabel: 'CAI_SECRET',
        selection: { only: ['B-DEDUP-001', 'B-DEDUP-002'], skip: [], include: [] },
        reproDir: join(dir, 'repro'),
      };
      const report = await runConformance({ ...options, reproducer: receiverReproducer(options) });
      for (const id of ['B-DEDUP-001', 'B-DEDUP-002']) {
        const check = report.checks.find((entry) => entry.id === id);
        expect(check?.verdict, id).toBe('failed');
        expect(check?.requests, id).toBeGreaterThan(1);
        expect(check?.repro?.command, id).toBe(
          `cai conformance run --interface B --to ${platform.url} --provider acme --secret-env CAI_SECRET --only ${id}`,
        );
        expect(readFileSync(check?.repro?.script as string, 'utf8')).toContain(`--only ${id}\n`);
      }
    } finally {
      await platform.close();
    }
  });
});
