/**
 * The suite tests itself: against the reference receivers every check passes; against a reference receiver that
 * gives an answer the spec allows but does not prefer (a Retry-After of 0) every check passes too; the table of
 * faults (fault-table.ts) names every fault of both mocks, and a fault for every check added at a rule's edge; a
 * failure found with `--mock --break` is reproduced by the same run's words. That each broken receiver fails exactly
 * the checks that name its fault is asserted where its run also verifies every reproduction: repro-verified.test.ts,
 * through the built binary (one run a fault, not two).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/conformance/catalogue.js';
import { runConformance, type ConformanceOptions } from '../../src/conformance/run-receiver.js';
import { receiverReproducer } from '../../src/commands/conformance/repro-defaults.js';
import type { SuiteReport } from '../../src/conformance/types.js';
import { startMockPlatform } from '../../src/mock/platform.js';
import type { InterfaceId } from '../../src/spec/constants.js';
import { FAULT_TABLE, range } from './fault-table.js';
import { GENERATED_FAULTS } from './generate-faults.js';

const reproRoot = mkdtempSync(join(tmpdir(), 'cai-conformance-self-test-'));
afterAll(() => rmSync(reproRoot, { recursive: true, force: true }));
let runs = 0;

function run(iface: InterfaceId, faults: string[] = [], include: string[] = []): Promise<SuiteReport> {
  runs += 1;
  const options: ConformanceOptions = {
    interface: iface,
    mock: true,
    faults,
    selection: { only: [], skip: [], include },
    callbackWaitMs: 10_000,
    reproDir: join(reproRoot, `run-${runs}`),
    // The named checks are judged alone against a broken mock (exactly those that name the fault); the stateful
    // phase runs against the correct ones, where the model and the mocks must agree (explore.test.ts judges what
    // the phase catches).
    ...(faults.length > 0 ? { explore: false as const } : {}),
  };
  return runConformance({ ...options, reproducer: receiverReproducer(options) });
}

const failing = (report: SuiteReport) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);
const explain = (report: SuiteReport) =>
  report.checks
    .filter((check) => check.verdict === 'failed' || check.verdict === 'warning')
    .map((check) => `${check.id}: expected ${check.expected}; actual ${check.actual}`)
    .join('\n');
const levelOf = (id: string) => CATALOGUE.find((check) => check.id === id)?.level;

describe('conformance suite against the reference receivers', () => {
  it.concurrent.each([
    ['B', []],
    ['B', ['rate-limit']],
    ['A', []],
  ] as [InterfaceId, string[]][])('interface %s (include %j): every check passes', async (iface, include) => {
    const report = await run(iface, [], include);
    expect(failing(report), explain(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.passed).toBeGreaterThan(include.length > 0 ? 60 : 55);
    expect(report.checks.filter((check) => check.id.includes('-STATE-')).map((check) => check.verdict)).toEqual(
      Array(iface === 'B' ? 8 : 7).fill('passed'),
    );
    expect(report.clock.offsetSeconds).not.toBeNull();
    const skipped = report.checks.filter((check) => check.verdict === 'skipped').map((check) => check.id);
    expect(skipped).toEqual(
      iface === 'B'
        ? include.length > 0
          ? ['B-AUTH-016', 'B-AUTH-022']
          : ['B-AUTH-016', 'B-AUTH-022', 'B-RATE-001']
        : [],
    );
  });

  it('a platform whose request cap answers 429 with Retry-After: 0 passes every check too (§7 sets no minimum)', async () => {
    const secret = 'whsec_self_test_retry_after_zero';
    const platform = await startMockPlatform({
      providerCode: 'acme',
      secrets: [secret],
      rateLimit: 40,
      retryAfterSeconds: 0,
      keepRecords: false,
    });
    try {
      runs += 1;
      const report = await runConformance({
        interface: 'B',
        target: platform.url,
        identity: 'acme',
        secrets: [secret],
        selection: { only: [], skip: [], include: ['rate-limit'] },
        reproDir: join(reproRoot, `run-${runs}`),
      });
      expect(failing(report), explain(report)).toEqual([]);
      // The cap was met and honoured along the way, not avoided.
      expect(report.checks.reduce((sum, check) => sum + check.rateLimitedRetries, 0)).toBeGreaterThan(0);
      expect(report.checks.find((check) => check.id === 'B-RATE-001')?.actual).toMatch(/Retry-After: 0$/);
    } finally {
      await platform.close();
    }
  });
});

describe('conformance suite against broken receivers (one fault each)', () => {
  it('covers every fault of both mocks, each caught by at least one check', async () => {
    const { PLATFORM_FAULTS, PROVIDER_FAULTS } = await import('../../src/mock/faults.js');
    // The date-time faults the generated documents catch are run by generate.test.ts.
    const covered = (iface: InterfaceId) =>
      [...FAULT_TABLE, ...GENERATED_FAULTS]
        .filter((entry) => entry.interface === iface)
        .map((entry) => entry.fault)
        .sort();
    expect(covered('B')).toEqual(Object.keys(PLATFORM_FAULTS).sort());
    expect(covered('A')).toEqual(Object.keys(PROVIDER_FAULTS).sort());
    for (const entry of FAULT_TABLE) {
      expect(entry.fails.length, entry.fault).toBeGreaterThan(0);
      for (const id of entry.fails) expect(levelOf(id), `${entry.fault}: ${id}`).toBeDefined();
    }
  });

  it('gives every check added for an edge a fault that only it catches', () => {
    // A check named alone by some fault is proven on its own: a receiver wrong at that edge fails it and nothing else.
    const alone = new Set(FAULT_TABLE.filter((entry) => entry.fails.length === 1).map((entry) => `${entry.fails[0]}`));
    const edges = [
      'B-ACCEPT-009',
      'B-ACCEPT-010',
      'B-DEDUP-006',
      'B-DEDUP-007',
      'B-DEDUP-008',
      'B-AUTH-017',
      'B-SIZE-004',
      ...range('B-FORMAT', 1, 5),
      ...range('B-FRAME', 1, 2),
      'A-DEDUP-004',
      'A-DEDUP-005',
      'A-DEDUP-006',
      'A-DEDUP-007',
      'A-AUTH-015',
      'A-AUTH-016',
      ...range('A-FORMAT', 1, 6),
      ...range('A-FRAME', 1, 2),
      'B-AUTH-018',
      'B-AUTH-019',
      'B-AUTH-020',
      'B-AUTH-021',
      'B-DEDUP-009',
      'B-DEDUP-010',
      'B-SIZE-001',
      'B-SCHEMA-008',
      'B-SCHEMA-011',
      'A-AUTH-017',
      'A-AUTH-018',
      'A-AUTH-019',
      'A-AUTH-020',
      'A-AUTH-021',
      'A-DEDUP-008',
      'A-SCHEMA-007',
      // BS-RETRY-001 and -008 share their faults with -009 and -010, which see the same mistake on another callback stage.
      'A-CB-006',
      'A-CB-012',
      'A-CB-013',
      'A-CB-014',
      'BS-RETRY-007',
      'BS-REJECT-001',
      'BS-HDR-001',
      'BS-DOC-001',
    ];
    for (const id of edges) expect(alone.has(id), id).toBe(true);
  });

  // Every fault's run is judged in repro-verified.test.ts; here, what only a run with --mock says: how to run it again.
  it.concurrent.each([
    ['B', 'no-dedupe'],
    ['A', 'no-dedupe'],
  ] as [InterfaceId, string][])(
    'interface %s, --mock --break %s: each failure says how to run it again with the same fault',
    async (iface, fault) => {
      const report = await run(iface, [fault]);
      const named = FAULT_TABLE.find((entry) => entry.interface === iface && entry.fault === fault)?.fails ?? [];
      expect(failing(report).sort(), explain(report)).toEqual([...named].sort());
      // The built-in receiver is gone with the run, so the check runs again against a fresh one with the same fault,
      // and its exit status is the verdict.
      for (const check of report.checks.filter((entry) => entry.verdict === 'failed')) {
        expect(check.repro?.command, check.id).toBe(
          check.repro?.command.startsWith('cai verify') || check.repro?.command.startsWith('cai validate')
            ? check.repro.command
            : `cai conformance run --interface ${iface} --mock --break ${fault} --only ${check.id}`,
        );
      }
    },
  );
});
