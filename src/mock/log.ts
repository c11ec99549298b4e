/**
 * A mock's log (docs/mock-log.md), in three parts: the record and its line (./log-record.ts), the appending writer
 * (./durable-log.ts), the readers (./log-read.ts). This module locks and opens a mock's log, keeps a receiver's
 * records over it (RecordStore), and is where the log's users import from.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CaiError, codedError, errnoCode, errorMessage } from '../errors.js';
import { DurableLog } from './durable-log.js';
import type { FsyncMode } from './fsync.js';
import { nonRegularAt, NotRegularFile } from './log-file.js';
import { LogLock } from './log-lock.js';
import { scanMockLog, type MockLogHead, type SkippedLines } from './log-read.js';
import type { MockLogRecord, MockLogRecordHead } from './log-record.js';

export { recordBytes, recordLine, type MockLogRecord, type MockLogRecordHead } from './log-record.js';
export { DurableLog } from './durable-log.js';
export { FSYNC_MODES, type FsyncMode } from './fsync.js';
export { readMockLog, scanMockLog, type LoadedLog, type MockLogHead } from './log-read.js';

/** A mock's log, open for appending, and what its reload skipped. */
export interface OpenedMockLog {
  log: DurableLog;
  skipped: SkippedLines;
}

/**
 * Locks a mock's `--log` (one process at a time, see LogLock), reads it back (each record's head to `onRecord`)
 * and opens it for appending. A log in use, or an unusable path, is a usage error (exit 2).
 */
export async function openMockLog(
  path: string,
  onRecord: (head: MockLogHead) => void,
  options: { fsync?: FsyncMode } = {},
): Promise<OpenedMockLog> {
  let lock: LogLock | undefined;
  try {
    // A regular file or nothing yet: anything else (a FIFO, whose open would block) is refused before it is opened.
    const kind = await nonRegularAt(path);
    if (kind !== undefined) throw new NotRegularFile(path, kind);
    lock = await LogLock.acquire(await realLogPath(path));
    let records = 0;
    const skipped = await scanMockLog(path, (head) => {
      records += 1;
      onRecord(head);
    });
    // Lines, none of them a record: the wrong file (a typo, a document); never append records to it.
    if (records === 0 && skipped.count > 0) {
      const lines = skipped.count;
      throw codedError(
        'usage',
        'bad_log',
        `${path} is not a mock log: ${lines} ${lines === 1 ? 'line' : 'lines'}, none a record; cai will not append to it`,
        { log: 'foreign' },
      );
    }
    return { skipped, log: await DurableLog.open(path, { fsync: options.fsync, lock }) };
  } catch (error) {
    await lock?.release();
    if (error instanceof CaiError) throw error;
    if (error instanceof NotRegularFile)
      throw codedError('usage', 'bad_log', `the log ${path} is not a regular file (${error.kind})`, {
        log: 'not-regular',
      });
    throw codedError(
      'usage',
      'bad_log',
      `cannot use the log ${path}: ${whyNotUsable(error, path)}`,
      { log: 'unusable' },
      error,
    );
  }
}

/** Why the log cannot be opened, in words (Node's own text names a system call and may quote another path). */
function whyNotUsable(error: unknown, path: string): string {
  const code = errnoCode(error);
  if (code === 'ENOENT') return `its directory ${dirname(path)} does not exist`;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return `${dirname(path)} is not a directory`;
  return errorMessage(error);
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

/** Where a reference receiver keeps its records (the mocks' options of the same names). */
export interface StoreOptions {
  /** The durable log (`--log`); none: records in memory only. */
  logFile?: string;
  /** When the log's records reach the disk (`--fsync`, default `everysec`). */
  fsync?: FsyncMode;
  /** Keep the records in memory too (`records`); default true. */
  keepRecords?: boolean;
}

/**
 * Where a reference receiver keeps what it acknowledged: the records in memory (`records`, unless
 * `keepRecords: false`) and the durable log (`--log`), locked for this process and read back on start for dedupe.
 */
export class RecordStore {
  readonly records: MockLogRecord[] = [];
  /** Lines of the log that were not records (a line torn by a crash or a full disk, foreign text), skipped on reload. */
  skippedLines = 0;
  /** The numbers of the first of them (see MAX_NAMED_LINES). */
  skippedLineNumbers: readonly number[] = [];

  private constructor(
    private readonly keepRecords: boolean,
    private readonly log: DurableLog | undefined,
  ) {}

  /** Opens the log (when given), handing the head of each record already in it to `reload`, in order. */
  static async open(options: StoreOptions, reload: (head: MockLogHead) => void): Promise<RecordStore> {
    if (options.logFile === undefined) return new RecordStore(options.keepRecords !== false, undefined);
    const opened = await openMockLog(options.logFile, reload, { fsync: options.fsync });
    const store = new RecordStore(options.keepRecords !== false, opened.log);
    store.skippedLines = opened.skipped.count;
    store.skippedLineNumbers = opened.skipped.numbers;
    return store;
  }

  /**
   * Appends the record to the log with the body as received, and keeps it; resolves with `value` once it is in the
   * log (as durable as the fsync mode says). A record the log could not take is not kept either: it was not received.
   */
  persist<T>(head: MockLogRecordHead, document: unknown, body: Buffer, value: T): Promise<T> {
    const keep = () => {
      if (this.keepRecords) this.records.push({ ...head, body_bytes: body.length, document });
      return value;
    };
    const log = this.log;
    if (log === undefined) return Promise.resolve(keep());
    return log.appendWithRawDocument(head, body).then(keep, (error: unknown) => {
      throw new LogWriteError(`the log ${log.path} could not be written: ${errorMessage(error)}`);
    });
  }

  /** Flushes and closes the log, and releases its lock. */
  async close(): Promise<void> {
    await this.log?.close();
  }
}
