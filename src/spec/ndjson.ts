/**
 * Splits a byte stream into NDJSON lines without decoding it first, so that every line reaches
 * `validateBody` as the exact bytes sent (invalid UTF-8 stays detectable), and memory stays constant:
 * a line longer than `maxLineBytes` is not buffered beyond that, only measured (and, when asked, its last bytes
 * kept). The one line reader of the house: `cai validate --ndjson`, `cai send --ndjson` and the mocks' log readers.
 */
import { INPUT_CAPS } from '../bounds.js';

export interface NdjsonLine {
  /** 1-based line number in the stream. */
  number: number;
  /** The line's bytes without the `\n` (and without a `\r` before it); empty when `oversize`. */
  bytes: Buffer;
  /** The full length of the line in bytes, even when it was not kept (with `cut`: the bytes read of it). */
  byteLength: number;
  /** The line was longer than `maxLineBytes`, so its bytes were not kept. */
  oversize: boolean;
  /** With `stopAtOversize`: the line was over the cap and reading stopped there, its end unread. */
  cut?: boolean;
  /** With `keepTailBytes`, of an oversize line: its last bytes (where a log's complete record may follow a torn one). */
  tail?: Buffer;
}

/** The cap on one line of `cai validate --ndjson` (src/bounds.ts). */
/** A line of spaces, tabs and carriage returns only: it separates nothing and holds no document. */
export function isBlankLine(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}

export const DEFAULT_MAX_LINE_BYTES = INPUT_CAPS.ndjsonLine.bytes;

export interface NdjsonReadOptions {
  /**
   * Stop reading at the first line over the cap, as soon as it goes over (its end is never looked for): the CLI's
   * readers do, so an endless line (`/dev/zero`) is not read to exhaustion. Without it, such a line is measured
   * and skipped, and the lines after it are read.
   */
  stopAtOversize?: boolean;
  /** Of a line over the cap, keep (in `tail`) at most this many of its last bytes; none by default. */
  keepTailBytes?: number;
}

/**
 * Yields the lines of each chunk read as one batch: one await per chunk rather than per line keeps the
 * per-document cost close to the validation itself.
 */
export async function* readNdjsonBatches(
  stream: AsyncIterable<Buffer | string>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  options: NdjsonReadOptions = {},
): AsyncGenerator<NdjsonLine[]> {
  const splitter = new NdjsonSplitter(maxLineBytes, options);
  for await (const chunk of stream) {
    const batch = splitter.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    if (batch.length > 0) yield batch;
    // Leaving the loop ends the iteration of the stream, which stops reading it.
    if (splitter.stopped) return;
  }
  const last = splitter.end();
  if (last.length > 0) yield last;
}

/**
 * The splitting under the readers, synchronous: chunks in, the lines they complete out. A caller that holds the whole
 * input already (`cai send --ndjson` reads its file whole, within its cap) pushes it once and ends.
 */
export class NdjsonSplitter {
  /** With `stopAtOversize`: a line went over the cap, and nothing more is read. */
  stopped = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private oversize = false;
  private number = 0;
  private readonly tail: LineTail;

  constructor(
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
    private readonly options: NdjsonReadOptions = {},
  ) {
    this.tail = new LineTail(options.keepTailBytes ?? 0);
  }

  /** The lines `buffer` completes (and, with `stopAtOversize`, the first line over the cap, cut or whole). */
  push(buffer: Buffer): NdjsonLine[] {
    const batch: NdjsonLine[] = [];
    if (this.stopped) return batch;
    const stop = this.options.stopAtOversize === true;
    let start = 0;
    for (let newline = buffer.indexOf(0x0a, start); newline !== -1; newline = buffer.indexOf(0x0a, start)) {
      this.keep(buffer.subarray(start, newline));
      const line = this.finish();
      batch.push(line);
      start = newline + 1;
      if (stop && line.oversize) {
        this.stopped = true;
        return batch;
      }
    }
    if (start < buffer.length) this.keep(buffer.subarray(start));
    if (stop && this.oversize) {
      // Over the cap without its end: not a line of a document, and maybe no end at all (`/dev/zero`).
      batch.push({ ...this.finish(), cut: true });
      this.stopped = true;
    }
    return batch;
  }

  /** The last line, when the input did not end with a line ending. */
  end(): NdjsonLine[] {
    return !this.stopped && (this.pendingBytes > 0 || this.oversize) ? [this.finish()] : [];
  }

  private finish(): NdjsonLine {
    this.number++;
    const { pending, pendingBytes, oversize } = this;
    let bytes = oversize
      ? Buffer.alloc(0)
      : pending.length === 1
        ? (pending[0] as Buffer)
        : Buffer.concat(pending, pendingBytes);
    let byteLength = pendingBytes;
    if (!oversize && bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) {
      bytes = bytes.subarray(0, bytes.length - 1);
      byteLength--;
    }
    const line: NdjsonLine = { number: this.number, bytes, byteLength, oversize };
    if (oversize && (this.options.keepTailBytes ?? 0) > 0) line.tail = this.tail.take();
    this.pending = [];
    this.pendingBytes = 0;
    this.oversize = false;
    return line;
  }

  private keep(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.oversize) return this.tail.add(part);
    if (this.pendingBytes > this.maxLineBytes) {
      this.oversize = true;
      for (const kept of this.pending) this.tail.add(kept);
      this.tail.add(part);
      this.pending = [];
      return;
    }
    this.pending.push(part);
  }
}

/** One line at a time (convenience over `readNdjsonBatches`). */
export async function* readNdjsonLines(
  stream: AsyncIterable<Buffer | string>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  options: NdjsonReadOptions = {},
): AsyncGenerator<NdjsonLine> {
  for await (const batch of readNdjsonBatches(stream, maxLineBytes, options)) yield* batch;
}

/** The last bytes of a line over the cap, kept as its parts arrive: at most `bytes` of them (nothing when 0). */
class LineTail {
  private parts: Buffer[] = [];
  private length = 0;

  constructor(private readonly bytes: number) {}

  add(part: Buffer): void {
    if (this.bytes === 0) return;
    this.parts.push(part);
    this.length += part.length;
    while (this.parts.length > 1 && this.length - (this.parts[0] as Buffer).length >= this.bytes)
      this.length -= (this.parts.shift() as Buffer).length;
  }

  take(): Buffer {
    const whole = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.length);
    this.parts = [];
    this.length = 0;
    return whole.subarray(Math.max(0, whole.length - this.bytes));
  }
}
