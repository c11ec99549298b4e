/**
 * Result lines for stdout, written in batches: under load, one write per line costs more than the work behind it
 * (the mocks' per-request lines, bench/mock-platform.bench.js; the batch sender's NDJSON records at thousands a
 * second). Lines still appear promptly: after `delayMs`, or on the next turn of the event loop when it is 0.
 */
import { jsonText } from './safe-text.js';

interface LineBufferOptions {
  /** How long a line may wait; 0: until the event loop's next turn. */
  delayMs: number;
  /** Written at once when this many lines wait. */
  maxLines?: number;
}

export class LineBuffer {
  private lines: string[] = [];
  private scheduled = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: LineBufferOptions,
  ) {}

  line(text: string): void {
    this.lines.push(text);
    if (this.options.maxLines !== undefined && this.lines.length >= this.options.maxLines) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      if (this.options.delayMs > 0) setTimeout(() => this.flush(), this.options.delayMs);
      else setImmediate(() => this.flush());
    }
  }

  json(document: unknown): void {
    this.line(jsonText(document));
  }

  flush(): void {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = `${this.lines.join('\n')}\n`;
    this.lines = [];
    this.write(text);
  }
}
