/**
 * Progress on stderr, only when stderr is a terminal with a known width and neither --json nor --quiet is set:
 * a single status line redrawn in place (plain `\r` + erase-line: no spinner library, so no dependency on the
 * terminal reporting its size; ora loops on a zero-column terminal), and the batch sender's progress bar on it.
 */
import type { Io } from '../io.js';
import { truncate } from './layout.js';
import type { Output } from './output.js';

/** The streams and the output of the command that draws. */
export interface Terminal {
  io: Io;
  output: Output;
}

export class ProgressLine {
  private drawn = false;
  private readonly enabled: boolean;

  constructor(private readonly terminal: Terminal) {
    const { io, output } = terminal;
    this.enabled = output.stderrIsTTY && !output.json && !output.quiet && (io.stderr.columns ?? 0) > 0;
  }

  get live(): boolean {
    return this.enabled;
  }

  update(text: string): void {
    if (!this.enabled) return;
    // One column short of the width: a line that fills the last column wraps on some terminals.
    const line = truncate(text, Math.max(10, (this.terminal.output.errWidth ?? 80) - 1));
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

/** A progress bar of N items on a ProgressLine, and the stderr lines it holds back while it is drawn. */
export class ProgressBar {
  private done = 0;
  private ok = 0;
  private problems = 0;
  private lastDraw = 0;
  private stopped = false;
  private readonly held: string[] = [];
  private readonly line: ProgressLine;

  constructor(
    private readonly total: number,
    private readonly terminal: Terminal,
  ) {
    this.line = new ProgressLine(terminal);
    this.line.update(`sending ${total} document(s)…`);
  }

  count(outcome: ProgressOutcome): void {
    this.done += 1;
    if (outcome === 'ok') this.ok += 1;
    else this.problems += 1;
    if (!this.line.live) return;
    const now = Date.now();
    if (now - this.lastDraw < 100 && this.done < this.total) return;
    this.lastDraw = now;
    const width = 24;
    const filled = Math.round((this.done / this.total) * width);
    this.line.update(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${this.total} · ok ${this.ok} · problems ${this.problems}`);
  }

  /** A line on stderr; held back while the progress bar is drawn, so the two do not mix. */
  log(line: string): void {
    if (this.line.live && !this.stopped) this.held.push(line);
    else this.terminal.output.info(line);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.line.clear();
    const shown = this.held.slice(0, 50);
    shown.forEach((line) => this.terminal.output.info(line));
    if (this.held.length > shown.length) this.terminal.output.info(`… and ${this.held.length - shown.length} more (see --output or --json for every result)`);
  }
}
