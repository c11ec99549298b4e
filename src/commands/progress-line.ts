/**
 * A single status line redrawn in place on stderr, only when stderr is a terminal with a known width and
 * neither --json nor --quiet is set. Plain `\r` + erase-line: no spinner library, so no dependency on the
 * terminal reporting its size (ora loops on a zero-column terminal).
 */
import type { CommandContext } from '../cli/runner.js';

export class ProgressLine {
  private drawn = false;
  private readonly enabled: boolean;

  constructor(private readonly context: CommandContext) {
    const { io, output } = context;
    this.enabled = output.stderrIsTTY && !output.json && !output.quiet && (io.stderr.columns ?? 0) > 0;
  }

  get live(): boolean {
    return this.enabled;
  }

  update(text: string): void {
    if (!this.enabled) return;
    const width = Math.max(10, (this.context.io.stderr.columns ?? 80) - 1);
    const line = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.context.io.stderr.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }

  clear(): void {
    if (!this.drawn) return;
    this.context.io.stderr.write('\r\x1b[K');
    this.drawn = false;
  }
}
