/**
 * What a load run measures, in bounded memory: counts per status, latencies (one histogram, and one per status
 * for `http_req_duration{status:…}`), rejections by reason, transport failures by code, repeats and duplicates,
 * arrivals dropped or sent late, and a timeline of windows (rate and latency over time, for the charts). The
 * thresholds read it (./thresholds.ts); the report is `report()`.
 */
import { LOAD_BOUNDS } from './bounds.js';
import { Histogram } from './histogram.js';
import { statusMatches, type StatusFilter } from './threshold-syntax.js';
import type { CallbackSummary } from './callbacks.js';

/** Status classes of the timeline, as the charts stack them. */
type AnswerClass = '2xx' | '429' | '4xx' | '5xx' | 'other';

function answerClassOf(status: number): AnswerClass {
  if (status >= 200 && status < 300) return '2xx';
  if (status === 429) return '429';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

type Window = ReturnType<typeof emptyWindow>;

export interface TimelineWindow extends Omit<Window, 'latency'> {
  /** Start of the window, in ms after the run's start. */
  startMs: number;
  /** Of the answers that ended in the window; null when none did. */
  latencyMs: { p50: number; p90: number; p99: number; max: number } | null;
}

export type LatencySummary = ReturnType<typeof summariseLatency>;

/** How a 2xx answer to a document was judged (§2.13 on Interface B, the provider_job_id on Interface A). */
export type Recognition = 'new' | 'duplicate';

export class LoadMetrics {
  sent = 0;
  completed = 0;
  answered = 0;
  failed = 0;
  dropped = 0;
  /** Sent later than LATE_MS after their due time (the event loop was busy). */
  late = 0;
  readonly latencyAll = new Histogram();
  readonly counters = {
    rejected: 0,
    retry_after_missing: 0,
    repeats: 0,
    duplicates_confirmed: 0,
    repeats_unrecognised: 0,
  };
  repeatsJudged = 0;
  /** A new document answered as a duplicate: the receiver claims to know an event_id it cannot have seen. */
  newAnsweredDuplicate = 0;
  /** Repeats answered with anything but a 2xx (429, 5xx…): neither recognised nor missed. */
  repeatsNotAccepted = 0;
  /** Documents accepted as new: what a repeat can repeat. */
  acceptedNew = 0;
  /** 3xx answers, and the first one's status and Location: a redirect is never followed. */
  redirects = 0;
  firstRedirect?: { status: number; location: string | null };
  seconds = 0;
  callbacks?: CallbackSummary;
  readonly statuses = new Map<number, number>();
  private readonly byStatus = new Map<number, Histogram>();
  readonly failures = new Map<string, number>();
  readonly rejections = new Map<string, { status: number; reason: string; count: number }>();
  private readonly windows: Window[] = [];
  readonly windowMs: number;
  private readonly maxWindows: number;

  constructor(
    plannedDurationMs: number,
    readonly repeatShare = 0,
  ) {
    // Windows of whole seconds, at most LOAD_BOUNDS.timelineWindows over the planned run (a tail after it is kept too).
    this.windowMs = Math.max(1000, Math.ceil(plannedDurationMs / LOAD_BOUNDS.timelineWindows / 1000) * 1000);
    this.maxWindows = Math.ceil(plannedDurationMs / this.windowMs) + Math.ceil(LOAD_BOUNDS.timelineWindows / 10);
  }

  recordSent(atMs: number, lateMs: number, repeat: boolean): void {
    this.sent += 1;
    if (repeat) this.counters.repeats += 1;
    if (lateMs > LATE_MS) this.late += 1;
    const window = this.windowAt(atMs);
    if (window) window.sent += 1;
  }

  recordDropped(count: number, atMs: number): void {
    this.dropped += count;
    const window = this.windowAt(atMs);
    if (window) window.dropped += count;
  }

  /** An answer: its status, its latency (µs) and, for a 2xx, whether it counted the document as new or a repeat. */
  recordAnswer(status: number, micros: number, atMs: number): void {
    this.completed += 1;
    this.answered += 1;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.latencyAll.record(micros);
    let histogram = this.byStatus.get(status);
    if (histogram === undefined && this.byStatus.size < LOAD_BOUNDS.statusHistograms) {
      histogram = new Histogram();
      this.byStatus.set(status, histogram);
    }
    histogram?.record(micros);
    const window = this.windowAt(atMs);
    if (window) {
      window.answers[answerClassOf(status)] += 1;
      window.latency.record(micros);
    }
  }

  recordFailure(code: string, atMs: number): void {
    this.completed += 1;
    this.failed += 1;
    const key = this.failures.has(code) || this.failures.size < LOAD_BOUNDS.failureCodes ? code : 'other';
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    const window = this.windowAt(atMs);
    if (window) window.failed += 1;
  }

  /** A 4xx other than 429 (§7: rejected), by its status and the `error` code of its body when it has one. */
  recordRejection(status: number, reason: string): void {
    this.counters.rejected += 1;
    const kept = reason.slice(0, LOAD_BOUNDS.reasonCharacters);
    let key = `${status} ${kept}`;
    if (!this.rejections.has(key) && this.rejections.size >= LOAD_BOUNDS.rejectionReasons) key = `${status} other`;
    const entry = this.rejections.get(key) ?? { status, reason: key.slice(String(status).length + 1), count: 0 };
    entry.count += 1;
    this.rejections.set(key, entry);
  }

  /** How a receiver counted a document answered 2xx: new or duplicate, for a repeat or a first copy. */
  recordRecognition(repeat: boolean, recognition: Recognition): void {
    if (repeat) {
      this.repeatsJudged += 1;
      if (recognition === 'duplicate') this.counters.duplicates_confirmed += 1;
      else this.counters.repeats_unrecognised += 1;
    } else if (recognition === 'duplicate') {
      this.newAnsweredDuplicate += 1;
    } else this.acceptedNew += 1;
  }

  recordRedirect(status: number, location: string | undefined): void {
    this.redirects += 1;
    this.firstRedirect ??= { status, location: location ?? null };
  }

  countStatus(filter: StatusFilter): number {
    if (filter.kind === 'error') return this.failed;
    let count = 0;
    for (const [status, n] of this.statuses) if (statusMatches(filter, status)) count += n;
    return count;
  }

  latency(filter?: StatusFilter): Histogram {
    if (filter === undefined) return this.latencyAll;
    const merged = new Histogram();
    for (const [status, histogram] of this.byStatus) if (statusMatches(filter, status)) merged.add(histogram);
    return merged;
  }

  timeline(): TimelineWindow[] {
    let last = this.windows.length - 1;
    while (last > 0 && this.windows[last] === undefined) last -= 1;
    const windows: TimelineWindow[] = [];
    for (let index = 0; index <= last; index += 1) {
      const { latency, answers, ...counts } = this.windows[index] ?? emptyWindow();
      windows.push({
        startMs: index * this.windowMs,
        ...counts,
        answers: { ...answers },
        latencyMs:
          latency.total === 0
            ? null
            : {
                p50: ms(latency.percentile(50)),
                p90: ms(latency.percentile(90)),
                p99: ms(latency.percentile(99)),
                max: ms(latency.max),
              },
      });
    }
    return windows;
  }

  private windowAt(atMs: number): Window | undefined {
    const index = Math.max(0, Math.floor(atMs / this.windowMs));
    if (index >= this.maxWindows) return undefined;
    let window = this.windows[index];
    if (window === undefined) {
      window = emptyWindow();
      this.windows[index] = window;
    }
    return window;
  }
}

/** A request sent this much after its due time is counted as late (timers fire within a millisecond or so). */
const LATE_MS = 10;

function emptyWindow() {
  return {
    sent: 0,
    dropped: 0,
    failed: 0,
    answers: { '2xx': 0, '429': 0, '4xx': 0, '5xx': 0, other: 0 } satisfies Record<AnswerClass, number>,
    latency: new Histogram(4),
  };
}

/** A histogram of µs as ms: count, min, mean, percentiles, max (null when empty). */
export function summariseLatency(h: Histogram) {
  const value = (micros: number | undefined) => (h.total === 0 ? null : ms(micros));
  return {
    count: h.total,
    min: value(h.min),
    mean: value(h.mean()),
    p50: value(h.percentile(50)),
    p90: value(h.percentile(90)),
    p95: value(h.percentile(95)),
    p99: value(h.percentile(99)),
    max: value(h.max),
  };
}

/** µs to ms, three decimals. */
function ms(micros: number | undefined): number {
  return Math.round(micros ?? 0) / 1000;
}
