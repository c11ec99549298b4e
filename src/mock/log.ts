import { close as closeFd, constants, fdatasync, fstatSync, ftruncateSync, open as openFd, write as writeFd, writeSync } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MOCK_LOG_CAPS } from '../bounds.js';
import { CaiError, errnoCode, errorMessage, usageError } from '../errors.js';
import { LogLock } from './log-lock.js';
import type { InterfaceId } from '../spec/constants.js';
import { forEachLine } from './log-lines.js';

/**
 * One line of the mock log (docs/mock-log.md): NDJSON, appended before the 202 is answered (written, and synced
 * to disk as the fsync mode says), read back by the mocks on restart (dedupe) and by `cai report`.
 */
export interface MockLogRecord {
  v: 1;
  received_at: string;
  space: 'live' | 'test';
  interface: InterfaceId;
  kind: 'event' | 'job';
  status: number;
  verdict: 'accepted' | 'duplicate';
  provider_code: string;
  event_id: string;
  event?: string;
  lead_id?: string;
  /** §6.3: present on Interface B records when a lead registry was given; false = logged for reconciliation. */
  lead_known?: boolean;
  /** Interface A only. */
  branch_code?: string;
  provider_job_id?: string;
  assigned_number_e164?: string;
  /** The byte length of the body as received (records written by the mocks since issue 14; absent before). */
  body_bytes?: number;
  headers: Record<string, string>;
  /**
   * The body as received, spliced in unchanged. JSON allows CR and LF only as whitespace between tokens; where
   * the body had them, the document has a space at each (the same JSON value, the same length, one line).
   */
  document: unknown;
  /** Only when the body had CR or LF bytes: its exact bytes, base64 (§5.2: what the signature covers). */
  body_base64?: string;
}

/** The fields of a record a mock writes before the document: everything but the body and its derivatives. */
export type MockLogRecordHead = Omit<MockLogRecord, 'document' | 'body_bytes' | 'body_base64'>;

export const MOCK_LOG_VERSION = 1;

/** How every record line starts (JSON.stringify of a MockLogRecord): where a torn line's next record begins. */
const RECORD_START = '{"v":1,"received_at":';

/**
 * The line of a record whose document is `body`, as received (never parsed and serialised again: a deeply
 * nested body cannot overflow anything, and the bytes the signature covers are kept). `body` must be one JSON
 * value, as the receive pipeline guarantees (it stores only what parsed).
 */
export function recordLine(record: MockLogRecordHead, body: Buffer): string {
  return recordBytes(record, body).toString('utf8');
}

/**
 * recordLine's bytes, built without decoding the body (the receive pipeline checked it is UTF-8, so its text
 * encodes back to the same bytes): the head, the body as received, then the end of the line.
 */
export function recordBytes(record: MockLogRecordHead, body: Buffer): Buffer {
  const breaks = body.includes(0x0a) || body.includes(0x0d);
  // The head encoded straight into the line: one buffer a record, not two.
  const head = `${headText(record, body.length)},"document":`;
  const headBytes = Buffer.byteLength(head, 'utf8');
  const tail = breaks ? `,"body_base64":"${body.toString('base64')}"}\n` : '}\n';
  const line = Buffer.allocUnsafe(headBytes + body.length + tail.length);
  line.write(head, 0, headBytes, 'utf8');
  if (breaks) spacesForLineBreaks(body).copy(line, headBytes);
  else body.copy(line, headBytes);
  line.write(tail, headBytes + body.length, 'latin1');
  return line;
}

/**
 * The record without its closing brace, `body_bytes` and then `headers` last (where a restart stops reading).
 * Spliced into JSON.stringify's text when `headers` is its last key already (the receivers' records): `headers`
 * is the one field whose value is an object, so the text ends `}}` exactly then, and its first `,"headers":` is
 * that key, as a quote inside a string is escaped.
 */
function headText(record: MockLogRecordHead, bodyBytes: number): string {
  const json = JSON.stringify(record);
  if (json.charCodeAt(json.length - 2) === CLOSING_BRACE) {
    const at = json.indexOf(HEADERS_TEXT);
    return `${json.slice(0, at)},"body_bytes":${bodyBytes}${json.slice(at, -1)}`;
  }
  const { headers, ...fields } = record;
  return JSON.stringify({ ...fields, body_bytes: bodyBytes, headers }).slice(0, -1);
}

const CLOSING_BRACE = 0x7d;
const HEADERS_TEXT = ',"headers":';

function spacesForLineBreaks(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  for (let i = 0; i < copy.length; i += 1) if (copy[i] === 0x0a || copy[i] === 0x0d) copy[i] = 0x20;
  return copy;
}

/** An append waiting for its batch's write. */
interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * When the log reaches the disk (like Redis's `appendfsync`):
 * - `always`: a record is acknowledged once it is on disk (each write with O_DSYNC, records batched by group
 *   commit); nothing acknowledged is lost, even when the machine fails;
 * - `everysec`: once it is written to the file (write(2) returned), and the file is synced about once a second:
 *   an acknowledged record survives the mock being killed at any moment (it is in the kernel's page cache), and
 *   at most the last second of them is at risk if the machine itself fails;
 * - `never`: once it is written to the file; cai never syncs it (the kernel writes it back in its own time).
 */
export type FsyncMode = 'always' | 'everysec' | 'never';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'everysec', 'never'];
export const DEFAULT_FSYNC: FsyncMode = 'everysec';
/** `everysec`: how often the file is synced when something was written since the last sync. */
const SYNC_INTERVAL_MS = MOCK_LOG_CAPS.syncIntervalMs;

/** The bytes of one write: a line to end a torn fragment first (when there is one), then the records. */
interface Batch {
  bytes: Buffer;
  /** The end of each record in `bytes`, in order (the first after the prefix). */
  ends: number[];
  /** 1 when the batch starts with the newline that ends a torn fragment, else 0. */
  prefix: number;
  waiters: Waiter[];
}

/** The newline that ends a torn fragment (see DurableLog.torn). */
const NEWLINE = Buffer.from('\n');

export interface DurableLogOptions {
  /** When records reach the disk (default `everysec`). */
  fsync?: FsyncMode;
  /** Released when the log is closed (openMockLog takes it). */
  lock?: LogLock;
}

/**
 * Append-only NDJSON log with group commit: records handed in while a write is under way are batched into the
 * next one, so N concurrent requests cost one write (and with `always`, one disk sync), not N. `append` resolves
 * once the record is as durable as the fsync mode promises, which is what lets a mock answer 202 afterwards
 * (nothing acknowledged is lost to SIGKILL, in every mode).
 *
 * One write runs at a time, so the log always knows where its file ends and where each record of a batch lies:
 * with `always`, a synced write on the thread pool (the event loop never waits for the disk), taking every record
 * that arrived while the previous one ran; with `everysec` and `never`, a plain write by the event loop at the end
 * of each of its turns, taking the records of that turn.
 * A write that fails part-way (a full disk: ENOSPC, EFBIG; EIO) settles its batch record by record: a record
 * written whole before the failure is acknowledged (it is in the file, and with `always` on disk: a retry of it
 * must be a duplicate), every other one is refused (never answered 202, never remembered for dedupe: a retry of
 * it is new, once). A record cut by the failure is a torn fragment: the next write starts with a newline, so the
 * fragment is a line of its own that the readers skip and name, and no later record is glued to it.
 */
export class DurableLog {
  private pending: Buffer[] = [];
  private waiters: Waiter[] = [];
  private writing = false;
  private drained: (() => void)[] = [];
  private closed = false;
  private closing: Promise<void> | undefined;
  /** The file ends inside a record (a write failed part-way): the next write starts with a newline. */
  private torn = false;
  /** `everysec`: bytes written since the last sync began; the sync running; the last one's failure. */
  private dirty = false;
  private syncing: Promise<void> | undefined;
  private syncFailure: unknown;
  private readonly timer: NodeJS.Timeout | undefined;
  /** `everysec`, `never`: the write at the end of this turn of the event loop, once a record waits for it. */
  private turn: NodeJS.Immediate | undefined;

  /**
   * A plain descriptor written with fs.write's callback: a FileHandle's promise write costs the event loop about
   * twice as much per call (bench/mock-platform.bench.js), on the path of every acknowledged event.
   */
  private constructor(
    private readonly fd: number,
    readonly path: string,
    /** Where the file ends, as far as this log's writes know (its size when opened, plus what was written). */
    private end: number,
    readonly fsync: FsyncMode,
    private readonly lock: LogLock | undefined,
  ) {
    if (fsync === 'everysec') {
      this.timer = setInterval(() => void this.sync(), SYNC_INTERVAL_MS);
      // The timer alone never keeps a process alive: close() syncs the rest.
      this.timer.unref();
    }
  }

  /** Opens (creating) the log for appending; a torn last line left by a crash is terminated first. */
  static async open(path: string, options: DurableLogOptions = {}): Promise<DurableLog> {
    const fsync = options.fsync ?? DEFAULT_FSYNC;
    const check = await open(path, 'a+');
    let size: number;
    try {
      size = (await check.stat()).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await check.read(last, 0, 1, size - 1);
        // A crash mid-write leaves a partial line (never an acknowledged one: those were written whole).
        // Ending it keeps the next record parseable; the partial line itself is kept, not silently dropped.
        if (last[0] !== 0x0a) {
          await check.write('\n');
          if (fsync !== 'never') await check.datasync();
          size += 1;
        }
      }
    } finally {
      await check.close();
    }
    // always: O_DSYNC, each write returns only once its data (and the size needed to read it back) is on disk,
    // the same guarantee as write + fdatasync in one system call instead of two.
    // A descriptor, not a FileHandle: a FileHandle left unclosed is closed when it is garbage collected.
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (fsync === 'always' ? constants.O_DSYNC : 0);
    const fd = await new Promise<number>((resolve, reject) => openFd(path, flags, 0o644, (error, opened) => (error ? reject(error) : resolve(opened))));
    return new DurableLog(fd, path, size, fsync, options.lock);
  }

  /** Resolves when the record (serialised whole, document included) is written (and synced, per the mode). */
  append(record: MockLogRecord): Promise<void> {
    return this.appendLine(Buffer.from(JSON.stringify(record) + '\n', 'utf8'));
  }

  /** Appends a record whose document is the request body exactly as received (see recordLine). */
  appendWithRawDocument(record: MockLogRecordHead, body: Buffer): Promise<void> {
    return this.appendLine(recordBytes(record, body));
  }

  private appendLine(line: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the mock log is closed'));
    // everysec: what was acknowledged since the last good sync may not reach the disk; nothing more is
    // acknowledged until a sync succeeds (the timer retries every second).
    if (this.syncFailure !== undefined) return Promise.reject(new Error(`the log could not be synced to disk: ${errorMessage(this.syncFailure)}`));
    this.pending.push(line);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.fsync === 'always') this.startWrite();
      else if (this.turn === undefined) this.turn = setImmediate(this.writeTurn);
    });
  }

  /**
   * `everysec`, `never`: the records of one turn of the event loop, written at its end by the event loop itself.
   * A write to the page cache takes microseconds; handing it to the thread pool cost the event loop more than
   * that per batch, and batches of one turn are larger than "whatever came while the last write ran".
   */
  private readonly writeTurn = (): void => {
    this.turn = undefined;
    const batch = this.takeBatch();
    if (batch === undefined) return;
    let written = 0;
    try {
      while (written < batch.bytes.length) written += writeSync(this.fd, batch.bytes, written, batch.bytes.length - written, null);
    } catch (error) {
      return this.failBatch(batch, written, error);
    }
    this.settleBatch(batch, written, undefined);
  };

  /** `always`: when no write runs, one starts with every record that arrived meanwhile (group commit). */
  private startWrite(): void {
    if (this.writing) return;
    const batch = this.takeBatch();
    if (batch !== undefined) this.writeBatch(batch, 0);
  }

  /** The records waiting, as one write (after a newline when the file ends inside a torn record). */
  private takeBatch(): Batch | undefined {
    if (this.pending.length === 0) return undefined;
    const lines = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    this.writing = true;
    const prefix = this.torn ? 1 : 0;
    const ends: number[] = [];
    let length = prefix;
    for (const line of lines) ends.push((length += line.length));
    const parts = prefix ? [NEWLINE, ...lines] : lines;
    const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
    return { bytes, ends, prefix, waiters };
  }

  /** Writes the batch from `offset` on (a short write goes on from where it stopped), then settles it. */
  private writeBatch(batch: Batch, offset: number): void {
    const { bytes } = batch;
    try {
      writeFd(this.fd, bytes, offset, bytes.length - offset, null, (error, written) => {
        if (error) this.failBatch(batch, offset, error);
        else if (offset + written < bytes.length) this.writeBatch(batch, offset + written);
        else this.settleBatch(batch, bytes.length, undefined);
      });
    } catch (error) {
      // fs.write validates its arguments synchronously: whatever it throws fails the batch, never strands it.
      this.failBatch(batch, offset, error);
    }
  }

  /**
   * A write failed after `written` bytes of the batch. Should the file hold more of it than write(2) reported
   * (an I/O error can leave bytes behind), it is cut back to that, so that no record refused can be read back.
   */
  private failBatch(batch: Batch, written: number, error: unknown): void {
    const reported = this.end + written;
    try {
      // Synchronous: a rare path, and nothing may be written meanwhile.
      if (fstatSync(this.fd).size > reported) ftruncateSync(this.fd, reported);
    } catch {
      // The file cannot even be measured: what was reported is all this log can go by.
    }
    this.settleBatch(batch, written, error);
  }

  /**
   * Each record written whole (`written` bytes of the batch reached the file) resolved, the others rejected with
   * the error; the file is torn when the bytes written end inside a record. Then the next batch starts.
   */
  private settleBatch(batch: Batch, written: number, error: unknown): void {
    const { ends, waiters } = batch;
    let whole = 0;
    while (whole < ends.length && (ends[whole] as number) <= written) whole += 1;
    if (written > 0) {
      this.end += written;
      this.dirty = true;
      this.torn = written !== (whole > 0 ? ends[whole - 1] : batch.prefix);
    }
    for (let i = 0; i < waiters.length; i += 1) {
      const waiter = waiters[i] as Waiter;
      if (i < whole) waiter.resolve();
      else waiter.reject(error);
    }
    this.writing = false;
    if (this.fsync === 'always') this.startWrite();
    if (!this.writing) this.drained.splice(0).forEach((resolve) => resolve());
  }

  /**
   * `everysec`: syncs the file when something was written since the last sync (one sync at a time). A sync that
   * fails stops acknowledgments until one succeeds (see appendLine); its error is kept for them.
   */
  private sync(): Promise<void> {
    if (this.syncing !== undefined || !this.dirty) return this.syncing ?? Promise.resolve();
    this.dirty = false;
    this.syncing = new Promise<void>((resolve) =>
      fdatasync(this.fd, (error) => {
        this.syncing = undefined;
        this.syncFailure = error ?? undefined;
        if (error) this.dirty = true;
        resolve();
      }),
    );
    return this.syncing;
  }

  /**
   * Waits for every appended record to be written, syncs the file (`always`: already; `everysec`: now; `never`:
   * not), closes it and releases the lock. Idempotent: the descriptor is closed once.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.turn !== undefined) {
        clearImmediate(this.turn);
        this.writeTurn();
      }
      if (this.writing) await new Promise<void>((resolve) => this.drained.push(resolve));
      if (this.timer !== undefined) {
        clearInterval(this.timer);
        await this.syncing;
        await this.sync();
      }
      await new Promise<void>((resolve, reject) => closeFd(this.fd, (error) => (error ? reject(error) : resolve())));
      await this.lock?.release();
    })();
    return this.closing;
  }
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
  const skipped = await scanLog(path, (line) => parseRecord(line), (record) => records.push(record));
  return { records, skippedLines: skipped.count, skippedLineNumbers: skipped.numbers };
}

/** What a restart needs of a record (dedupe): the fields before its headers. */
export type MockLogHead = Pick<MockLogRecord, 'v' | 'space' | 'interface' | 'verdict' | 'event_id' | 'provider_job_id' | 'assigned_number_e164'>;

/**
 * Reads a mock log back for a restart, keeping only each record's head: the document is not parsed (the head is
 * a prefix of the line, checked complete by the body length it declares), so a million records take seconds
 * and no more memory than what `onRecord` keeps. Streams; a missing file is empty. Returns the skipped lines.
 */
export function scanMockLog(path: string, onRecord: (head: MockLogHead) => void): Promise<SkippedLines> {
  return scanLog(path, (line) => headOf(line) ?? parseRecord(line), onRecord);
}

async function scanLog<T>(path: string, parse: (line: Buffer) => T | undefined, onRecord: (record: T) => void): Promise<SkippedLines> {
  const skipped: SkippedLines = { count: 0, numbers: [] };
  let number = 0;
  try {
    await forEachLine(path, (line, cutTail) => {
      number += 1;
      if (cutTail === undefined && isBlank(line)) return;
      const record = cutTail === undefined ? parse(line) : undefined;
      if (record !== undefined) return onRecord(record);
      skipped.count += 1;
      if (skipped.numbers.length < MAX_NAMED_LINES) skipped.numbers.push(number);
      // A torn write glued to the complete record written after it (a crash with an older cai): keep that record.
      const recovered = cutTail === undefined ? recover(line, parse, 1) : recover(cutTail, parse, 0);
      if (recovered !== undefined) onRecord(recovered);
    });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { count: 0, numbers: [] };
    throw error;
  }
  return skipped;
}

function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}

const RECORD_START_BYTES = Buffer.from(RECORD_START);

/** The last complete record that starts at `from` or later in a line (the end of a cut line: from 0). */
function recover<T>(line: Buffer, parse: (line: Buffer) => T | undefined, from: number): T | undefined {
  for (let at = line.lastIndexOf(RECORD_START_BYTES); at >= from; at = at === 0 ? -1 : line.lastIndexOf(RECORD_START_BYTES, at - 1)) {
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
  return documentAt !== -1 && endsAfter(line, documentAt + DOCUMENT_KEY.length + head.bytes, head.bytes) ? head.head : undefined;
}

function eventHead(text: string, line: Buffer, cut: number): { head: MockLogHead; bytes: number } | undefined {
  const match = EVENT_HEAD.exec(text);
  if (!match) return undefined;
  const [, space, verdict, id, bytes] = match as unknown as [string, 'live' | 'test', 'accepted' | 'duplicate', string, string];
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

function isLogRecord(value: unknown): value is MockLogRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return record.v === MOCK_LOG_VERSION && typeof record.event_id === 'string' && typeof record.verdict === 'string';
}

/** A mock's log, open for appending, and what its reload skipped. */
export interface OpenedMockLog {
  log: DurableLog;
  skipped: SkippedLines;
}

/**
 * Locks a mock's `--log` (one process at a time, see LogLock), reads it back (each record's head to `onRecord`)
 * and opens it for appending. A log in use, or an unusable path, is a usage error (exit 2).
 */
export async function openMockLog(path: string, onRecord: (head: MockLogHead) => void, options: { fsync?: FsyncMode } = {}): Promise<OpenedMockLog> {
  let lock: LogLock | undefined;
  try {
    lock = await LogLock.acquire(await realLogPath(path));
    let records = 0;
    const skipped = await scanMockLog(path, (head) => {
      records += 1;
      onRecord(head);
    });
    // Lines, none of them a record: the wrong file (a typo, a document); never append records to it.
    if (records === 0 && skipped.count > 0) {
      const lines = skipped.count;
      throw usageError('bad_log', `${path} is not a mock log: ${lines} ${lines === 1 ? 'line' : 'lines'}, none a record; cai will not append to it`, 'pass --log a new file (it is created), or a log a cai mock wrote');
    }
    return { skipped, log: await DurableLog.open(path, { fsync: options.fsync, lock }) };
  } catch (error) {
    await lock?.release();
    if (error instanceof CaiError) throw error;
    throw usageError('bad_log', `cannot use the log ${path}: ${errorMessage(error)}`, 'pass --log a writable file path (it is created when missing)', error);
  }
}

/** The log's real path (links resolved), so that one file has one lock however it is named; it may not exist yet. */
async function realLogPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
    return join(await realpath(dirname(path)), basename(path));
  }
}

/** The durable log could not be written: the request is answered 503 and not acknowledged (the sender retries). */
export class LogWriteError extends Error {}
