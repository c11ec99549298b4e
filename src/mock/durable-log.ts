/**
 * The writer of a mock's log (docs/mock-log.md): appends records with group commit, each acknowledged once it is as
 * durable as the fsync mode promises, so that a mock answers 202 only for what a restart will read back.
 */
import {
  close as closeFd,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  open as openFd,
  write as writeFd,
  writeSync,
} from 'node:fs';
import { MOCK_LOG_CAPS } from '../bounds.js';
import { errorMessage } from '../errors.js';
import { notRegular, NotRegularFile, openRegular } from './log-file.js';
import type { LogLock } from './log-lock.js';
import { recordBytes, type MockLogRecord, type MockLogRecordHead } from './log-record.js';
import { DEFAULT_FSYNC, type FsyncMode } from './fsync.js';
import { safeJson } from '../output/safe-text.js';

/** An append waiting for its batch's write. */
interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

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
    // Opened without blocking and refused unless a regular file (./log-file.ts): a FIFO would block every open.
    const check = await openRegular(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
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
    const flags =
      constants.O_WRONLY |
      constants.O_APPEND |
      constants.O_CREAT |
      constants.O_NONBLOCK |
      (fsync === 'always' ? constants.O_DSYNC : 0);
    const fd = await new Promise<number>((resolve, reject) =>
      openFd(path, flags, 0o644, (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    const kind = notRegular(fstatSync(fd));
    if (kind !== undefined) {
      closeFd(fd, () => undefined);
      throw new NotRegularFile(path, kind);
    }
    return new DurableLog(fd, path, size, fsync, options.lock);
  }

  /** Resolves when the record (serialised whole, document included) is written (and synced, per the mode). */
  append(record: MockLogRecord): Promise<void> {
    return this.appendLine(Buffer.from(`${safeJson(JSON.stringify(record))}\n`, 'utf8'));
  }

  /** Appends a record whose document is the request body exactly as received (see recordLine). */
  appendWithRawDocument(record: MockLogRecordHead, body: Buffer): Promise<void> {
    return this.appendLine(recordBytes(record, body));
  }

  private appendLine(line: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the mock log is closed'));
    // everysec: what was acknowledged since the last good sync may not reach the disk; nothing more is
    // acknowledged until a sync succeeds (the timer retries every second).
    if (this.syncFailure !== undefined)
      return Promise.reject(new Error(`the log could not be synced to disk: ${errorMessage(this.syncFailure)}`));
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
      while (written < batch.bytes.length)
        written += writeSync(this.fd, batch.bytes, written, batch.bytes.length - written, null);
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
