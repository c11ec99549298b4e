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
