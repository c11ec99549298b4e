/**
 * Progress on stderr, only when stderr can redraw a line (a terminal with a known width, not TERM=dumb) and neither
 * --json nor --quiet is set:
 * a single status line redrawn in place (plain `\r` + erase-line: no spinner library, so no dependency on the
 * terminal reporting its size; ora loops on a zero-column terminal), and the batch sender's progress bar on it.
 */
import type { Io } from '../io.js';
import { truncate } from './layout.js';
import { plural } from '../text.js';
import { formatDuration } from '../duration.js';
import { WAIT_LINE_MS } from './wait-notice.js';
import type { Output } from './output.js';

/** The streams and the output of the command that draws. */
export interface Terminal {
  io: Io;
  output: Output;
}

export class ProgressLine {
  private drawn = false;
  readonly live: boolean;

  constructor(private readonly terminal: Terminal) {
    const { output } = terminal;
    this.live = output.cursorControl && !output.json && !output.quiet;
  }

  update(text: string): void {
    if (!this.live) return;
    // One column short of the width: a line that fills the last column wraps on some terminals.
    // One line, escaped as Output escapes stderr (cai's own colours kept): a check title or a target from outside cannot move the cursor.
    const line = truncate(
      this.terminal.output.printableErr(text, true).replace(/\n/g, '\\n'),
      Math.max(10, (this.terminal.output.errWidth ?? 80) - 1),
    );
    this.terminal.io.stderr.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }

  clear(): void {
    if (!this.drawn) return;
    this.terminal.io.stderr.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** How a batch item ended, as far as the progress bar counts it. */
type ProgressOutcome = 'ok' | 'problem';

/** Without a terminal, a plain progress line this often at most (a CI log stays readable; stdout stays results). */
export const PLAIN_EVERY_MS = WAIT_LINE_MS;
/** On a terminal, the line is redrawn at most this often, and at least this often while documents wait. */
const REDRAW_MS = 100;
const TICK_MS = 1000;

/** The batch sender's progress: done/total, the rate, documents in flight, retries waiting, an ETA. */
export type BatchProgressState = Record<
  'total' | 'done' | 'ok' | 'problems' | 'inFlight' | 'retrying' | 'elapsedMs',
  number
>;

/** `120/1000 · 35/s · 8 in flight · 2 retrying · ETA 25 s · 3 problems` (documents per second). */
export function describeBatchProgress(state: BatchProgressState): string {
  const rate = state.elapsedMs > 0 ? (state.done * 1000) / state.elapsedMs : 0;
  const parts = [`${state.done}/${state.total} documents`];
  if (state.done > 0) parts.push(`${formatRate(rate)}/s`);
  parts.push(`${state.inFlight} in flight`);
  if (state.retrying > 0) parts.push(`${state.retrying} waiting to retry`);
  if (state.done > 0 && state.done < state.total && rate > 0)
    parts.push(`ETA ${formatEta(((state.total - state.done) / rate) * 1000)}`);
  if (state.problems > 0) parts.push(plural(state.problems, 'problem'));
  return parts.join(' · ');
}

/** A rate a second: whole from 10 up, one decimal below. */
export function formatRate(rate: number): string {
  return rate >= 10 ? String(Math.round(rate)) : rate.toFixed(1);
}

/** Whole seconds, or whole minutes from an hour up: an estimate is no finer. */
function formatEta(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return formatDuration((seconds >= 3600 ? Math.round(seconds / 60) * 60 : seconds) * 1000);
}

/**
 * The batch sender's progress on stderr. On a terminal: a bar and `describeBatchProgress` on one line redrawn in
 * place. Without one: a plain `progress: …` line every PLAIN_EVERY_MS at most, none for a batch that ends sooner.
 * Neither with --quiet. Lines logged while the bar is drawn are held back and printed when it stops.
 */
export class ProgressBar {
  private done = 0;
  private ok = 0;
  private problems = 0;
  private readonly flying = new Set<unknown>();
  private readonly waiting = new Set<unknown>();
  private lastDraw = 0;
  private lastPlain: number;
  private readonly started: number;
  private stopped = false;
  private readonly held: string[] = [];
  private readonly line: ProgressLine;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly total: number,
    private readonly terminal: Terminal,
    options: { plainEveryMs?: number } = {},
  ) {
    this.line = new ProgressLine(terminal);
    this.started = terminal.io.now();
    this.lastPlain = this.started;
    this.line.update(`sending ${total} document(s)…`);
    const plainEvery = options.plainEveryMs ?? PLAIN_EVERY_MS;
    const plain = !this.line.live && !terminal.output.quiet;
    if (this.line.live || plain) {
      this.timer = setInterval(
        () => (this.line.live ? this.draw(true) : this.plainLine(plainEvery)),
        this.line.live ? TICK_MS : Math.min(plainEvery, TICK_MS),
      );
      this.timer.unref();
    }
  }

  /** The document known as `key` went on the wire. */
  start(key: unknown): void {
    this.flying.add(key);
    this.draw(false);
  }

  /** An attempt of the document `key` ended; `retry`: it now waits to try again. */
  attempt(key: unknown, retry: boolean): void {
    if (retry) this.waiting.add(key);
    else this.waiting.delete(key);
  }

  /** The document `key` is done with (sent or not). */
  count(outcome: ProgressOutcome, key?: unknown): void {
    this.done += 1;
    this.flying.delete(key);
    this.waiting.delete(key);
    if (outcome === 'ok') this.ok += 1;
    else this.problems += 1;
    this.draw(this.done === this.total);
  }

  get state(): BatchProgressState {
    return {
      total: this.total,
      done: this.done,
      ok: this.ok,
      problems: this.problems,
      inFlight: this.flying.size,
      retrying: this.waiting.size,
      elapsedMs: this.terminal.io.now() - this.started,
    };
  }

  private draw(force: boolean): void {
    if (!this.line.live || this.stopped) return;
    const now = this.terminal.io.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const text = describeBatchProgress(this.state);
    const columns = this.terminal.output.errWidth ?? 80;
    // The bar only where there is room for it and the figures.
    const barWidth = Math.min(24, columns - text.length - 4);
    if (barWidth < 10) {
      this.line.update(text);
      return;
    }
    const filled = Math.round((this.done / Math.max(1, this.total)) * barWidth);
    this.line.update(`[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${text}`);
  }

  private plainLine(every: number): void {
    const now = this.terminal.io.now();
    if (this.stopped || now - this.lastPlain < every) return;
    this.lastPlain = now;
    this.terminal.output.info(`progress: ${describeBatchProgress(this.state)}`);
  }

  /** A line on stderr; held back while the progress bar is drawn, so the two do not mix. */
  log(line: string): void {
    if (this.line.live && !this.stopped) this.held.push(line);
    else this.terminal.output.info(line);
  }

  /** A line on stderr now, above the progress bar. */
  say(print: () => void): void {
    this.line.clear();
    print();
    this.draw(true);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.line.clear();
    const shown = this.held.slice(0, 50);
    shown.forEach((line) => this.terminal.output.info(line));
    if (this.held.length > shown.length)
      this.terminal.output.info(
        `… and ${this.held.length - shown.length} more (see --output or --json for every result)`,
      );
  }
}
