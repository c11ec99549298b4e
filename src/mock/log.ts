import { close as closeFd, constants, open as openFd, write as writeFd } from 'node:fs';
import { open } from 'node:fs/promises';
import { CaiError, errnoCode, errorMessage, usageError } from '../errors.js';
import type { InterfaceId } from '../spec/constants.js';
import { forEachLine } from './log-lines.js';

/**
 * One line of the mock log (README "The mock log"): NDJSON, appended and synced to disk (O_DSYNC) before the 202 is answered,
 * read back by the mocks on restart (dedupe) and by `cai report`.
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

/** Synced writes of the log running at once (see startWrites). */
const WRITES_IN_FLIGHT = 2;
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
  const head = Buffer.from(`${headText(record, body.length)},"document":`, 'utf8');
  const tail = breaks ? `,"body_base64":"${body.toString('base64')}"}\n` : '}\n';
  const line = Buffer.allocUnsafe(head.length + body.length + tail.length);
  head.copy(line, 0);
  if (breaks) spacesForLineBreaks(body).copy(line, head.length);
  else body.copy(line, head.length);
  line.write(tail, head.length + body.length, 'latin1');
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
 * Append-only NDJSON log with group commit: records handed in while a synced write is under way are batched
 * into the next one, so N concurrent requests cost one disk sync, not N. `append` resolves only once the record
 * is on disk, which is what lets a mock answer 202 afterwards (issue 5: nothing acknowledged is lost to SIGKILL).
 */
export class DurableLog {
  private pending: Buffer[] = [];
  private waiters: Waiter[] = [];
  private inFlight = 0;
  private drained: (() => void)[] = [];
  private closed = false;
  private closing: Promise<void> | undefined;

  /**
   * A plain descriptor written with fs.write's callback: a FileHandle's promise write costs the event loop about
   * twice as much per call (bench/mock-platform.bench.js), on the path of every acknowledged event.
   */
  private constructor(
    private readonly fd: number,
    readonly path: string,
  ) {}

  /** Opens (creating) the log for appending; a torn last line left by a crash is terminated first. */
  static async open(path: string): Promise<DurableLog> {
    const check = await open(path, 'a+');
    try {
      const { size } = await check.stat();
      if (size > 0) {
        const last = Buffer.alloc(1);
        await check.read(last, 0, 1, size - 1);
        // A crash mid-write leaves a partial line (never an acknowledged one: those were synced whole).
        // Ending it keeps the next record parseable; the partial line itself is kept, not silently dropped.
        if (last[0] !== 0x0a) {
          await check.write('\n');
          await check.datasync();
        }
      }
    } finally {
      await check.close();
    }
    // O_DSYNC: each write returns only once its data (and the size needed to read it back) is on disk,
    // the same guarantee as write + fdatasync in one system call instead of two.
    // A descriptor, not a FileHandle: a FileHandle left unclosed is closed when it is garbage collected.
    const fd = await new Promise<number>((resolve, reject) =>
      openFd(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC, 0o644, (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    return new DurableLog(fd, path);
  }

  /** Resolves when the record (serialised whole, document included) is written and synced. */
  append(record: MockLogRecord): Promise<void> {
    return this.appendLine(Buffer.from(JSON.stringify(record) + '\n', 'utf8'));
  }

  /** Appends a record whose document is the request body exactly as received (see recordLine). */
  appendWithRawDocument(record: MockLogRecordHead, body: Buffer): Promise<void> {
    return this.appendLine(recordBytes(record, body));
  }

  private appendLine(line: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the mock log is closed'));
    this.pending.push(line);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.startWrites();
    });
  }

  /**
   * Group commit, pipelined: up to WRITES_IN_FLIGHT synced writes run at once, each taking every record that
   * arrived before it started. A record waits for one sync, not for the one in progress and then its own.
   * O_APPEND places each write whole after the previous ones; across two writes in flight the order of the
   * batches in the file may differ from their arrival, and a crash can leave a torn batch before a complete
   * one (the readers recover the records after it).
   */
  private startWrites(): void {
    while (this.inFlight < WRITES_IN_FLIGHT && this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      this.inFlight += 1;
      this.writeBatch(lines.length === 1 ? (lines[0] as Buffer) : Buffer.concat(lines), 0, waiters);
    }
  }

  /** Writes `bytes` from `offset` on (a short write goes on from where it stopped), then settles the batch. */
  private writeBatch(bytes: Buffer, offset: number, waiters: Waiter[]): void {
    try {
      writeFd(this.fd, bytes, offset, bytes.length - offset, null, (error, written) => {
        if (!error && offset + written < bytes.length) this.writeBatch(bytes, offset + written, waiters);
        else this.settleBatch(waiters, error ?? undefined);
      });
    } catch (error) {
      // fs.write validates its arguments synchronously: whatever it throws fails the batch, never strands it.
      this.settleBatch(waiters, error);
    }
  }

  /** Each append of a batch resolved (its bytes are on disk) or rejected with the write's error; the next batch starts. */
  private settleBatch(waiters: Waiter[], error: unknown): void {
    if (error !== undefined) for (const waiter of waiters) waiter.reject(error);
    else for (const waiter of waiters) waiter.resolve();
    this.inFlight -= 1;
    this.startWrites();
    if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve());
  }

  /** Waits for every appended record to reach the disk, then closes the file. Idempotent: the descriptor is closed once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.inFlight > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      await new Promise<void>((resolve, reject) => closeFd(this.fd, (error) => (error ? reject(error) : resolve())));
    })();
    return this.closing;
  }
}

export interface LoadedLog {
  records: MockLogRecord[];
  /** Lines that are not a log record (e.g. a line torn by a crash); kept in the file, ignored here. */
  skippedLines: number;
}

/** Reads a mock log back, every record whole (`cai report`-like readers, tests). Streams; a missing file is empty. */
export async function readMockLog(path: string): Promise<LoadedLog> {
  const records: MockLogRecord[] = [];
  const skippedLines = await scanLog(path, (line) => parseRecord(line), (record) => records.push(record));
  return { records, skippedLines };
}

/** What a restart needs of a record (dedupe): the fields before its headers. */
export type MockLogHead = Pick<MockLogRecord, 'v' | 'space' | 'interface' | 'verdict' | 'event_id' | 'provider_job_id' | 'assigned_number_e164'>;

/**
 * Reads a mock log back for a restart, keeping only each record's head: the document is not parsed (the head is
 * a prefix of the line, checked complete by the body length it declares), so a million records take seconds
 * and no more memory than what `onRecord` keeps. Streams; a missing file is empty. Returns the skipped lines.
 */
export function scanMockLog(path: string, onRecord: (head: MockLogHead) => void): Promise<number> {
  return scanLog(path, (line) => headOf(line) ?? parseRecord(line), onRecord);
}

async function scanLog<T>(path: string, parse: (line: Buffer) => T | undefined, onRecord: (record: T) => void): Promise<number> {
  let skipped = 0;
  try {
    await forEachLine(path, (line, cutTail) => {
      if (cutTail === undefined && isBlank(line)) return;
      const record = cutTail === undefined ? parse(line) : undefined;
      if (record !== undefined) return onRecord(record);
      // A torn write (a crash) glued to the complete record written after it: keep that record.
      skipped += 1;
      const recovered = cutTail === undefined ? recover(line, parse, 1) : recover(cutTail, parse, 0);
      if (recovered !== undefined) onRecord(recovered);
    });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 0;
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

/** Reads a mock's `--log` back (each record's head to `onRecord`) and opens it for appending; an unusable path is a usage error (exit 2). */
export async function openMockLog(path: string, onRecord: (head: MockLogHead) => void): Promise<{ log: DurableLog; skippedLines: number }> {
  try {
    let records = 0;
    const skippedLines = await scanMockLog(path, (head) => {
      records += 1;
      onRecord(head);
    });
    // Lines, none of them a record: the wrong file (a typo, a document); never append records to it.
    if (records === 0 && skippedLines > 0) {
      throw usageError('bad_log', `${path} is not a mock log: ${skippedLines} ${skippedLines === 1 ? 'line' : 'lines'}, none a record; cai will not append to it`, 'pass --log a new file (it is created), or a log a cai mock wrote');
    }
    return { skippedLines, log: await DurableLog.open(path) };
  } catch (error) {
    if (error instanceof CaiError) throw error;
    throw usageError('bad_log', `cannot use the log ${path}: ${errorMessage(error)}`, 'pass --log a writable file path (it is created when missing)', error);
  }
}

/** The durable log could not be written: the request is answered 503 and not acknowledged (the sender retries). */
export class LogWriteError extends Error {}
