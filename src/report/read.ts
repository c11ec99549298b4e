import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
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

/**
 * Streams NDJSON lines (a big log is never held in memory), handing each record to `onRecord`.
 * A malformed line is reported with its number and skipped: one bad line must not lose the report.
 * Blank lines are ignored. Stream errors (unreadable file) reject.
 */
export async function readLog(input: Readable, file: string, onRecord: (record: LogRecord) => void, summary: ReadSummary): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    summary.lines += 1;
    const parsed = parseLogLine(line);
    if (parsed.ok) onRecord(parsed.record);
    else summary.malformed.push({ file, line: number, reason: parsed.reason });
  }
}

export function openLog(path: string): Readable {
  return createReadStream(path);
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
    const { name, stream } = typeof input === 'string' ? { name: input, stream: openLog(input) } : 'path' in input ? { name: input.name, stream: openLog(input.path) } : input;
    try {
      await readLog(stream, name, (record) => builder.add(record), summary);
    } catch (error) {
      throw new LogReadError(name, error);
    }
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
