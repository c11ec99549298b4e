import { constants } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { CaiError, errnoCode, errorMessage, usageError } from '../errors.js';
import type { InterfaceId } from '../spec/constants.js';

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
  headers: Record<string, string>;
  document: unknown;
}

export const MOCK_LOG_VERSION = 1;

/** Synced writes of the log running at once (see startWrites). */
const WRITES_IN_FLIGHT = 2;
/** How every record line starts (JSON.stringify of a MockLogRecord): where a torn line's next record begins. */
const RECORD_START = '{"v":1,"received_at":';

/**
 * Append-only NDJSON log with group commit: records handed in while a synced write is under way are batched
 * into the next one, so N concurrent requests cost one disk sync, not N. `append` resolves only once the record
 * is on disk, which is what lets a mock answer 202 afterwards (issue 5: nothing acknowledged is lost to SIGKILL).
 */
export class DurableLog {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private drained: (() => void)[] = [];
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
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
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC, 0o644);
    return new DurableLog(handle, path);
  }

  /** Resolves when the record is written and synced. */
  append(record: MockLogRecord): Promise<void> {
    return this.appendLine(JSON.stringify(record) + '\n');
  }

  /**
   * Appends a record whose `document` is the request body exactly as received: when the body is one line of
   * JSON (no newline byte), it is spliced in rather than parsed and serialised again (the platform's hot path).
   */
  appendWithRawDocument(record: Omit<MockLogRecord, 'document'>, rawDocument: Buffer): Promise<void> {
    if (rawDocument.includes(0x0a) || rawDocument.includes(0x0d)) {
      return this.append({ ...record, document: JSON.parse(rawDocument.toString('utf8')) as unknown });
    }
    const head = JSON.stringify(record);
    return this.appendLine(`${head.slice(0, -1)},"document":${rawDocument.toString('utf8')}}\n`);
  }

  private appendLine(line: string): Promise<void> {
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
   * one (readMockLog recovers the records after it).
   */
  private startWrites(): void {
    while (this.inFlight < WRITES_IN_FLIGHT && this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      this.inFlight += 1;
      void this.writeBatch(lines, waiters).then(() => {
        this.inFlight -= 1;
        this.startWrites();
        if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve());
      });
    }
  }

  private async writeBatch(lines: string[], waiters: { resolve: () => void; reject: (error: unknown) => void }[]): Promise<void> {
    try {
      const bytes = Buffer.from(lines.length === 1 ? (lines[0] as string) : lines.join(''), 'utf8');
      let offset = 0;
      while (offset < bytes.length) offset += (await this.handle.write(bytes, offset)).bytesWritten;
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
    }
  }

  /** Waits for every appended record to reach the disk, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    await this.handle.close();
  }
}

export interface LoadedLog {
  records: MockLogRecord[];
  /** Lines that are not a log record (e.g. a line torn by a crash); kept in the file, ignored here. */
  skippedLines: number;
}

/** Reads a mock log back (restart: the dedupe set; `cai report`). A missing file is an empty log. */
export async function readMockLog(path: string): Promise<LoadedLog> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { records: [], skippedLines: 0 };
    throw error;
  }
  const records: MockLogRecord[] = [];
  let skippedLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const record = parseRecord(line);
    if (record) {
      records.push(record);
      continue;
    }
    // A torn write (a crash) glued to the complete record written after it: keep that record.
    skippedLines += 1;
    const recovered = recoverRecord(line);
    if (recovered) records.push(recovered);
  }
  return { records, skippedLines };
}

function parseRecord(text: string): MockLogRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isLogRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function recoverRecord(line: string): MockLogRecord | undefined {
  for (let at = line.lastIndexOf(RECORD_START); at > 0; at = line.lastIndexOf(RECORD_START, at - 1)) {
    const record = parseRecord(line.slice(at));
    if (record) return record;
  }
  return undefined;
}

function isLogRecord(value: unknown): value is MockLogRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return record.v === MOCK_LOG_VERSION && typeof record.event_id === 'string' && typeof record.verdict === 'string';
}

/** A log opened for a mock: the records already in it, and the file open for appending. */
export interface OpenedLog {
  loaded: LoadedLog;
  log: DurableLog;
}

/** Reads a mock's `--log` back and opens it for appending; an unusable path is a usage error (exit 2). */
export async function openMockLog(path: string): Promise<OpenedLog> {
  try {
    const loaded = await readMockLog(path);
    // Lines, none of them a record: the wrong file (a typo, a document); never append records to it.
    if (loaded.records.length === 0 && loaded.skippedLines > 0) {
      throw usageError('bad_log', `${path} is not a mock log: ${loaded.skippedLines} ${loaded.skippedLines === 1 ? 'line' : 'lines'}, none a record; cai will not append to it`, 'pass --log a new file (it is created), or a log a cai mock wrote');
    }
    return { loaded, log: await DurableLog.open(path) };
  } catch (error) {
    if (error instanceof CaiError) throw error;
    throw usageError('bad_log', `cannot use the log ${path}: ${errorMessage(error)}`, 'pass --log a writable file path (it is created when missing)', error);
  }
}

/** The durable log could not be written: the request is answered 503 and not acknowledged (the sender retries). */
export class LogWriteError extends Error {}
