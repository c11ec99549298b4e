import { errorMessage } from '../errors.js';
import {
  LogWriteError,
  openMockLog,
  type DurableLog,
  type FsyncMode,
  type MockLogHead,
  type MockLogRecord,
  type MockLogRecordHead,
} from './log.js';

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
