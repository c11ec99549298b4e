import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ReportBuilder, percentile, type ReportFilter } from '../../src/report/aggregate.js';
import { parseLogLine } from '../../src/report/log.js';
import { readLog, type ReadSummary } from '../../src/report/read.js';
import { toCsv } from '../../src/report/render.js';
import { ROOT } from '../helpers/cli.js';

const LOGS = [`${ROOT}fixtures/logs/provider.ndjson`, `${ROOT}fixtures/logs/platform.ndjson`];

async function reportOf(filter: Partial<ReportFilter> = {}, files = LOGS) {
  const builder = new ReportBuilder({ space: 'live', ...filter });
  const summary: ReadSummary = { lines: 0, malformed: [] };
  for (const file of files) await readLog(createReadStream(file), file, (record) => builder.add(record), summary);
  return { report: builder.build(), summary };
}

describe('the operation report of the fixture logs (numbers worked out by hand)', () => {
  it('counts jobs, first contact, conversations, appointments, outcomes and delivery per branch and in total', async () => {
    const { report, summary } = await reportOf();
    expect(summary).toEqual({ lines: 21, malformed: [] });
    expect(report.records).toEqual({
      used: 18,
      duplicates: 1,
      not_accepted: 1,
      outside_window: 0,
      other_provider: 0,
      other_space: 1,
    });
    expect(report.branches.map((b) => b.branch_code)).toEqual(['BR-001', 'BR-002', '(unknown)']);
    const [br1, br2] = report.branches;
    // BR-001: first contact after 60 s, 400 s and 120 s.
    expect(br1?.jobs).toBe(3);
    expect(br1?.first_contact).toMatchObject({
      contacted: 3,
      not_contacted: 0,
      median_seconds: 120,
      p90_seconds: 400,
      within_target: 2,
      within_target_share: 0.6667,
    });
    expect(br1?.conversations).toEqual({ started: 3, held: 2, messages_outbound: 3, messages_inbound: 2 });
    expect(br1?.appointments).toEqual({ booked: 2, rescheduled: 1, cancelled: 0 });
    expect(br1?.outcomes).toEqual({ no_answer: 1 });
    expect(br1?.message_delivery).toMatchObject({
      count: 5,
      median_seconds: 2,
      p90_seconds: 90,
      max_seconds: 90,
      within_target: 4,
      within_target_share: 0.8,
      negative: 0,
    });
    // BR-002: one of three jobs contacted (30 s); the duplicate job.closed counts once.
    expect(br2?.first_contact).toMatchObject({
      contacted: 1,
      not_contacted: 2,
      median_seconds: 30,
      within_target_share: 0.3333,
    });
    expect(br2?.outcomes).toEqual({ not_interested: 1 });
    expect(report.total.jobs).toBe(6);
    expect(report.total.first_contact).toMatchObject({
      median_seconds: 60,
      p90_seconds: 400,
      within_target: 3,
      within_target_share: 0.5,
    });
    expect(report.total.message_delivery).toMatchObject({
      count: 7,
      median_seconds: 2,
      p90_seconds: 90,
      within_target_share: 0.8571,
    });
  });

  it('filters by provider, space and window', async () => {
    const acme = await reportOf({ provider: 'acme' });
    expect(acme.report.records.other_provider).toBe(1);
    expect(acme.report.total.jobs).toBe(5);
    const test = await reportOf({ space: 'test' });
    expect(test.report.total.jobs).toBe(1);
    const all = await reportOf({ space: 'all' });
    expect(all.report.total.jobs).toBe(7);
    // Jobs received from 13:06 on: L2 (400 s), L3 (120 s), L5 and L7 (never contacted).
    const late = await reportOf({ since: Date.parse('2026-11-22T13:06:00Z') });
    expect(late.report.total.jobs).toBe(4);
    expect(late.report.total.first_contact).toMatchObject({
      contacted: 2,
      median_seconds: 120,
      within_target: 1,
      within_target_share: 0.25,
    });
    // A first contact after --until still belongs to its job; the message itself is outside the window.
    const early = await reportOf({ until: Date.parse('2026-11-22T13:16:00Z') });
    expect(early.report.total.first_contact).toMatchObject({ contacted: 3, p90_seconds: 400 });
    expect(early.report.total.conversations.messages_outbound).toBe(2);
  });

  it('reads the log as a stream, and reports malformed lines by number without stopping', async () => {
    const { report, summary } = await reportOf({}, [`${ROOT}fixtures/logs/malformed.ndjson`]);
    expect(summary.malformed.map(({ line, reason }) => ({ line, reason }))).toEqual([
      { line: 2, reason: 'a record cut short (a write that failed: a full disk, a crash): not valid JSON' },
      { line: 4, reason: 'missing or invalid "received_at" (ISO 8601 time)' },
      { line: 5, reason: 'unsupported record version 2 (expected "v": 1)' },
      { line: 6, reason: 'not a JSON object' },
    ]);
    expect(report.total.jobs).toBe(1);
    expect(report.total.first_contact.median_seconds).toBe(60);
  });

  it('CSV has one row per branch plus the total, outcome columns for every §2.12 reason', async () => {
    const { report } = await reportOf();
    const rows = toCsv(report).trimEnd().split('\r\n');
    expect(rows).toHaveLength(5);
    expect(rows[0]).toContain(
      'outcome_no_answer,outcome_not_interested,outcome_wrong_number,outcome_callback_later,outcome_opted_out',
    );
    expect(rows[4]?.startsWith('(total),6,4,2,60,400,3,0.5,')).toBe(true);
  });
});

describe('building blocks', () => {
  it('nearest-rank percentiles', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([7], 0.9)).toBe(7);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
  });

  it('percentile is always a measured value between min and max', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (values, p) => {
        const sorted = [...values].sort((a, b) => a - b);
        const result = percentile(sorted, p) as number;
        return (
          values.includes(result) && result >= (sorted[0] as number) && result <= (sorted[sorted.length - 1] as number)
        );
      }),
    );
  });

  it('parseLogLine never throws', () => {
    fc.assert(fc.property(fc.string(), (line) => typeof parseLogLine(line).ok === 'boolean'));
    fc.assert(fc.property(fc.jsonValue(), (value) => typeof parseLogLine(JSON.stringify(value)).ok === 'boolean'));
  });

  it('a repeated accepted event_id counts once, and order of the logs does not matter', async () => {
    const line = (o: object) => JSON.stringify({ v: 1, space: 'live', verdict: 'accepted', ...o });
    const job = line({
      interface: 'A',
      kind: 'job',
      received_at: '2026-01-01T10:00:00Z',
      event_id: 'j1',
      lead_id: 'L',
      branch_code: 'B',
    });
    const message = line({
      interface: 'B',
      kind: 'event',
      event: 'conversation.message',
      received_at: '2026-01-01T10:02:01Z',
      event_id: 'm1',
      lead_id: 'L',
      document: { direction: 'outbound', occurred_at: '2026-01-01T10:02:00Z' },
    });
    const builder = new ReportBuilder({ space: 'live' });
    const summary: ReadSummary = { lines: 0, malformed: [] };
    await readLog(Readable.from([`${message}\n${message}\n\n${job}\n`]), 'x', (record) => builder.add(record), summary);
    const report = builder.build();
    expect(summary.lines).toBe(3);
    expect(report.records.duplicates).toBe(1);
    expect(report.total.first_contact).toMatchObject({ contacted: 1, median_seconds: 120 });
    expect(report.branches[0]?.branch_code).toBe('B');
  });
});
