/**
 * The readers of a mock's log (docs/mock-log.md): every record whole (`cai report`, tests), or only each record's
 * head for a restart's dedupe. Both stream, skip and name the lines that are not records, and recover a record a
 * torn write was glued to.
 */
import { constants, createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { MOCK_LOG_CAPS } from '../bounds.js';
import { errnoCode } from '../errors.js';
import { isBlankLine, readNdjsonBatches } from '../spec/ndjson.js';
import { openRegular } from './log-file.js';
import { isLogRecord, RECORD_START, type MockLogRecord } from './log-record.js';

/**
 * The longest line handed over whole. A record of a reference receiver is at most its head (well under 64 KiB:
 * Node caps request headers at 16 KiB), the document (at most 262 144 bytes, §8) and its base64 (349 528 bytes),
 * under 700 KiB; a longer line is not such a record (a run of NUL bytes left by a crash, foreign text, or an
 * event taken under the `no-size-limit` fault) and is skipped without being held in memory.
 */
const MAX_LINE_BYTES = MOCK_LOG_CAPS.reloadLineBytes;
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
   * by the user (`cai report`), which may be endless (`/dev/zero`). Without it, a longer line is skipped, its
   * last CUT_TAIL_BYTES searched for a complete record.
   */
  stopAtOversize?: boolean;
}

export interface LoadedLog {
  records: MockLogRecord[];
  /** Lines that are not a log record (e.g. a line torn by a crash or a full disk); kept in the file, ignored here. */
  skippedLines: number;
  /** The numbers (from 1) of the first MAX_NAMED_LINES of them, to name them. */
  skippedLineNumbers: number[];
}

/** The lines a reader skipped: how many, and the numbers of the first MAX_NAMED_LINES. */
export interface SkippedLines {
  count: number;
  numbers: number[];
}

/** Skipped lines named by number; past it, only counted (a damaged log may have many). */
export const MAX_NAMED_LINES = MOCK_LOG_CAPS.namedSkippedLines;

/** Reads a mock log back, every record whole (`cai report`-like readers, tests). Streams; a missing file is empty. */
export async function readMockLog(path: string): Promise<LoadedLog> {
  const records: MockLogRecord[] = [];
  const skipped = await scanLog(
    path,
    (line) => parseRecord(line),
    (record) => records.push(record),
  );
  return { records, skippedLines: skipped.count, skippedLineNumbers: skipped.numbers };
}

/** What a restart needs of a record (dedupe): the fields before its headers. */
export type MockLogHead = Pick<
  MockLogRecord,
  'v' | 'space' | 'interface' | 'verdict' | 'event_id' | 'provider_job_id' | 'assigned_number_e164'
>;

/**
 * Reads a mock log back for a restart, keeping only each record's head: the document is not parsed (the head is
 * a prefix of the line, checked complete by the body length it declares), so a million records take seconds
 * and no more memory than what `onRecord` keeps. Streams; a missing file is empty. Returns the skipped lines.
 */
export async function scanMockLog(path: string, onRecord: (head: MockLogHead) => void): Promise<SkippedLines> {
  // A mock's log is opened without blocking and refused unless it is a regular file (./log-file.ts).
  let handle: FileHandle;
  try {
    handle = await openRegular(path, constants.O_RDONLY);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { count: 0, numbers: [] };
    throw error;
  }
  try {
    return await scanLog(handle, (line) => headOf(line) ?? parseRecord(line), onRecord);
  } finally {
    await handle.close();
  }
}

async function scanLog<T>(
  source: string | FileHandle,
  parse: (line: Buffer) => T | undefined,
  onRecord: (record: T) => void,
): Promise<SkippedLines> {
  const skipped: SkippedLines = { count: 0, numbers: [] };
  try {
    await forEachRecordLine(source, parse, {
      onRecord,
      onSkipped(number, _line, recovered) {
        skipped.count += 1;
        if (skipped.numbers.length < MAX_NAMED_LINES) skipped.numbers.push(number);
        if (recovered !== undefined) onRecord(recovered);
      },
    });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { count: 0, numbers: [] };
    throw error;
  }
  return skipped;
}

/** What a reader of a log does with each of its lines: a record, or a line that is not one. */
export interface RecordLineHandlers<T> {
  /** A line that is a record; false stops the reading. */
  onRecord(record: T, number: number): boolean | void;
  /**
   * A line that is not a record (`line` empty when it was over the bound), with the complete record a torn write
   * was glued to, when it was (a crash with two writes in flight, before the log wrote one batch at a time): the
   * reader counts that record too. False stops the reading.
   */
  onSkipped(number: number, line: Buffer, recovered: T | undefined): boolean | void;
}

/**
 * The one reader of a mock's log, line by line: blank lines skipped, every other line a record by `parse` or a
 * line that is not one, with the record glued after a torn one recovered. `cai mock`'s reload and `cai report`
 * read through it, each with its own parse.
 */
export async function forEachRecordLine<T>(
  source: string | FileHandle | AsyncIterable<Buffer | string>,
  parse: (line: Buffer) => T | undefined,
  handlers: RecordLineHandlers<T>,
  options: LineOptions = {},
): Promise<void> {
  // Never read as one string (V8 caps a string at 512 MiB; a log passes that near 700 000 records). A file opened
  // already (a mock's log, opened without blocking and checked regular) is read from its descriptor.
  const stream =
    typeof source === 'string'
      ? createReadStream(source, { highWaterMark: CHUNK_BYTES })
      : 'createReadStream' in source
        ? source.createReadStream({ highWaterMark: CHUNK_BYTES, autoClose: false })
        : source;
  const reading = { stopAtOversize: options.stopAtOversize, keepTailBytes: CUT_TAIL_BYTES };
  // A batch of lines per chunk read: one await per chunk, not per line (a tenth of `cai report` went to them).
  for await (const batch of readNdjsonBatches(stream, MAX_LINE_BYTES, reading)) {
    for (const { bytes, number, oversize, tail } of batch) {
      if (oversize && options.stopAtOversize) throw new LineTooLong(number);
      if (!oversize && isBlankLine(bytes)) continue;
      const record = oversize ? undefined : parse(bytes);
      const recovered =
        record !== undefined ? undefined : oversize ? recover(tail ?? bytes, parse, 0) : recover(bytes, parse, 1);
      const goOn =
        record !== undefined ? handlers.onRecord(record, number) : handlers.onSkipped(number, bytes, recovered);
      if (goOn === false) return;
    }
  }
}

const RECORD_START_BYTES = Buffer.from(RECORD_START);

/** The last complete record that starts at `from` or later in a line (the end of a cut line: from 0). */
function recover<T>(line: Buffer, parse: (line: Buffer) => T | undefined, from: number): T | undefined {
  for (
    let at = line.lastIndexOf(RECORD_START_BYTES);
    at >= from;
    at = at === 0 ? -1 : line.lastIndexOf(RECORD_START_BYTES, at - 1)
  ) {
    const record = parse(line.subarray(at));
    if (record !== undefined) return record;
  }
  return undefined;
}

function parseRecord(line: Buffer): MockLogRecord | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return isLogRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const HEADERS_KEY = Buffer.from(',"headers":');
const DOCUMENT_KEY = Buffer.from(',"document":');
const BASE64_KEY = Buffer.from(',"body_base64":"');
// In a head, the first `"event_id":"` is the key: a quote inside a JSON string is always escaped.
const EVENT_ID_KEY = '"event_id":"';
/** A JSON string's text, without its quotes. */
const STRING = String.raw`(?:[^"\\]|\\.)*`;
/**
 * The head of an Interface B record exactly as recordLine writes it (keys in this order, values as
 * JSON.stringify writes them): read by a regular expression, several times faster than JSON.parse.
 */
const EVENT_HEAD = new RegExp(
  String.raw`^\{"v":1,"received_at":"${STRING}","space":"(live|test)","interface":"B","kind":"event","status":202,"verdict":"(accepted|duplicate)","provider_code":"${STRING}","event_id":"(${STRING})"` +
    String.raw`(?:,"(?:event|lead_id)":"${STRING}")*(?:,"lead_known":(?:true|false))?,"body_bytes":([0-9]{1,9})$`,
);

/**
 * The head of a line this module wrote (recordLine), read without its headers and document; undefined for
 * anything else (an older record without body_bytes, a foreign or torn line), which is then parsed whole.
 * Complete means: the line is exactly as long as its head says (the document, then the base64 when present),
 * and no other record starts inside it (a torn record glued to the next one is exactly that).
 */
function headOf(line: Buffer): MockLogHead | undefined {
  const cut = line.indexOf(HEADERS_KEY);
  if (cut === -1 || line.indexOf(RECORD_START_BYTES, 1) !== -1) return undefined;
  const text = line.toString('utf8', 0, cut);
  const head = eventHead(text, line, cut) ?? parsedHead(text);
  if (head === undefined) return undefined;
  const documentAt = line.indexOf(DOCUMENT_KEY, cut);
  return documentAt !== -1 && endsAfter(line, documentAt + DOCUMENT_KEY.length + head.bytes, head.bytes)
    ? head.head
    : undefined;
}

function eventHead(text: string, line: Buffer, cut: number): { head: MockLogHead; bytes: number } | undefined {
  const match = EVENT_HEAD.exec(text);
  if (!match) return undefined;
  const [, space, verdict, id, bytes] = match as unknown as [
    string,
    'live' | 'test',
    'accepted' | 'duplicate',
    string,
    string,
  ];
  // The id is kept for as long as the mock runs: decoded afresh (from the bytes, when every character of the
  // head is one byte), not as a slice of the head text, which would keep all of it alive.
  const from = text.indexOf(EVENT_ID_KEY) + EVENT_ID_KEY.length;
  const plain = !id.includes('\\') && text.length === cut;
  const eventId = plain ? line.toString('latin1', from, from + id.length) : (JSON.parse(`"${id}"`) as string);
  return { head: { v: 1, space, interface: 'B', verdict, event_id: eventId }, bytes: Number(bytes) };
}

function parsedHead(text: string): { head: MockLogHead; bytes: number } | undefined {
  if (!text.startsWith(RECORD_START)) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(`${text}}`);
  } catch {
    return undefined;
  }
  return isLogRecord(head) && typeof head.body_bytes === 'number' ? { head, bytes: head.body_bytes } : undefined;
}

/** Whether a line whose document ends at `documentEnd` ends there (`}`), or after the base64 of its body. */
function endsAfter(line: Buffer, documentEnd: number, bodyBytes: number): boolean {
  if (line.length === documentEnd + 1) return line[documentEnd] === 0x7d;
  const base64End = documentEnd + BASE64_KEY.length + 4 * Math.ceil(bodyBytes / 3);
  return (
    line.length === base64End + 2 &&
    line.subarray(documentEnd, documentEnd + BASE64_KEY.length).equals(BASE64_KEY) &&
    line[base64End] === 0x22 &&
    line[base64End + 1] === 0x7d
  );
}
