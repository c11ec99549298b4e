import { FIRST_CONTACT_TARGET_SECONDS, MESSAGE_DELIVERY_TARGET_SECONDS } from '../spec/constants.js';
import type { LogRecord } from './log.js';
import { interfaceSpec } from '../spec/interfaces.js';

/**
 * The operation report of §1 ("jobs received, time to first contact, conversations held, appointments generated
 * and outcomes"), per branch and in total, measured against the service-level targets of §8.
 */

export const UNKNOWN_BRANCH = '(unknown)';

export type Space = 'live' | 'test' | 'all';

export interface ReportFilter {
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  provider?: string;
  space: Space;
}

export interface Distribution {
  count: number;
  median_seconds: number | null;
  p90_seconds: number | null;
  max_seconds: number | null;
  within_target: number;
  /** Share of the base (see each metric) within the target, 0..1; null when the base is empty. */
  within_target_share: number | null;
}

/**
 * One bar of the first-contact histogram: the contacted jobs whose delay was above the previous bin's bound and
 * at most `up_to_seconds` (the first bin starts at 0; the last has no bound, `null`). The bounds include the §8
 * target, so the bins up to it add up to `within_target`.
 */
export interface HistogramBin {
  up_to_seconds: number | null;
  count: number;
}

/** Activity of one UTC day (by `received_at`): jobs received, and events by kind. */
export interface DayCounts {
  day: string;
  jobs: number;
  messages: number;
  appointments: number;
  closed: number;
}

/** Upper bounds of the first-contact histogram: minute by minute up to the §8 target, then coarser; then the rest. */
export const FIRST_CONTACT_BINS_SECONDS: readonly number[] = [
  ...Array.from({ length: Math.ceil(FIRST_CONTACT_TARGET_SECONDS / 60) }, (_, index) =>
    Math.min(FIRST_CONTACT_TARGET_SECONDS, (index + 1) * 60),
  ),
  ...[600, 900, 1800, 3600, 4 * 3600, 24 * 3600].filter((bound) => bound > FIRST_CONTACT_TARGET_SECONDS),
];

export interface BranchReport {
  branch_code: string;
  jobs: number;
  first_contact: Distribution & { contacted: number; not_contacted: number; histogram: HistogramBin[] };
  conversations: { started: number; held: number; messages_outbound: number; messages_inbound: number };
  appointments: { booked: number; rescheduled: number; cancelled: number };
  closed: number;
  outcomes: Record<string, number>;
  message_delivery: Distribution & { negative: number };
  /** Days with activity, in order (the charts of `cai report --html`). */
  per_day: DayCounts[];
}

export interface RecordCounts {
  used: number;
  duplicates: number;
  not_accepted: number;
  outside_window: number;
  other_provider: number;
  other_space: number;
}

export interface OperationReport {
  filter: { since: string | null; until: string | null; provider: string | null; space: Space };
  targets: { first_contact_seconds: number; message_delivery_seconds: number };
  records: RecordCounts;
  total: BranchReport;
  branches: BranchReport[];
}

interface LeadState {
  jobAt?: number;
  jobInWindow: boolean;
  branch?: string;
  eventBranch?: string;
  /** Earliest outbound conversation.message, in or out of the window: it is the first contact of the job. */
  firstOutbound?: number;
  /** In-window messages and appointment events, and job.closed events: summed per branch. */
  counts: Record<LeadCount, number>;
  /** Created with the first job.closed: most leads have none. */
  outcomes?: Map<string, number>;
  deliveryMs: number[];
  /** In-window events by UTC day number (epoch ms / 86 400 000); the job's day is added at the end. */
  days?: Map<number, Omit<DayCounts, 'day'>>;
}

const DAY_MS = 86_400_000;

type LeadCount = 'messagesOut' | 'messagesIn' | 'booked' | 'rescheduled' | 'cancelled' | 'closed';
type DayCount = keyof Omit<DayCounts, 'day'>;
const DAY_COUNTS: readonly DayCount[] = ['jobs', 'messages', 'appointments', 'closed'];

/**
 * What an in-window event counts: on its lead (a message, by its direction), and in its day's activity (any
 * `appointment.*` there, one the log's writer knows and this table does not included).
 */
const EVENT_COUNTS = new Map<string, { lead?: LeadCount; day: DayCount }>([
  ['conversation.message', { day: 'messages' }],
  ['appointment.booked', { lead: 'booked', day: 'appointments' }],
  ['appointment.rescheduled', { lead: 'rescheduled', day: 'appointments' }],
  ['appointment.cancelled', { lead: 'cancelled', day: 'appointments' }],
  ['job.closed', { lead: 'closed', day: 'closed' }],
]);

/** Feed records in any order (jobs and events may come from two logs); `build()` attributes them at the end. */
export class ReportBuilder {
  private readonly leads = new Map<string, LeadState>();
  /** event_ids seen, by interface (a job's and an event's may be equal: §6.1 dedupes within each). */
  private readonly seen = { A: new Set<string>(), B: new Set<string>() };
  private readonly counts: RecordCounts = {
    used: 0,
    duplicates: 0,
    not_accepted: 0,
    outside_window: 0,
    other_provider: 0,
    other_space: 0,
  };

  constructor(private readonly filter: ReportFilter) {}

  add(record: LogRecord): void {
    const { filter, counts } = this;
    if (filter.space !== 'all' && record.space !== filter.space) return void counts.other_space++;
    if (filter.provider !== undefined && record.providerCode !== filter.provider) return void counts.other_provider++;
    if (record.verdict === 'duplicate') return void counts.duplicates++;
    if (record.verdict !== 'accepted') return void counts.not_accepted++;
    // A repeated event_id (two logs overlapping, or a receiver that failed to dedupe) counts once (§6.1).
    if (record.eventId !== undefined) {
      const seen = this.seen[record.interface];
      if (seen.has(record.eventId)) return void counts.duplicates++;
      seen.add(record.eventId);
    }
    const inWindow =
      (filter.since === undefined || record.receivedAt >= filter.since) &&
      (filter.until === undefined || record.receivedAt < filter.until);
    const lead = this.lead(record.leadId ?? '');
    if (interfaceSpec(record.interface).document === 'job') {
      // The first job of a lead starts its clock; a later one for the same lead is the contact coming back.
      if (lead.jobAt === undefined || record.receivedAt < lead.jobAt) {
        lead.jobAt = record.receivedAt;
        lead.jobInWindow = inWindow;
        lead.branch = record.branchCode;
      }
      counts[inWindow ? 'used' : 'outside_window']++;
      return;
    }
    if (record.event === 'conversation.message' && record.direction === 'outbound') {
      const at = record.occurredAt ?? record.receivedAt;
      if (lead.firstOutbound === undefined || at < lead.firstOutbound) lead.firstOutbound = at;
    }
    if (!inWindow) return void counts.outside_window++;
    counts.used++;
    if (record.branchCode !== undefined) lead.eventBranch ??= record.branchCode;
    const event = record.event ?? '';
    const counted = EVENT_COUNTS.get(event) ?? (event.startsWith('appointment.') ? { day: 'appointments' } : undefined);
    if (counted === undefined) return;
    countDay(lead, record.receivedAt, counted.day);
    if (counted.lead !== undefined) lead.counts[counted.lead]++;
    if (record.event === 'conversation.message') {
      if (record.direction === 'outbound') lead.counts.messagesOut++;
      else if (record.direction === 'inbound') lead.counts.messagesIn++;
      if (record.occurredAt !== undefined) lead.deliveryMs.push(record.receivedAt - record.occurredAt);
    } else if (record.event === 'job.closed') {
      lead.outcomes ??= new Map();
      lead.outcomes.set(record.outcome ?? '(none)', (lead.outcomes.get(record.outcome ?? '(none)') ?? 0) + 1);
    }
  }

  build(): OperationReport {
    const byBranch = new Map<string, LeadState[]>();
    for (const lead of this.leads.values()) {
      const branch = lead.branch ?? lead.eventBranch ?? UNKNOWN_BRANCH;
      const list = byBranch.get(branch) ?? [];
      list.push(lead);
      byBranch.set(branch, list);
    }
    const codes = [...byBranch.keys()].sort((a, b) =>
      a === UNKNOWN_BRANCH ? 1 : b === UNKNOWN_BRANCH ? -1 : a.localeCompare(b),
    );
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    return {
      filter: {
        since: iso(this.filter.since),
        until: iso(this.filter.until),
        provider: this.filter.provider ?? null,
        space: this.filter.space,
      },
      targets: {
        first_contact_seconds: FIRST_CONTACT_TARGET_SECONDS,
        message_delivery_seconds: MESSAGE_DELIVERY_TARGET_SECONDS,
      },
      records: { ...this.counts },
      total: summarise('(total)', [...this.leads.values()]),
      branches: codes.map((code) => summarise(code, byBranch.get(code) ?? [])).filter(hasActivity),
    };
  }

  private lead(id: string): LeadState {
    let lead = this.leads.get(id);
    if (!lead) {
      lead = {
        jobInWindow: false,
        counts: { messagesOut: 0, messagesIn: 0, booked: 0, rescheduled: 0, cancelled: 0, closed: 0 },
        outcomes: undefined,
        deliveryMs: [],
      };
      this.leads.set(id, lead);
    }
    return lead;
  }
}

function countDay(lead: LeadState, at: number, kind: DayCount): void {
  lead.days ??= new Map();
  const day = Math.floor(at / DAY_MS);
  let counts = lead.days.get(day);
  if (!counts) {
    counts = { jobs: 0, messages: 0, appointments: 0, closed: 0 };
    lead.days.set(day, counts);
  }
  counts[kind]++;
}

/** Counts per bin of {@link FIRST_CONTACT_BINS_SECONDS}, then the jobs beyond the last bound. */
export function histogram(
  values: readonly number[],
  bounds: readonly number[] = FIRST_CONTACT_BINS_SECONDS,
): HistogramBin[] {
  const bins: HistogramBin[] = [
    ...bounds.map((bound) => ({ up_to_seconds: bound, count: 0 })),
    { up_to_seconds: null, count: 0 },
  ];
  for (const value of values) {
    const index = bounds.findIndex((bound) => value <= bound);
    (bins[index === -1 ? bounds.length : index] as HistogramBin).count++;
  }
  return bins;
}

function perDay(leads: readonly LeadState[]): DayCounts[] {
  const days = new Map<number, Omit<DayCounts, 'day'>>();
  const add = (day: number, counts: Partial<Omit<DayCounts, 'day'>>) => {
    const total = days.get(day) ?? { jobs: 0, messages: 0, appointments: 0, closed: 0 };
    for (const key of DAY_COUNTS) total[key] += counts[key] ?? 0;
    days.set(day, total);
  };
  for (const lead of leads) {
    if (lead.jobInWindow && lead.jobAt !== undefined) add(Math.floor(lead.jobAt / DAY_MS), { jobs: 1 });
    for (const [day, counts] of lead.days ?? []) add(day, counts);
  }
  return [...days.entries()]
    .sort(([a], [b]) => a - b)
    .map(([day, counts]) => ({ day: new Date(day * DAY_MS).toISOString().slice(0, 10), ...counts }));
}

function summarise(code: string, leads: readonly LeadState[]): BranchReport {
  // One pass over the leads (a report of 240 000 records has tens of thousands): the same figures as a filter,
  // map and sum for each.
  let jobs = 0;
  const contactSeconds: number[] = [];
  const deliverySeconds: number[] = [];
  const outcomes: Record<string, number> = {};
  let started = 0;
  let held = 0;
  const sums: Record<LeadCount, number> = {
    messagesOut: 0,
    messagesIn: 0,
    booked: 0,
    rescheduled: 0,
    cancelled: 0,
    closed: 0,
  };
  for (const lead of leads) {
    if (lead.jobInWindow && lead.jobAt !== undefined) {
      jobs++;
      // A message stamped before the job it answers is clock skew between the two logs: it counts as immediate.
      if (lead.firstOutbound !== undefined) contactSeconds.push(Math.max(0, (lead.firstOutbound - lead.jobAt) / 1000));
    }
    for (const ms of lead.deliveryMs) deliverySeconds.push(ms / 1000);
    if (lead.outcomes !== undefined)
      for (const [reason, n] of lead.outcomes) outcomes[reason] = (outcomes[reason] ?? 0) + n;
    if (lead.counts.messagesOut > 0) {
      started++;
      if (lead.counts.messagesIn > 0) held++;
    }
    for (const key in sums) sums[key as LeadCount] += lead.counts[key as LeadCount];
  }
  const { messagesOut, messagesIn, booked, rescheduled, cancelled, closed } = sums;
  const firstContact = distribution(contactSeconds, FIRST_CONTACT_TARGET_SECONDS, jobs);
  let negative = 0;
  for (const seconds of deliverySeconds) if (seconds < 0) negative++;
  return {
    branch_code: code,
    jobs,
    // Share within 5 minutes is over all jobs received: a job never contacted missed the target.
    first_contact: {
      ...firstContact,
      contacted: contactSeconds.length,
      not_contacted: jobs - contactSeconds.length,
      histogram: histogram(contactSeconds),
    },
    conversations: { started, held, messages_outbound: messagesOut, messages_inbound: messagesIn },
    appointments: { booked, rescheduled, cancelled },
    closed,
    outcomes: Object.fromEntries(Object.entries(outcomes).sort(([a], [b]) => a.localeCompare(b))),
    message_delivery: {
      ...distribution(deliverySeconds, MESSAGE_DELIVERY_TARGET_SECONDS, deliverySeconds.length),
      negative,
    },
    per_day: perDay(leads),
  };
}

/** Nearest-rank percentiles (exact, no interpolation): every reported value is one that was measured. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1] as number;
}

function distribution(values: number[], targetSeconds: number, base: number): Distribution {
  // A typed array sorts numbers natively, several times faster than a comparator (values are finite).
  const sorted = Float64Array.from(values).sort();
  let within = 0;
  for (const value of sorted) if (value <= targetSeconds) within++;
  const round = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 1000);
  return {
    count: sorted.length,
    median_seconds: round(percentile(sorted, 0.5)),
    p90_seconds: round(percentile(sorted, 0.9)),
    max_seconds: round(sorted.length > 0 ? (sorted[sorted.length - 1] as number) : null),
    within_target: within,
    within_target_share: base > 0 ? Math.round((within / base) * 10000) / 10000 : null,
  };
}

function hasActivity(branch: BranchReport): boolean {
  return (
    branch.jobs > 0 ||
    branch.conversations.messages_inbound + branch.conversations.messages_outbound > 0 ||
    branch.closed > 0 ||
    branch.appointments.booked + branch.appointments.rescheduled + branch.appointments.cancelled > 0
  );
}
