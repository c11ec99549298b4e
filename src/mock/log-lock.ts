import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { MOCK_LOG_CAPS } from '../bounds.js';
import { errnoCode, usageError } from '../errors.js';
import { notRegular, NotRegularFile, openRegular } from './log-file.js';

/**
 * The exclusive lock of a mock log: one process appends to a log at a time, because each keeps its own dedupe
 * memory (§6.1: two mocks on one log would both accept the same event_id and record it twice).
 *
 * Node has no flock(2), so the lock is a file next to the log, `LOG.lock`, created with O_EXCL (only one
 * process can create it) and holding the holder's pid, the start time of that process (Linux: /proc, so that a
 * pid reused by an unrelated process after a SIGKILL is not taken for the holder) and the host. It is removed
 * when the log is closed, and when the process exits without closing it; a lock left by a process that died
 * without either (SIGKILL, a machine reboot) is stale: the next mock finds its pid gone (or reused) and takes it
 * over. A lock taken on another host cannot be checked from here and counts as held. Something at the lock's path
 * that is not a regular file (a FIFO, whose open would block) is never opened blocking, and is refused.
 */
export class LogLock {
  private released = false;
  private readonly onExit = () => this.releaseSync();

  private constructor(
    readonly path: string,
    private readonly text: string,
  ) {
    process.once('exit', this.onExit);
  }

  /** Takes the lock of the log at `logPath` (its real path), or throws a usage error naming the holder. */
  static async acquire(logPath: string): Promise<LogLock> {
    const path = `${logPath}.lock`;
    const text = `${JSON.stringify({ pid: process.pid, started: procStat(process.pid)?.started, host: hostname() })}\n`;
    // Each turn either takes the lock, finds it held (an error), or clears a stale one and tries again; a
    // lock that keeps reappearing stale (several mocks starting at once) is reported as in use.
    for (let turn = 0; turn < 5; turn += 1) {
      if (await createExclusive(path, text)) return new LogLock(path, text);
      const found = await readLock(path).catch((error: unknown) => {
        throw error instanceof NotRegularFile ? notALock(logPath, path, error.kind) : error;
      });
      if (found === undefined) continue; // released meanwhile
      const holder = judge(found);
      if (holder.alive) throw inUse(logPath, path, holder.description);
      await clearStale(path, found.text);
    }
    throw inUse(logPath, path, 'another process starting on it at the same time');
  }

  /**
   * Who holds the lock of the log at `logPath` (its real path) and still runs, if anyone: a file no other command
   * may write into (a mock appends to it).
   */
  static async holder(logPath: string): Promise<string | undefined> {
    const found = await readLock(`${logPath}.lock`).catch(() => undefined);
    if (found === undefined) return undefined;
    const holder = judge(found);
    return holder.alive ? holder.description : undefined;
  }

  /** Removes the lock file if it is still this process's. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    process.off('exit', this.onExit);
    const found = await readLock(this.path);
    if (found?.text === this.text) await unlink(this.path).catch(() => undefined);
  }

  /** At exit (no event loop any more): the same, synchronously. */
  private releaseSync(): void {
    if (this.released) return;
    this.released = true;
    try {
      // Without blocking: what replaced the lock may be a FIFO (it is then not ours, and stays).
      const fd = openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      let text: string | undefined;
      try {
        if (notRegular(fstatSync(fd)) === undefined) text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
      if (text === this.text) unlinkSync(this.path);
    } catch {
      // Gone already, or unreadable: nothing of ours to remove.
    }
  }
}

/** Creates the lock file holding `text`, only if no file is there (O_EXCL); false when one is. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o644);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw usageError(
      'log_lock_failed',
      `cannot create the lock file ${path}: ${errnoCode(error) ?? String(error)}`,
      'the directory of the log must be writable (the lock file sits next to the log)',
      error,
    );
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return true;
}

interface FoundLock {
  text: string;
  /** The file's age in ms: an empty lock is one being written, unless it is old. */
  ageMs: number;
}

/** The lock's text and age; undefined when gone. Opened without blocking and without following a link (ELOOP). */
async function readLock(path: string): Promise<FoundLock | undefined> {
  let handle;
  try {
    handle = await openRegular(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    if (errnoCode(error) === 'ELOOP') throw new NotRegularFile(path, 'a symbolic link');
    throw error;
  }
  try {
    const [text, info] = await Promise.all([handle.readFile('utf8'), handle.stat()]);
    return { text, ageMs: Date.now() - info.mtimeMs };
  } finally {
    await handle.close();
  }
}

/** A lock file with no readable holder younger than this is being written by its holder (create, then write). */
const WRITING_MS = MOCK_LOG_CAPS.lockWritingMs;

/** Whether the holder of a lock still runs, and how to name it. */
function judge(found: FoundLock): { alive: boolean; description: string } {
  let holder: { pid?: unknown; started?: unknown; host?: unknown } = {};
  try {
    holder = JSON.parse(found.text) as typeof holder;
  } catch {
    // Not JSON (yet): read as a lock with no holder, below.
  }
  const pid = typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0 ? holder.pid : undefined;
  if (pid === undefined)
    return {
      alive: found.ageMs < WRITING_MS,
      description: 'a process starting on it (its lock file is being written)',
    };
  if (typeof holder.host === 'string' && holder.host !== hostname())
    return { alive: true, description: `pid ${pid} on host ${holder.host}` };
  const self = pid === process.pid ? ' (this process)' : '';
  return { alive: isRunning(pid, holder.started), description: `pid ${pid}${self}` };
}

/** `kill(pid, 0)`: the process exists (EPERM: it does, another user's); and it is the one that took the lock. */
function isRunning(pid: number, started: unknown): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errnoCode(error) !== 'EPERM') return false;
  }
  const now = procStat(pid);
  // A zombie (killed, not yet reaped by its parent) holds nothing; a pid reused since by another process has
  // another start time.
  if (now?.state === 'Z') return false;
  return typeof started !== 'number' || now === undefined || now.started === started;
}

/** Fields 3 (state) and 22 (start time) of /proc/PID/stat (Linux); undefined elsewhere or for no such process. */
function procStat(pid: number): { state: string; started: number } | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = Number(fields[19]);
    return Number.isFinite(started) ? { state: fields[0] ?? '', started } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes a stale lock, atomically against another process doing the same: the file is renamed aside, and if
 * what was moved is not the stale lock judged (another process took the lock in between), it is put back.
 */
async function clearStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readLock(aside).then(
    (found) => found?.text ?? staleText,
    () => staleText,
  );
  if (moved !== staleText) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

function notALock(logPath: string, lockPath: string, kind: string) {
  return usageError(
    'bad_log_lock',
    `the lock of the log ${logPath}, ${lockPath}, is not a regular file (${kind})`,
    `remove ${lockPath} (a cai mock's lock is a regular file it creates), or give this mock another log`,
  );
}

function inUse(logPath: string, lockPath: string, holder: string) {
  return usageError(
    'log_in_use',
    `the log ${logPath} is in use by another cai mock: ${holder}`,
    `stop that mock first, or give this one another log; the lock is ${lockPath} (remove it only if no mock runs on the log)`,
  );
}
