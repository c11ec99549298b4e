import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { formatCap, INPUT_CAPS, READ_CHUNK_BYTES } from '../bounds.js';
import { readNdjsonBatches } from '../spec/ndjson.js';
import { parseLogLine, type LogRecord } from './log.js';

export interface MalformedLine {
  file: string;
  line: number;
  reason: string;
}

export interface ReadSummary {
  lines: number;
  malformed: MalformedLine[];
}

/** What one log held: its non-blank lines, how many were records, and whether it began with binary data. */
export interface LogFileCounts {
  lines: number;
  records: number;
  /** A NUL byte before any record: the file is not text (a log padded with NULs after a crash still counts). */
  binary: boolean;
}

/**
 * Streams NDJSON lines (a big log is never held in memory), handing each record to `onRecord`.
 * A malformed line is reported with its number and skipped: one bad line must not lose the report.
 * Blank lines are ignored. Stream errors (unreadable file) reject. Reading stops at binary data met before any
 * record: such a file is not a log, and reading the rest of it would only add malformed lines. A line over
 * INPUT_CAPS.logLine (src/bounds.ts) rejects with LogLineTooLongError as soon as it goes over: the mocks never write
 * one, and an endless line (`/dev/zero`) is not read to its end.
 */
export async function readLog(input: Readable, file: string, onRecord: (record: LogRecord) => void, summary: ReadSummary): Promise<LogFileCounts> {
  const counts: LogFileCounts = { lines: 0, records: 0, binary: false };
  reading: for await (const batch of readNdjsonBatches(input, INPUT_CAPS.logLine.bytes, { stopAtOversize: true })) {
    for (const { number, bytes, oversize } of batch) {
      if (oversize) throw new LogLineTooLongError(file, number);
      const line = bytes.toString('utf8');
      // A record starts with `{`: only other lines need the blank test.
      if (line.charCodeAt(0) !== 0x7b && line.trim() === '') continue;
      if (counts.records === 0 && line.includes('\u0000')) {
        counts.binary = true;
        break reading;
      }
      summary.lines += 1;
      counts.lines += 1;
      const parsed = parseLogLine(line);
      if (parsed.ok) {
        counts.records += 1;
        onRecord(parsed.record);
        continue;
      }
      const glued = gluedRecord(line);
      summary.malformed.push({ file, line: number, reason: glued ? `${TORN}, followed by a complete record (counted)` : line.startsWith(RECORD_START) ? `${TORN}: ${parsed.reason}` : parsed.reason });
      if (glued) {
        counts.records += 1;
        onRecord(glued);
      }
    }
  }
  return counts;
}

/** How every record line the mocks write starts (src/mock/log.ts): where a record cut short shows. */
const RECORD_START = '{"v":1,"received_at":';
const TORN = 'a record cut short (a write that failed: a full disk, a crash)';

/**
 * The complete record at the end of a line that starts with something else: a record cut short with the next
 * record written right after it, on the same line (a crash with two writes in flight, which the mocks' log
 * allowed before it wrote one batch at a time; the mocks' reload keeps that record too). A record starts with RECORD_START, which a string inside a record
 * cannot hold unescaped; only a suffix of the line that parses whole as a record counts.
 */
function gluedRecord(line: string): LogRecord | undefined {
  for (let at = line.lastIndexOf(RECORD_START); at > 0; at = line.lastIndexOf(RECORD_START, at - 1)) {
    const parsed = parseLogLine(line.slice(at));
    if (parsed.ok) return parsed.record;
  }
  return undefined;
}

/** A line of a log over INPUT_CAPS.logLine: reading stopped there. */
export class LogLineTooLongError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(`${file} line ${line} is over the ${formatCap(INPUT_CAPS.logLine.bytes)} cap for one log line; reading stopped there`);
    this.name = 'LogLineTooLongError';
  }
}

export function openLog(path: string): Readable {
  // 256 KB reads rather than 64 KB: a quarter of the reads and of the batches for a long log.
  return createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
}

/** The whole report from log files (or streams), as `cai report --format json` prints it. */
export async function reportFromLogs(
  inputs: readonly (string | { name: string; stream: Readable } | { name: string; path: string })[],
  filter: import('./aggregate.js').ReportFilter,
): Promise<import('./aggregate.js').OperationReport & { logs: string[]; lines: number; malformed: MalformedLine[] }> {
  const { ReportBuilder } = await import('./aggregate.js');
  const builder = new ReportBuilder(filter);
  const summary: ReadSummary = { lines: 0, malformed: [] };
  for (const input of inputs) {
    // Each file is opened only when its turn comes, so an error belongs to it and none is left unhandled.
    const opened = typeof input === 'string' || 'path' in input;
    const { name, stream } = typeof input === 'string' ? { name: input, stream: openLog(input) } : 'path' in input ? { name: input.name, stream: openLog(input.path) } : input;
    let counts: LogFileCounts;
    try {
      counts = await readLog(stream, name, (record) => builder.add(record), summary);
    } catch (error) {
      if (error instanceof LogLineTooLongError) throw error;
      throw new LogReadError(name, error);
    } finally {
      if (opened) stream.destroy();
    }
    // Lines, but not one record: the wrong file, not a log with nothing in it (an empty log is legitimate).
    if (counts.binary || (counts.lines > 0 && counts.records === 0)) throw new NotALogError(name, counts, summary.malformed.find((line) => line.file === name));
  }
  const names = inputs.map((input) => (typeof input === 'string' ? input : input.name));
  return { logs: names, lines: summary.lines, malformed: summary.malformed, ...builder.build() };
}

/** Reading one log failed (missing, unreadable, a directory): `file` says which. */
export class LogReadError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot read log ${file}`, { cause });
    this.name = 'LogReadError';
  }
}

/** A file given as a log holds no record at all: binary data, or lines none of which is a record. */
export class NotALogError extends Error {
  constructor(
    readonly file: string,
    readonly counts: LogFileCounts,
    /** The first line that was not a record, and why. */
    readonly first?: MalformedLine,
  ) {
    super(
      counts.binary
        ? `${file} is not an NDJSON log: it holds binary data`
        : `${file} holds no log record: ${counts.lines} ${counts.lines === 1 ? 'line' : 'lines'} read, none a record${first ? ` (line ${first.line}: ${first.reason})` : ''}`,
    );
    this.name = 'NotALogError';
  }
}
