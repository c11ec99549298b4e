import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { MOCK_LOG_CAPS } from '../bounds.js';

/**
 * The longest line handed over whole. A record of a reference receiver is at most its head (well under 64 KiB:
 * Node caps request headers at 16 KiB), the document (at most 262 144 bytes, §8) and its base64 (349 528 bytes),
 * under 700 KiB; a longer line is not such a record (a run of NUL bytes left by a crash, foreign text, or an
 * event taken under the `no-size-limit` fault) and is skipped without being held in memory.
 */
export const MAX_LINE_BYTES = MOCK_LOG_CAPS.reloadLineBytes;
/** What is kept of the end of a longer line, where a complete record may follow a torn one. */
const CUT_TAIL_BYTES = 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** A line of a log over MAX_LINE_BYTES, met with `stopAtOversize`: reading stopped there, its end unread. */
export class LineTooLong extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is over ${MAX_LINE_BYTES} bytes`);
    this.name = 'LineTooLong';
  }
}

export interface LineOptions {
  /**
   * Stop at the first line over MAX_LINE_BYTES, as soon as it goes over (LineTooLong): a reader of a file named
   * by the user (`cai report`), which may be endless (`/dev/zero`). Without it, the line's end is kept (`cutTail`).
   */
  stopAtOversize?: boolean;
}

/**
 * Streams the lines of a log (split at LF, without it) to `onLine` with their numbers (from 1): a path, a file
 * opened already, or a stream (stdin). Holds at most MAX_LINE_BYTES of one line: a longer line is handed over as its
 * last CUT_TAIL_BYTES in `cutTail` (and `line` empty), or stops the reading (`stopAtOversize`). `onLine` returns
 * false to stop. Never reads the file as one string (V8 caps a string at 512 MiB; a log passes that near 700 000
 * records).
 */
export async function forEachLine(
  source: string | FileHandle | AsyncIterable<Buffer | string>,
  onLine: (line: Buffer, number: number, cutTail?: Buffer) => boolean | void,
  options: LineOptions = {},
): Promise<void> {
  let number = 0;
  let stopped = false;
  const pending = new PendingLine((line, cutTail) => {
    number += 1;
    if (cutTail !== undefined && options.stopAtOversize) throw new LineTooLong(number);
    if (onLine(line, number, cutTail) === false) stopped = true;
  });
  // A file opened already (a mock's log, opened without blocking and checked regular) is read from its descriptor.
  const stream =
    typeof source === 'string'
      ? createReadStream(source, { highWaterMark: CHUNK_BYTES })
      : 'createReadStream' in source
        ? source.createReadStream({ highWaterMark: CHUNK_BYTES, autoClose: false })
        : source;
  for await (const given of stream as AsyncIterable<Buffer | string>) {
    const chunk = typeof given === 'string' ? Buffer.from(given, 'utf8') : given;
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1 && !stopped; newline = chunk.indexOf(0x0a, start)) {
      pending.end(chunk.subarray(start, newline));
      start = newline + 1;
    }
    if (stopped) return;
    if (start < chunk.length) pending.add(chunk.subarray(start));
    if (options.stopAtOversize && pending.over) throw new LineTooLong(number + 1);
  }
  pending.end(Buffer.alloc(0), true);
}

/** The part of a line read so far, when it runs across chunks. */
class PendingLine {
  private parts: Buffer[] = [];
  private bytes = 0;
  private cut = false;

  /** The line read so far is over MAX_LINE_BYTES. */
  get over(): boolean {
    return this.cut;
  }

  constructor(private readonly onLine: (line: Buffer, cutTail?: Buffer) => void) {}

  add(part: Buffer): void {
    this.parts.push(part);
    this.bytes += part.length;
    if (this.bytes <= MAX_LINE_BYTES && !this.cut) return;
    // Over the limit: from now on only the end of the line is kept.
    this.cut = true;
    while (this.parts.length > 1 && this.bytes - (this.parts[0] as Buffer).length >= CUT_TAIL_BYTES)
      this.bytes -= (this.parts.shift() as Buffer).length;
  }

  /** The line ends with `last` (at the end of the file: only when something is pending). */
  end(last: Buffer, atEndOfFile = false): void {
    if (this.parts.length === 0 && !this.cut && last.length <= MAX_LINE_BYTES) {
      if (!atEndOfFile || last.length > 0) this.onLine(last);
      return;
    }
    this.add(last);
    const whole = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    const cut = this.cut;
    this.parts = [];
    this.bytes = 0;
    this.cut = false;
    if (cut) this.onLine(Buffer.alloc(0), whole.subarray(Math.max(0, whole.length - CUT_TAIL_BYTES)));
    else this.onLine(whole);
  }
}
