/**
 * The suite tests itself: against the reference receivers every check passes; against a reference receiver that
 * gives an answer the spec allows but does not prefer (a Retry-After of 0) every check passes too; and against
 * each deliberately broken receiver (one fault each) exactly the checks that name that fault fail. A fault caught
 * only by `should` checks leaves the run green, with warnings.
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
import { GENERATED_FAULTS } from './generate-faults.js';

interface FaultCase {
  interface: InterfaceId;
  fault: string;
  /** Exactly the checks that must fail (failed or warning) with this fault. */
  fails: string[];
  include?: string[];
  /** A shorter --callback-wait, where the fault makes a callback check wait it out. */
  callbackWaitMs?: number;
}

const range = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => `${prefix}-${String(from + index).padStart(3, '0')}`);

/** Faults both receivers have, caught by the same row of a shared family on each interface. */
const SHARED: [fault: string, B: string, A: string][] = [
  ['dedupe-case-insensitive', 'B-DEDUP-006', 'A-DEDUP-004'],
  ['dedupe-normalises-unicode', 'B-DEDUP-007', 'A-DEDUP-005'],
  ['dedupe-trims-event-id', 'B-DEDUP-008', 'A-DEDUP-006'],
  ['signs-parsed-timestamp', 'B-AUTH-017', 'A-AUTH-015'],
  ['date-time-without-fraction', 'B-FORMAT-001', 'A-FORMAT-001'],
  ['date-time-numeric-offset-only', 'B-FORMAT-002', 'A-FORMAT-002'],
  ['date-time-positive-offset-only', 'B-FORMAT-003', 'A-FORMAT-003'],
  ['e164-max-14-digits', 'B-FORMAT-004', 'A-FORMAT-004'],
  ['e164-min-10-digits', 'B-FORMAT-005', 'A-FORMAT-005'],
  ['requires-content-length', 'B-FRAME-001', 'A-FRAME-001'],
  ['strict-content-type', 'B-FRAME-002', 'A-FRAME-002'],
  // The derived probes (probe/mutations*.ts): one fault for each rule's mutations.
  ['signature-any-case', 'B-AUTH-018', 'A-AUTH-017'],
  ['signature-without-dot', 'B-AUTH-019', 'A-AUTH-018'],
  ['signature-compares-40-digits', 'B-AUTH-020', 'A-AUTH-019'],
  ['window-from-date-header', 'B-AUTH-021', 'A-AUTH-020'],
  ['dedupe-expires', 'B-DEDUP-009', 'A-DEDUP-008'],
  ['identity-case-folded', 'B-AUTH-014', 'A-AUTH-021'],
  ['e164-plus-optional', 'B-SCHEMA-011', 'A-SCHEMA-007'],
];

export const FAULT_TABLE: FaultCase[] = [
  // Interface B: the platform's events endpoint.
  { interface: 'B', fault: 'no-dedupe', fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005', 'B-DEDUP-009'] },
  { interface: 'B', fault: 'racy-dedupe', fails: ['B-DEDUP-002'] },
  { interface: 'B', fault: 'dedupe-before-auth', fails: ['B-DEDUP-003'] },
  { interface: 'B', fault: 'reserialising-verifier', fails: ['B-SIG-001', 'B-SIG-003', 'B-SIG-005'] },
  { interface: 'B', fault: 'no-window', fails: ['B-AUTH-010', 'B-AUTH-011', 'B-AUTH-021'] },
  { interface: 'B', fault: 'past-only-window', fails: ['B-AUTH-011'] },
  { interface: 'B', fault: 'no-size-limit', fails: ['B-SIZE-001', 'B-SIZE-004'] },
  { interface: 'B', fault: 'reject-unknown-fields', fails: ['B-ACCEPT-006'] },
  { interface: 'B', fault: 'reject-unknown-lead', fails: ['B-ACCEPT-007'] },
  {
    interface: 'B',
    fault: 'lax-schema',
    fails: [
      'B-SCHEMA-003',
      'B-SCHEMA-004',
      'B-SCHEMA-005',
      'B-SCHEMA-006',
      'B-SCHEMA-007',
      'B-SCHEMA-008',
      'B-SCHEMA-010',
      'B-SCHEMA-011',
      'B-SCHEMA-012',
      'B-SCHEMA-013',
      'B-SCHEMA-014',
    ],
  },
  { interface: 'B', fault: '5xx-on-bad-json', fails: ['B-SCHEMA-015', 'B-SCHEMA-018'] },
  { interface: 'B', fault: 'any-provider', fails: ['B-AUTH-014'] },
  {
    interface: 'B',
    fault: 'duplicate-without-body',
    fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005', 'B-DEDUP-009'],
  },
  { interface: 'B', fault: 'no-retry-after', fails: ['B-RATE-001'], include: ['rate-limit'] },
  { interface: 'B', fault: 'accepted-200', fails: ['B-ACCEPT-009'] },
  { interface: 'B', fault: 'event-id-utf16-length', fails: ['B-ACCEPT-010'] },
  { interface: 'B', fault: 'size-in-characters', fails: ['B-SIZE-004'] },
  { interface: 'B', fault: 'window-301-seconds', fails: ['B-AUTH-010', 'B-AUTH-011'] },
  {
    interface: 'B',
    fault: 'enum-case-folded',
    fails: ['B-SCHEMA-004', 'B-SCHEMA-005', 'B-SCHEMA-006', 'B-SCHEMA-007'],
  },
  { interface: 'B', fault: 'records-before-validation', fails: ['B-DEDUP-010'] },
  { interface: 'B', fault: 'size-declared-only', fails: ['B-SIZE-001'] },
  { interface: 'B', fault: 'integer-strings', fails: ['B-SCHEMA-008'] },
  ...SHARED.map(([fault, id]): FaultCase => ({ interface: 'B', fault, fails: [id] })),
  // Interface A: the provider's contact-jobs endpoint and its callbacks.
  { interface: 'A', fault: 'no-dedupe', fails: ['A-DEDUP-001', 'A-DEDUP-002', 'A-DEDUP-007', 'A-DEDUP-008'] },
  {
    interface: 'A',
    fault: 'no-signature-check',
    fails: [...range('A-AUTH', 1, 11), ...range('A-AUTH', 15, 20), 'A-DEDUP-003'],
  },
  // The mock's first acknowledgment carries a national number; its repeats the stored, E.164 one: another acknowledgment (§2.2).
  { interface: 'A', fault: 'bad-ack', fails: ['A-ACCEPT-002', 'A-DEDUP-001', 'A-DEDUP-008'] },
  { interface: 'A', fault: '5xx-on-bad-json', fails: ['A-SCHEMA-012'] },
  { interface: 'A', fault: 'callback-lead-changed', fails: ['A-CB-005', 'A-CB-014'] },
  { interface: 'A', fault: 'callback-wrong-secret', fails: ['BS-SIG-001'] },
  { interface: 'A', fault: 'callback-wrong-provider', fails: ['BS-HDR-001'] },
  { interface: 'A', fault: 'callback-invalid-event', fails: ['BS-DOC-001'] },
  { interface: 'A', fault: 'callback-lead-id-normalised', fails: ['A-CB-014'] },
  { interface: 'A', fault: 'callback-wrong-job-id', fails: ['A-CB-012'] },
  { interface: 'A', fault: 'callback-wrong-number', fails: ['A-CB-013'] },
  { interface: 'A', fault: 'callback-no-ending', fails: ['A-CB-006'], callbackWaitMs: 6000 },
  { interface: 'A', fault: 'callback-no-retry-on-5xx', fails: ['BS-RETRY-001', 'BS-RETRY-009'], callbackWaitMs: 6000 },
  { interface: 'A', fault: 'callback-no-retry-on-429', fails: ['BS-RETRY-007'], callbackWaitMs: 6000 },
  { interface: 'A', fault: 'callback-ignores-retry-after', fails: ['BS-RETRY-008', 'BS-RETRY-010'] },
  { interface: 'A', fault: 'callback-retries-400', fails: ['BS-REJECT-001'] },
  { interface: 'A', fault: 'callback-retry-stale-signature', fails: ['BS-SIG-001', 'BS-RETRY-004'] },
  { interface: 'A', fault: 'repeat-restarts-conversation', fails: ['A-DEDUP-007'] },
  { interface: 'A', fault: 'verifies-with-both-secrets', fails: ['A-AUTH-016'] },
  { interface: 'A', fault: 'language-two-part-only', fails: ['A-FORMAT-006'] },
  { interface: 'A', fault: 'window-301-seconds', fails: ['A-AUTH-010', 'A-AUTH-011'] },
  { interface: 'A', fault: 'enum-case-folded', fails: ['A-SCHEMA-008', 'A-SCHEMA-009'] },
  ...SHARED.map(([fault, , id]): FaultCase => ({ interface: 'A', fault, fails: [id] })),
];

/**
 * Faults whose breach depends on time, not on order alone, with the checks that may show them too when a busy machine
 * draws a check's requests out: `dedupe-expires` forgets an event_id a second after it stored it, and any check that
 * repeats one may then send the repeat later than that (seen: the eight deliveries at once of X-DEDUP-002; at a load
 * of 24, A-DEDUP-001's repeat, and A-DEDUP-007's, which then started a second conversation). Each such failure is the
 * fault's own: with this fault such a check may fail as well; with any other it may not (the rest of the table holds
 * it to that), and the check named for it must fail.
 */
const WHEN_SLOW: Readonly<Record<string, RegExp>> = { 'dedupe-expires': /^[AB]-DEDUP-\d{3}$/ };

/**
 * Faults seen only on the window's edge (a timestamp 301 s off): the probe must be read in the second it was stamped.
 * Where a busy machine answered it a second late twice, cai says so and leaves that case not judged (the check passes
 * on its case 60 s clear): then, and only then, the check may miss the fault.
 */
const EDGE_ONLY = new Set(['window-301-seconds']);
const edgeUntested = (report: SuiteReport, id: string) =>
  report.checks.some(
    (check) =>
      check.id === id &&
      check.verdict === 'passed' &&
      check.notes.some((note) => note.includes('one second outside') && note.includes('a later second')),
  );

const reproRoot = mkdtempSync(join(tmpdir(), 'cai-conformance-self-test-'));
afterAll(() => rmSync(reproRoot, { recursive: true, force: true }));
let runs = 0;

function run(
  iface: InterfaceId,
  faults: string[] = [],
  include: string[] = [],
  callbackWaitMs = 10_000,
): Promise<SuiteReport> {
  runs += 1;
  const options: ConformanceOptions = {
    interface: iface,
    mock: true,
    faults,
    selection: { only: [], skip: [], include },
    callbackWaitMs,
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

  it.concurrent.each(FAULT_TABLE.map((entry) => [`${entry.interface} ${entry.fault}`, entry] as const))(
    '%s fails exactly the checks that name it',
    async (_name, entry) => {
      const report = await run(entry.interface, [entry.fault], entry.include ?? [], entry.callbackWaitMs);
      const slow = { has: (id: string) => !entry.fails.includes(id) && WHEN_SLOW[entry.fault]?.test(id) === true };
      const fails = entry.fails.filter((id) => !(EDGE_ONLY.has(entry.fault) && edgeUntested(report, id)));
      expect(
        failing(report)
          .filter((id) => !slow.has(id))
          .sort(),
        explain(report),
      ).toEqual([...fails].sort());
      // A must check fails the run; a fault that only `should` checks catch is a warning and the run passes.
      const mustFail = fails.some((id) => levelOf(id) === 'must');
      expect(report.checks.filter((check) => check.verdict === 'failed').length > 0).toBe(mustFail);
      expect(report.ok).toBe(!mustFail);
      // Every failure carries a reproduction: the built-in receiver is gone with the run, so the check runs again
      // against a fresh one with the same fault, and its exit status is the verdict.
      for (const check of report.checks.filter((entry) => entry.verdict === 'failed')) {
        expect(check.repro?.command, check.id).toBe(
          check.repro?.command.startsWith('cai verify') || check.repro?.command.startsWith('cai validate')
            ? check.repro.command
            : `cai conformance run --interface ${entry.interface} --mock --break ${entry.fault} --only ${check.id}`,
        );
      }
    },
  );
});
