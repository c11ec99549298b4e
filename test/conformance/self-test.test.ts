/**
 * The suite tests itself: against the reference receivers every check passes, and against each deliberately
 * broken receiver (one fault each) exactly the checks that name that fault fail — at least one of them a must.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/suite.js';
import type { SuiteReport } from '../../src/conformance/types.js';
import type { InterfaceId } from '../../src/spec/constants.js';

interface FaultCase {
  interface: InterfaceId;
  fault: string;
  /** Exactly the checks that must fail (failed or warning) with this fault. */
  fails: string[];
  include?: string[];
}

const range = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => `${prefix}-${String(from + index).padStart(3, '0')}`);

export const FAULT_TABLE: FaultCase[] = [
  // Interface B: the platform's events endpoint.
  { interface: 'B', fault: 'no-dedupe', fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005'] },
  { interface: 'B', fault: 'racy-dedupe', fails: ['B-DEDUP-002'] },
  { interface: 'B', fault: 'dedupe-before-auth', fails: ['B-DEDUP-003'] },
  { interface: 'B', fault: 'reserialising-verifier', fails: ['B-SIG-001', 'B-SIG-003', 'B-SIG-005'] },
  { interface: 'B', fault: 'no-window', fails: ['B-AUTH-010', 'B-AUTH-011'] },
  { interface: 'B', fault: 'past-only-window', fails: ['B-AUTH-011'] },
  { interface: 'B', fault: 'no-size-limit', fails: ['B-SIZE-001'] },
  { interface: 'B', fault: 'reject-unknown-fields', fails: ['B-ACCEPT-006'] },
  { interface: 'B', fault: 'reject-unknown-lead', fails: ['B-ACCEPT-007'] },
  {
    interface: 'B',
    fault: 'lax-schema',
    fails: ['B-SCHEMA-003', 'B-SCHEMA-004', 'B-SCHEMA-005', 'B-SCHEMA-006', 'B-SCHEMA-007', 'B-SCHEMA-008', 'B-SCHEMA-010', 'B-SCHEMA-011', 'B-SCHEMA-012', 'B-SCHEMA-013', 'B-SCHEMA-014'],
  },
  { interface: 'B', fault: '5xx-on-bad-json', fails: ['B-SCHEMA-015', 'B-SCHEMA-018'] },
  { interface: 'B', fault: 'any-provider', fails: ['B-AUTH-014'] },
  { interface: 'B', fault: 'duplicate-without-body', fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005'] },
  { interface: 'B', fault: 'no-retry-after', fails: ['B-RATE-001'], include: ['rate-limit'] },
  // Interface A: the provider's contact-jobs endpoint and its callbacks.
  { interface: 'A', fault: 'no-dedupe', fails: ['A-DEDUP-001', 'A-DEDUP-002'] },
  { interface: 'A', fault: 'no-signature-check', fails: [...range('A-AUTH', 1, 11), 'A-DEDUP-003'] },
  { interface: 'A', fault: 'bad-ack', fails: ['A-ACCEPT-002'] },
  { interface: 'A', fault: '5xx-on-bad-json', fails: ['A-SCHEMA-012'] },
  { interface: 'A', fault: 'callback-lead-changed', fails: ['A-CB-005'] },
  { interface: 'A', fault: 'callback-wrong-secret', fails: ['A-CB-002'] },
  { interface: 'A', fault: 'callback-wrong-provider', fails: ['A-CB-003'] },
  { interface: 'A', fault: 'callback-invalid-event', fails: ['A-CB-004'] },
];

const reproRoot = mkdtempSync(join(tmpdir(), 'cai-conformance-self-test-'));
afterAll(() => rmSync(reproRoot, { recursive: true, force: true }));
let runs = 0;

function run(iface: InterfaceId, faults: string[] = [], include: string[] = []): Promise<SuiteReport> {
  runs += 1;
  return runConformance({
    interface: iface,
    mock: true,
    faults,
    selection: { only: [], skip: [], include },
    callbackWaitMs: 10_000,
    reproDir: join(reproRoot, `run-${runs}`),
  });
}

const failing = (report: SuiteReport) => report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);
const explain = (report: SuiteReport) =>
  report.checks
    .filter((check) => check.verdict === 'failed' || check.verdict === 'warning')
    .map((check) => `${check.id}: expected ${check.expected}; actual ${check.actual}`)
    .join('\n');

describe('conformance suite against the reference receivers', () => {
  it.concurrent.each([
    ['B', []],
    ['B', ['rate-limit']],
    ['A', []],
  ] as [InterfaceId, string[]][])('interface %s (include %j): every check passes', async (iface, include) => {
    const report = await run(iface, [], include);
    expect(failing(report), explain(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.passed).toBeGreaterThan(include.length > 0 ? 40 : 30);
    expect(report.clock.offsetSeconds).not.toBeNull();
    const skipped = report.checks.filter((check) => check.verdict === 'skipped').map((check) => check.id);
    expect(skipped).toEqual(iface === 'B' ? (include.length > 0 ? ['B-AUTH-016'] : ['B-AUTH-016', 'B-RATE-001']) : []);
  });
});

describe('conformance suite against broken receivers (one fault each)', () => {
  it('covers at least 15 faults across both interfaces', () => {
    expect(FAULT_TABLE.length).toBeGreaterThanOrEqual(15);
    expect(new Set(FAULT_TABLE.map((entry) => entry.interface))).toEqual(new Set(['A', 'B']));
  });

  it.concurrent.each(FAULT_TABLE.map((entry) => [`${entry.interface} ${entry.fault}`, entry] as const))('%s fails exactly the checks that name it', async (_name, entry) => {
    const report = await run(entry.interface, [entry.fault], entry.include ?? []);
    expect(failing(report).sort(), explain(report)).toEqual([...entry.fails].sort());
    expect(report.checks.some((check) => check.verdict === 'failed' && check.level === 'must')).toBe(true);
    expect(report.ok).toBe(false);
    // Every must failure carries a reproduction with its body saved.
    for (const check of report.checks.filter((entry) => entry.verdict === 'failed' && !entry.id.startsWith('A-CB-'))) {
      expect(check.repro?.command, check.id).toMatch(/^(cai send-(event|job) |ts=)/);
    }
  });
});
