/**
 * The open-model engine of `cai load`: arrivals at the times the schedule fixes, each a request of its own, at most
 * `maxInFlight` on the wire at once (one per connection of the pool). An arrival that comes due while every
 * connection is busy is not sent and is counted (k6's dropped_iterations): the schedule holds when the target slows
 * down, and the run says by how much it could not keep it. Timers wake the engine for the next arrival, and every
 * answer wakes it too; what came due within the next millisecond goes out at once (a timer fires no sooner).
 *
 * Requests go through undici's dispatcher with a handler of our own (as the batch sender does, src/http/client.ts):
 * no response stream or promise per request. Every request sent is counted, from the first (no warm-up).
 */
import type { Dispatcher } from 'undici';
import { LOAD_BOUNDS } from './bounds.js';
import type { LoadMetrics } from './metrics.js';
import type { Schedule } from './schedule.js';

/** What goes on the wire for one arrival, made (and signed) when it is sent. */
export interface OutgoingRequest {
  /** Flat name, value list, as undici takes it. */
  headers: string[];
  body: Buffer;
  /** The request repeats an earlier document (--repeat). */
  repeat: boolean;
}

/** An answer, as far as a load run reads it. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** At most LOAD_BOUNDS.answerBodyBytes of the body. */
  body: Buffer;
}

export interface EngineOptions<R extends OutgoingRequest> {
  /** The URL every request is POSTed to. */
  url: string;
  dispatcher: Dispatcher;
  schedule: Schedule;
  maxInFlight: number;
  /** For the answer's headers, and for any pause in its body. */
  timeoutMs: number;
  metrics: LoadMetrics;
  /** Makes the request of the next arrival. */
  prepare(): R;
  /** An answer arrived for `request` (its status and latency are already counted). */
  judge(request: R, answer: Answer): void;
  /** A request failed without an answer; returning true ends the run (nothing listens there). */
  failed(request: R, code: string): boolean;
  /** The first Ctrl-C: nothing more is sent; the requests in flight finish. */
  stopSignal?: AbortSignal;
  /** Milliseconds, monotonic (performance.now by default). */
  clock?: () => number;
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
  private readonly clock: () => number;
  private readonly origin: string;
  private readonly path: string;
  private start = 0;
  private issued = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped: EngineOutcome['stopped'];
  private stoppedAt: number | undefined;
  private readonly sentByPhase: number[];
  private resolve: (outcome: EngineOutcome) => void = () => {};
  private done = false;
  /** Inside a dispatch: an answer delivered synchronously (a closed pool) must not send from within it. */
  private dispatching = false;

  constructor(private readonly options: EngineOptions<R>) {
    this.clock = options.clock ?? (() => performance.now());
    const url = new URL(options.url);
    this.origin = url.origin;
    this.path = `${url.pathname}${url.search}`;
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
      this.start = this.clock();
      this.pump();
    });
  }

  private elapsed(): number {
    return this.clock() - this.start;
  }

  /** Sends every arrival due (within the look-ahead) while a connection is free; then waits for the next. */
  private pump(): void {
    if (this.stopped !== undefined || this.done) {
      this.finishIfIdle();
      return;
    }
    const { schedule } = this.options;
    const elapsed = this.elapsed();
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
    const wait = Math.max(0, schedule.dueAt(this.issued) - this.elapsed() - LOOKAHEAD_MS);
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
    const started = this.clock();
    const handler = new AnswerHandler((answer) => this.answered(request, answer, started), (error) => this.failedWith(request, error));
    this.dispatching = true;
    try {
      this.options.dispatcher.dispatch(
        { origin: this.origin, path: this.path, method: 'POST', headers: request.headers, body: request.body, headersTimeout: this.options.timeoutMs, bodyTimeout: this.options.timeoutMs },
        handler,
      );
    } finally {
      this.dispatching = false;
    }
  }

  private answered(request: R, answer: Answer, started: number): void {
    const now = this.clock();
    this.options.metrics.recordAnswer(answer.status, (now - started) * 1000, now - this.start);
    this.options.judge(request, answer);
    this.completed(now);
  }

  private failedWith(request: R, error: Error): void {
    const now = this.clock();
    const code = failureCode(error);
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
    if (this.dispatching) queueMicrotask(() => this.pump());
    else this.pump();
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

/**
 * Collects one answer: the status, the headers, and at most LOAD_BOUNDS.answerBodyBytes of the body (the §2.13
 * acknowledgment, a rejection's code). A body past LOAD_BOUNDS.answerReadBytes is not read further: the answer is
 * taken as it is and the connection closed.
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Answer['headers'] = {};
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private read = 0;
  private settled = false;

  constructor(
    private readonly deliver: (answer: Answer) => void,
    private readonly fail: (error: Error) => void,
  ) {}

  /** undici reads a handler with onRequestStart as one of its current API (onResponseStart, onResponseData…). */
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.read += chunk.length;
    if (this.kept < LOAD_BOUNDS.answerBodyBytes) {
      const part = chunk.length + this.kept > LOAD_BOUNDS.answerBodyBytes ? chunk.subarray(0, LOAD_BOUNDS.answerBodyBytes - this.kept) : chunk;
      // Copied: the chunk is a view of the socket's read buffer.
      this.chunks.push(Buffer.from(part));
      this.kept += part.length;
    }
    if (this.read > LOAD_BOUNDS.answerReadBytes) {
      this.finish();
      controller.abort(new Error('answer body over the cap'));
    }
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.fail(error);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.kept);
    this.deliver({ status: this.status, headers: this.headers, body });
  }
}

/** A transport failure's code: the errno (ECONNREFUSED…) or undici's (UND_ERR_HEADERS_TIMEOUT…), else its name. */
export function failureCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (current instanceof AggregateError && current.errors[0] !== undefined) current = current.errors[0];
    else current = current.cause;
  }
  return error instanceof Error && error.name !== 'Error' ? error.name : 'connection';
}
