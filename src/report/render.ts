import { OUTCOMES } from '../spec/constants.js';
import type { BranchReport, Distribution, OperationReport } from './aggregate.js';

/** Table and CSV views of the report; the JSON view is the OperationReport itself. */

export interface TableView {
  title: string;
  head: string[];
  rows: string[][];
}

export function tableViews(report: OperationReport): TableView[] {
  const all = [...report.branches, report.total];
  const outcomeNames = outcomeColumns(report);
  return [
    {
      title: `Jobs and first contact (target: within ${report.targets.first_contact_seconds / 60} minutes, §8)`,
      head: ['branch', 'jobs', 'contacted', 'median', 'p90', 'within target'],
      rows: all.map((b) => [
        b.branch_code,
        String(b.jobs),
        String(b.first_contact.contacted),
        seconds(b.first_contact.median_seconds),
        seconds(b.first_contact.p90_seconds),
        share(b.first_contact, b.jobs),
      ]),
    },
    {
      title: 'Conversations and appointments',
      head: ['branch', 'started', 'held', 'msgs out', 'msgs in', 'booked', 'rescheduled', 'cancelled'],
      rows: all.map((b) => [b.branch_code, ...CONVERSATION_COLUMNS.map(([, value]) => String(value(b)))]),
    },
    {
      title: 'Outcomes (job.closed, by reason)',
      head: ['branch', 'closed', ...outcomeNames],
      rows: all.map((b) => [
        b.branch_code,
        String(b.closed),
        ...outcomeNames.map((name) => String(b.outcomes[name] ?? 0)),
      ]),
    },
    {
      title: `Message delivery delay, received_at − occurred_at (target: within ${report.targets.message_delivery_seconds} s, §8)`,
      head: ['branch', 'messages', 'median', 'p90', 'max', 'within target'],
      rows: all.map((b) => [
        b.branch_code,
        String(b.message_delivery.count),
        seconds(b.message_delivery.median_seconds),
        seconds(b.message_delivery.p90_seconds),
        seconds(b.message_delivery.max_seconds),
        share(b.message_delivery, b.message_delivery.count),
      ]),
    },
  ];
}

/** A column of the CSV: its name, and its value for a branch. */
type CsvColumn = readonly [name: string, value: (b: BranchReport) => string | number | null];

/** Conversations started and held, messages out and in, appointments booked, rescheduled and cancelled: in the CSV and a table. */
const CONVERSATION_COLUMNS: readonly CsvColumn[] = [
  ['conversations_started', (b) => b.conversations.started],
  ['conversations_held', (b) => b.conversations.held],
  ['messages_outbound', (b) => b.conversations.messages_outbound],
  ['messages_inbound', (b) => b.conversations.messages_inbound],
  ['appointments_booked', (b) => b.appointments.booked],
  ['appointments_rescheduled', (b) => b.appointments.rescheduled],
  ['appointments_cancelled', (b) => b.appointments.cancelled],
];

/** The CSV's columns before the outcomes (one column each, outcomeColumns) and after them. */
const CSV_LEADING: readonly CsvColumn[] = [
  ['branch_code', (b) => b.branch_code],
  ['jobs', (b) => b.jobs],
  ['contacted', (b) => b.first_contact.contacted],
  ['not_contacted', (b) => b.first_contact.not_contacted],
  ['first_contact_median_s', (b) => b.first_contact.median_seconds],
  ['first_contact_p90_s', (b) => b.first_contact.p90_seconds],
  ['first_contact_within_target', (b) => b.first_contact.within_target],
  ['first_contact_within_target_share', (b) => b.first_contact.within_target_share],
  ...CONVERSATION_COLUMNS,
  ['closed', (b) => b.closed],
];
const CSV_TRAILING: readonly CsvColumn[] = [
  ['messages_delivered', (b) => b.message_delivery.count],
  ['delivery_median_s', (b) => b.message_delivery.median_seconds],
  ['delivery_p90_s', (b) => b.message_delivery.p90_seconds],
  ['delivery_max_s', (b) => b.message_delivery.max_seconds],
  ['delivery_within_target', (b) => b.message_delivery.within_target],
  ['delivery_within_target_share', (b) => b.message_delivery.within_target_share],
];

/** The window of the report, by received_at. */
export function windowText(filter: OperationReport['filter']): string {
  return `${filter.since ?? 'start of log'} – ${filter.until ?? 'end of log'}`;
}

/** `3 duplicates, 1 malformed`: the records the report left out, by why (on the page, and in `cai report`'s text). */
export function skippedRecords(report: OperationReport & { malformed?: readonly unknown[] }): string | undefined {
  const { filter, records } = report;
  const skipped: [number, string][] = [
    [records.duplicates, 'duplicates'],
    [records.not_accepted, 'not accepted'],
    [records.outside_window, 'outside the window'],
    [records.other_provider, 'of other providers'],
    [records.other_space, `outside the ${filter.space} space`],
    [report.malformed?.length ?? 0, 'malformed'],
  ];
  const left = skipped.filter(([count]) => count > 0);
  return left.length > 0 ? left.map(([count, what]) => `${count} ${what}`).join(', ') : undefined;
}

export function toCsv(report: OperationReport): string {
  const columns: CsvColumn[] = [
    ...CSV_LEADING,
    ...outcomeColumns(report).map((name): CsvColumn => [`outcome_${name}`, (b) => b.outcomes[name] ?? 0]),
    ...CSV_TRAILING,
  ];
  const rows = [...report.branches, report.total].map((b) => columns.map(([, value]) => value(b)));
  return `${[columns.map(([name]) => name), ...rows].map((cells) => cells.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/** The five outcomes of §2.12 always, then any other reason found in the log. */
export function outcomeColumns(report: OperationReport): string[] {
  const extra = Object.keys(report.total.outcomes).filter((name) => !(OUTCOMES as readonly string[]).includes(name));
  return [...OUTCOMES, ...extra.sort()];
}

/** RFC 4180: quote when needed; empty for null. A leading =+-@ is neutralised so a spreadsheet never runs it. */
function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function seconds(value: number | null): string {
  if (value === null) return '–';
  if (Math.abs(value) < 60) return `${Number(value.toFixed(1))} s`;
  const minutes = Math.floor(Math.abs(value) / 60);
  const rest = Math.round(Math.abs(value) - minutes * 60);
  return `${value < 0 ? '-' : ''}${minutes} min ${rest} s`;
}

function share(distribution: Distribution, base: number): string {
  if (distribution.within_target_share === null) return '–';
  return `${(distribution.within_target_share * 100).toFixed(1)}% (${distribution.within_target}/${base})`;
}
