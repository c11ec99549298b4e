import { errorMessage } from '../errors.js';
import { LogWriteError, openMockLog, type DurableLog, type MockLogHead, type MockLogRecord, type MockLogRecordHead } from './log.js';

/** A record as the pipeline hands it over: everything but the document, which is the body as received. */
export type RecordHead = MockLogRecordHead;

/**
 * Where a reference receiver keeps what it acknowledged: the records in memory (`records`, unless
 * `keepRecords: false`) and the durable log (`--log`), read back on start for dedupe.
 */
export class RecordStore {
  readonly records: MockLogRecord[] = [];
  /** Lines of the log that were not records (a line torn by a crash, foreign text), skipped on reload. */
  skippedLines = 0;

  private constructor(
    private readonly keepRecords: boolean,
    private readonly log: DurableLog | undefined,
  ) {}

  /** Opens the log (when given), handing the head of each record already in it to `reload`, in order. */
  static async open(options: { logFile?: string; keepRecords?: boolean }, reload: (head: MockLogHead) => void): Promise<RecordStore> {
    if (options.logFile === undefined) return new RecordStore(options.keepRecords !== false, undefined);
    const opened = await openMockLog(options.logFile, reload);
    const store = new RecordStore(options.keepRecords !== false, opened.log);
    store.skippedLines = opened.skippedLines;
    return store;
  }

  /** Keeps the record and appends it to the log with the body as received; resolves once it is on disk. */
  async persist(head: RecordHead, document: unknown, body: Buffer): Promise<void> {
    if (this.keepRecords) this.records.push({ ...head, body_bytes: body.length, document });
    if (!this.log) return;
    try {
      await this.log.appendWithRawDocument(head, body);
    } catch (error) {
      throw new LogWriteError(`the log ${this.log.path} could not be written: ${errorMessage(error)}`);
    }
  }

  /** Flushes and closes the log. */
  async close(): Promise<void> {
    await this.log?.close();
  }
}
