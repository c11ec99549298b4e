import { openInputStream } from '../input.js';
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { formatCap, INPUT_CAPS, READ_CHUNK_BYTES } from '../bounds.js';
import { forEachRecordLine, LineTooLong } from '../mock/log-read.js';
import { RECORD_START } from '../mock/log-record.js';
import { NOT_JSON, parseLogLine, type LogRecord } from './log.js';

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
 * Streams a log through the mocks' one reader (src/mock/log-read.ts: a big log is never held in memory), handing
 * each record to `onRecord`. A malformed line is reported with its number and skipped: one bad line must not lose
 * the report; the complete record a torn write was glued to is counted. Blank lines are ignored. Stream errors
 * (unreadable file) reject. Reading stops at binary data met before any record: such a file is not a log, and
 * reading the rest of it would only add malformed lines. A line over INPUT_CAPS.logLine (src/bounds.ts) rejects
 * with LogLineTooLongError as soon as it goes over: the mocks never write one, and an endless line (`/dev/zero`) is
 * not read to its end.
 */
export async function readLog(
  input: Readable,
  file: string,
  onRecord: (record: LogRecord) => void,
  summary: ReadSummary,
): Promise<LogFileCounts> {
  const counts: LogFileCounts = { lines: 0, records: 0, binary: false };
  const take = (record: LogRecord) => {
    counts.records += 1;
    onRecord(record);
  };
  try {
    await forEachRecordLine(
      input,
      recordOf,
      {
        onRecord(record) {
          summary.lines += 1;
          counts.lines += 1;
          take(record);
        },
        onSkipped(number, line, glued) {
          if (counts.records === 0 && line.includes(0)) {
            counts.binary = true;
            return false;
          }
          summary.lines += 1;
          counts.lines += 1;
          const reason = isUtf8(line)
            ? malformedReason(line.toString('utf8'), glued !== undefined)
            : 'not UTF-8 (the mocks write their logs in UTF-8: this line is not one of their records)';
          summary.malformed.push({ file, line: number, reason });
          if (glued) take(glued);
          return undefined;
        },
      },
      { stopAtOversize: true },
    );
  } catch (error) {
    if (error instanceof LineTooLong) throw new LogLineTooLongError(file, error.line);
    throw error;
  }
  return counts;
}

/** A record, from a line that is one: the mocks write UTF-8 only, so a line that is not is no record of theirs. */
function recordOf(line: Buffer): LogRecord | undefined {
  if (!isUtf8(line)) return undefined;
  const parsed = parseLogLine(line.toString('utf8'));
  return parsed.ok ? parsed.record : undefined;
}

const TORN = 'a record cut short (a write that failed: a full disk, a crash)';

/** Why a line is not a record: a torn write (followed by a complete record, or not), or what parsing it said. */
function malformedReason(line: string, glued: boolean): string {
  if (glued) return `${TORN}, followed by a complete record (counted)`;
  const parsed = parseLogLine(line);
  if (parsed.ok) return 'not a record';
  // Only a line that starts as a record, is no JSON and does not end as one was cut short; any other line says
  // what is wrong with it (a raw control character in a string is no torn write).
  const torn = line.startsWith(RECORD_START) && parsed.reason === NOT_JSON && !line.trimEnd().endsWith('}');
  return torn ? `${TORN}: ${parsed.reason}` : parsed.reason;
}

/** A line of a log over INPUT_CAPS.logLine: reading stopped there. */
export class LogLineTooLongError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(
      `${file} line ${line} is over the ${formatCap(INPUT_CAPS.logLine.bytes)} cap for one log line; reading stopped there`,
    );
    this.name = 'LogLineTooLongError';
  }
}

export function openLog(path: string): Readable {
  // 256 KB reads rather than 64 KB: a quarter of the reads and of the batches for a long log.
  return openInputStream(path, READ_CHUNK_BYTES);
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
    const given = typeof input === 'string' ? { name: input, path: input } : input;
    const { name } = given;
    const opened = 'path' in given;
    const stream = opened ? openLog(given.path) : given.stream;
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
    if (counts.binary || (counts.lines > 0 && counts.records === 0))
      throw new NotALogError(
        name,
        counts,
        summary.malformed.find((line) => line.file === name),
      );
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
