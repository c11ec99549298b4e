/**
 * The faults of both reference receivers (`--break`, src/mock/faults.ts) and exactly the checks each must fail: the
 * table that repro-verified.test.ts holds every fault's run to (through the built binary, the broken receiver a
 * target of the user's), and docs/conformance.md prints. A fault the generated documents catch is in
 * generate-faults.ts instead.
 */
import type { InterfaceId } from '../../src/spec/constants.js';

/** What the table reads of a run's report (the library's SuiteReport, or the CLI's JSON of it). */
interface RunChecks {
  checks: readonly { id: string; verdict: string; notes: readonly string[] }[];
}

export interface FaultCase {
  interface: InterfaceId;
  fault: string;
  /** Exactly the checks that must fail (failed or warning) with this fault. */
  fails: string[];
  include?: string[];
}

export const range = (prefix: string, from: number, to: number) =>
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
  {
    interface: 'B',
    fault: 'no-dedupe',
    fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005', 'B-DEDUP-009', 'B-DEDUP-011'],
  },
  { interface: 'B', fault: 'racy-dedupe', fails: ['B-DEDUP-002'] },
  { interface: 'B', fault: 'dedupe-before-auth', fails: ['B-DEDUP-003'] },
  { interface: 'B', fault: 'reserialising-verifier', fails: ['B-SIG-001', 'B-SIG-003', 'B-SIG-005'] },
  { interface: 'B', fault: 'no-window', fails: ['B-AUTH-010', 'B-AUTH-011', 'B-AUTH-021'] },
  { interface: 'B', fault: 'past-only-window', fails: ['B-AUTH-011'] },
  { interface: 'B', fault: 'no-size-limit', fails: ['B-SIZE-001', 'B-SIZE-004'] },
  { interface: 'B', fault: 'reject-unknown-fields', fails: ['B-ACCEPT-006'] },
  { interface: 'B', fault: 'reject-unknown-lead', fails: ['B-ACCEPT-007', 'B-ACCEPT-012'] },
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
      'B-SCHEMA-009',
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
    fails: ['B-DEDUP-001', 'B-DEDUP-002', 'B-DEDUP-005', 'B-DEDUP-009', 'B-DEDUP-011'],
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
  { interface: 'A', fault: 'callback-job-timestamp', fails: ['A-CB-018'] },
  { interface: 'A', fault: 'callback-wrong-provider', fails: ['BS-HDR-001'] },
  { interface: 'A', fault: 'callback-invalid-event', fails: ['BS-DOC-001'] },
  { interface: 'A', fault: 'callback-lead-id-normalised', fails: ['A-CB-014'] },
  { interface: 'A', fault: 'callback-wrong-job-id', fails: ['A-CB-012'] },
  { interface: 'A', fault: 'callback-wrong-number', fails: ['A-CB-013'] },
  { interface: 'A', fault: 'callback-no-ending', fails: ['A-CB-006'] },
  { interface: 'A', fault: 'callback-no-retry-on-5xx', fails: ['BS-RETRY-001', 'BS-RETRY-009'] },
  { interface: 'A', fault: 'callback-no-retry-on-429', fails: ['BS-RETRY-007'] },
  { interface: 'A', fault: 'callback-ignores-retry-after', fails: ['BS-RETRY-008', 'BS-RETRY-010'] },
  { interface: 'A', fault: 'callback-retries-400', fails: ['BS-REJECT-001'] },
  { interface: 'A', fault: 'callback-retry-stale-signature', fails: ['BS-SIG-001', 'BS-RETRY-004', 'BS-SIG-004'] },
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
const edgeUntested = (report: RunChecks, id: string) =>
  report.checks.some(
    (check) =>
      check.id === id &&
      check.verdict === 'passed' &&
      check.notes.some((note) => note.includes('one second outside') && note.includes('a later second')),
  );

/**
 * Whether `id`, a check `entry`'s row does not name, fails against its fault only when the machine is slow (above): a
 * replay of its requests, played faster than the run played them, may then pass against the broken receiver.
 */
export const showsOnlyWhenSlow = (entry: FaultCase, id: string): boolean =>
  !entry.fails.includes(id) && WHEN_SLOW[entry.fault]?.test(id) === true;

const failedOrWarned = (report: RunChecks) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning').map((check) => check.id);

/**
 * What a run against `entry`'s fault failed (or warned) of the checks named for faults, and what the table says it
 * must: the stateful phase's checks (*-STATE-*) aside, which a run with the phase may fail as well (its witnesses are
 * judged on their own), and the time-dependent tolerances above; `lateTimers` names the checks a run's own setup may
 * fail on a loaded machine where the fault does not name them.
 */
export function namedFailures(
  entry: FaultCase,
  report: RunChecks,
  lateTimers: (id: string) => boolean = () => false,
): { seen: string[]; named: string[] } {
  const slow = (id: string) => !entry.fails.includes(id) && (showsOnlyWhenSlow(entry, id) || lateTimers(id));
  const seen = failedOrWarned(report).filter((id) => !id.includes('-STATE-') && !slow(id));
  const named = entry.fails.filter((id) => !(EDGE_ONLY.has(entry.fault) && edgeUntested(report, id)));
  return { seen: seen.sort(), named: [...named].sort() };
}
