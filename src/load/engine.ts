/**
 * The open-model engine of `cai load`: arrivals at the times the schedule fixes, each a request of its own, at most
 * `maxInFlight` on the wire at once (one per connection of the pool). An arrival that comes due while every
 * connection is busy is not sent and is counted (k6's dropped_iterations): the schedule holds when the target slows
 * down, and the run says by how much it could not keep it. Timers wake the engine for the next arrival, and every
 * answer wakes it too; what came due within the next millisecond goes out at once (a timer fires no sooner).
 *
 * Requests go out on the keep-alive connections of src/load/wire.ts, one at a time on each. Every request sent is
 * counted, from the first (no warm-up).
 */
import type { LoadMetrics } from './metrics.js';
import type { Schedule } from './schedule.js';
import type { WireAnswer, WireCallbacks, WirePool } from './wire.js';

/** What goes on the wire for one arrival, made (and signed) when it is sent. */
export interface OutgoingRequest {
  /** Header lines after Host, each ending in CRLF (Content-Length is added). */
  lines: string;
  /** The document's text, sent as UTF-8: the bytes the signature covers. */
  body: string;
  /** The request repeats an earlier document (--repeat). */
  repeat: boolean;
}

export interface EngineOptions<R extends OutgoingRequest> {
  /** The connections every request goes out on (at most maxInFlight of them). */
  pool: WirePool;
  schedule: Schedule;
  maxInFlight: number;
  metrics: LoadMetrics;
  /** Makes the request of the next arrival. */
  prepare(): R;
  /** An answer arrived for `request` (its status and latency are already counted). */
  judge(request: R, answer: WireAnswer): void;
  /** A request failed without an answer; returning true ends the run (nothing listens there). */
  failed(request: R, code: string): boolean;
  /** The first Ctrl-C: nothing more is sent; the requests in flight finish. */
  stopSignal?: AbortSignal;
}

export interface EngineOutcome {
  /** From the first arrival to the end of the schedule, or to the stop. */
  spanMs: number;
  /** From the first arrival to the last answer. */
  elapsedMs: number;
  stopped: 'interrupted' | 'unreachable' | undefined;
  /** Requests sent in each phase of the schedule. */
  sentByPhase: number[];
}

/** Arrivals due within this many ms are sent now: a timer would not fire sooner. */
const LOOKAHEAD_MS = 1;

export function runEngine<R extends OutgoingRequest>(options: EngineOptions<R>): Promise<EngineOutcome> {
  return new Engine(options).run();
}

class Engine<R extends OutgoingRequest> {
  private start = 0;
  private issued = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped: EngineOutcome['stopped'];
  private stoppedAt: number | undefined;
  private readonly sentByPhase: number[];
  private resolve: (outcome: EngineOutcome) => void = () => {};
  private done = false;
  /** Inside a send: an answer delivered synchronously (a closed pool) must not send from within it. */
  private sending = false;

  constructor(private readonly options: EngineOptions<R>) {
    this.sentByPhase = options.schedule.phases.map(() => 0);
  }

  run(): Promise<EngineOutcome> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      const stop = this.options.stopSignal;
      if (stop) {
        if (stop.aborted) this.stop('interrupted');
        else stop.addEventListener('abort', () => this.stop('interrupted'), { once: true });
      }
      this.start = performance.now();
      this.pump();
    });
  }

  private elapsed(): number {
    return performance.now() - this.start;
  }

  /** Sends every arrival due (within the look-ahead) while a connection is free; then waits for the next. */
  private pump(at?: number): void {
    if (this.stopped !== undefined || this.done) {
      this.finishIfIdle();
      return;
    }
    const { schedule } = this.options;
    const elapsed = at ?? this.elapsed();
    const due = schedule.dueBy(elapsed + LOOKAHEAD_MS);
    while (this.issued < due && this.inFlight < this.options.maxInFlight && this.stopped === undefined) {
      this.send(this.issued, elapsed);
      this.issued += 1;
    }
    if (this.issued >= schedule.total) {
      this.finishIfIdle();
      return;
    }
    // Every connection busy: the next answer wakes the engine (and drops what came due meanwhile).
    if (this.inFlight >= this.options.maxInFlight || this.timer !== undefined) return;
    const wait = Math.max(0, schedule.dueAt(this.issued) - elapsed - LOOKAHEAD_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, wait);
  }

  private send(index: number, elapsed: number): void {
    const { schedule, metrics } = this.options;
    const dueAt = schedule.dueAt(index);
    const request = this.options.prepare();
    this.inFlight += 1;
    metrics.recordSent(elapsed, elapsed - dueAt, request.repeat);
    const phase = schedule.phaseAt(dueAt);
    this.sentByPhase[phase] = (this.sentByPhase[phase] ?? 0) + 1;
    const started = performance.now();
    this.sending = true;
    try {
      this.options.pool.send(request.lines, request.body, new InFlight(this, request, started));
    } finally {
      this.sending = false;
    }
  }

  answered(request: R, answer: WireAnswer, started: number): void {
    const now = performance.now();
    this.options.metrics.recordAnswer(answer.status, (now - started) * 1000, now - this.start);
    this.options.judge(request, answer);
    this.completed(now);
  }

  failedWith(request: R, code: string): void {
    const now = performance.now();
    this.options.metrics.recordFailure(code, now - this.start);
    if (this.options.failed(request, code)) this.stop('unreachable');
    this.completed(now);
  }

  /** A connection is free again. What came due while all were busy was not sent: dropped. */
  private completed(now: number): void {
    if (this.inFlight >= this.options.maxInFlight && this.stopped === undefined && !this.done) {
      const due = this.options.schedule.dueBy(now - this.start);
      if (due > this.issued) {
        this.options.metrics.recordDropped(due - this.issued, now - this.start);
        this.issued = due;
      }
    }
    this.inFlight -= 1;
    if (this.sending) queueMicrotask(() => this.pump());
    else this.pump(now - this.start);
  }

  private stop(reason: NonNullable<EngineOutcome['stopped']>): void {
    if (this.stopped !== undefined || this.done) return;
    this.stopped = reason;
    this.stoppedAt = this.elapsed();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.finishIfIdle();
  }

  private finishIfIdle(): void {
    if (this.inFlight > 0 || this.done) return;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const elapsedMs = this.elapsed();
    this.resolve({
      spanMs: this.stoppedAt ?? this.options.schedule.durationMs,
      elapsedMs,
      stopped: this.stopped,
      sentByPhase: this.sentByPhase,
    });
  }
}

/** One request on the wire: what its answer (or failure) is reported with. One object, rather than two closures. */
class InFlight<R extends OutgoingRequest> implements WireCallbacks {
  constructor(
    private readonly engine: Engine<R>,
    private readonly request: R,
    private readonly started: number,
  ) {}

  answered(answer: WireAnswer): void {
    this.engine.answered(this.request, answer, this.started);
  }

  failed(code: string): void {
    this.engine.failedWith(this.request, code);
  }
}
