// node:fs rather than node:fs/promises: it is already loaded at start-up, fs/promises is not (cai sign's start-up).
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, createReadStream, existsSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { formatCap, INPUT_CAPS, PIPE_SILENCE_MS, type InputKind } from './bounds.js';
import { CaiError, errnoCode, errorMessage, usageError } from './errors.js';
import type { Io } from './io.js';

/**
 * The readers of files and stdin. Each input has a kind, and each kind a cap (src/bounds.ts): a regular file over
 * it is refused before a byte is read, and a pipe, stdin or a device is read up to one byte past it and then
 * refused, so `/dev/zero` or an endless stdin never runs the process out of memory. The error names the input and
 * the cap, never the bytes (they may be a secret given by mistake).
 *
 * A path is always opened with O_NONBLOCK: a FIFO's blocking open waits for a writer that may never come, and a
 * blocked open or read holds a thread (the main one, or one of the pool, which Node joins before it exits) so that
 * not even Ctrl-C could end cai. A FIFO, a socket or a device is read by polling the descriptor instead: `<(cmd)` and
 * named pipes work, and a silent one can be interrupted like a silent stdin.
 */

/**
 * Reads a body from a file path or `-` (stdin) as raw bytes: never decoded or re-encoded,
 * because signatures cover the bytes exactly as transmitted (§5.2).
 */
export async function readBodyInput(
  path: string | undefined,
  io: Io,
  what = 'body',
  flag = '--body',
  kind: InputKind = 'body',
): Promise<Buffer> {
  if (path === undefined || path === '-') {
    if (path === undefined && io.stdin.isTTY) {
      throw usageError(
        'missing_input',
        `no ${what} given`,
        `pass ${flag} FILE, or pipe the ${what} on stdin (${flag} - )`,
      );
    }
    return readStdin(io, what, kind);
  }
  return readFileInput(path, io, kind, what);
}

/**
 * The kinds read before the command listens for Ctrl-C, as a secret file and the config are (readFileCapped): a
 * pipe given for one is refused once silent for PIPE_SILENCE_MS rather than waited on (docs/limits.md).
 */
const READ_BEFORE_LISTENING: ReadonlySet<InputKind> = new Set(['catalog']);

/** Reads a file as raw bytes, at most the cap of its kind; `-` reads stdin. */
export async function readFileInput(
  path: string,
  io: Io,
  kind: InputKind,
  what: string = INPUT_CAPS[kind].what,
): Promise<Buffer> {
  if (path === '-') return readStdin(io, what, kind);
  if (path === '') throw emptyPath(what);
  const opened = openInput(resolve(io.cwd, path), path, what);
  if (opened.info.isFile() || READ_BEFORE_LISTENING.has(kind)) return readOpened(opened, kind, path, what);
  try {
    return await readStreamCapped(pollingStream(opened), kind, `${what} file ${path}`);
  } catch (error) {
    if (error instanceof CaiError) throw error;
    throw unreadable(path, what, error);
  }
}

/**
 * A stream of the file at `fullPath` that never blocks a thread (see above); an error to open it is the stream's
 * first event, as createReadStream's is.
 */
export function openInputStream(fullPath: string, highWaterMark = 64 * 1024): Readable {
  let opened: Opened;
  try {
    opened = openInput(fullPath, fullPath, 'input');
  } catch (error) {
    const cause = error instanceof CaiError && error.cause !== undefined ? error.cause : error;
    return new Readable({
      read() {
        this.destroy(cause as Error);
      },
    });
  }
  if (opened.info.isFile()) return createReadStream('', { fd: opened.fd, highWaterMark });
  return pollingStream(opened, highWaterMark);
}

interface Opened {
  fd: number;
  info: Stats;
}

function openInput(fullPath: string, shown: string, what: string): Opened {
  let fd: number;
  try {
    fd = openSync(fullPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw unreadable(shown, what, error);
  }
  const info = fstatSync(fd);
  if (info.isDirectory()) {
    closeSync(fd);
    throw unreadable(shown, what, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
  }
  return { fd, info };
}

/** One read of a descriptor opened with O_NONBLOCK: the bytes read, 0 at the end, or -1 when none are there yet. */
function readSome(fd: number, buffer: Buffer, length: number): number {
  try {
    return readSync(fd, buffer, 0, length, null);
  } catch (error) {
    if (errnoCode(error) === 'EAGAIN') return -1;
    throw error;
  }
}

/**
 * Whether a read of 0 bytes is the end: always, but on a FIFO that has given nothing yet, where it means that no
 * writer has opened it yet (a named pipe read before its writer starts).
 */
const isEnd = (info: Stats, seen: boolean) => seen || !info.isFIFO();

/**
 * A FIFO, a socket or a device read by polling its non-blocking descriptor: no thread ever waits on it. Every read
 * waits its turn in the event loop (setImmediate), even when bytes are there: a device that never runs dry
 * (/dev/urandom) would otherwise be read and consumed in promise callbacks alone, and SIGINT or SIGTERM, which the
 * event loop delivers, would never be handled.
 */
function pollingStream({ fd, info }: Opened, chunkSize = 64 * 1024): Readable {
  let seen = false;
  let pause = 2;
  let timer: NodeJS.Timeout | undefined;
  let turn: NodeJS.Immediate | undefined;
  let open = true;
  return new Readable({
    highWaterMark: chunkSize,
    read() {
      const attempt = () => {
        timer = undefined;
        turn = undefined;
        const buffer = Buffer.allocUnsafe(chunkSize);
        let read: number;
        try {
          read = readSome(fd, buffer, chunkSize);
        } catch (error) {
          this.destroy(error as Error);
          return;
        }
        if (read > 0) {
          seen = true;
          pause = 2;
          this.push(buffer.subarray(0, read));
        } else if (read === 0 && isEnd(info, seen)) this.push(null);
        else {
          // Nothing yet: look again soon, the event loop free meanwhile (Ctrl-C, the command's own timers).
          timer = setTimeout(attempt, pause);
          pause = Math.min(pause * 2, 50);
        }
      };
      turn = setImmediate(attempt);
    },
    destroy(error, callback) {
      if (timer !== undefined) clearTimeout(timer);
      if (turn !== undefined) clearImmediate(turn);
      if (open) closeSync(fd);
      open = false;
      callback(error);
    },
  });
}

/**
 * An empty path, refused as such: never read (or written) as the current folder (docs/limits.md); `hint` where `-`
 * (stdin) is no choice.
 */
export function emptyPath(what: string, hint = 'give a file path, or - to read from stdin'): CaiError {
  return usageError('empty_path', `the ${what} file's path is empty`, hint);
}

/**
 * The synchronous reader, for the readers that run before any await (secret files, the config file): the file's
 * bytes, at most the cap of `kind`. `shown` is how the error names the file (the path as the user wrote it).
 */
export function readFileCapped(
  fullPath: string,
  kind: InputKind,
  shown = fullPath,
  what: string = INPUT_CAPS[kind].what,
): Buffer {
  if (shown === '') throw emptyPath(what);
  return readOpened(openInput(fullPath, shown, what), kind, shown, what);
}

/**
 * The one reader of secret files (flags and profiles alike), before any await: the text, at most INPUT_CAPS.secret
 * bytes. cai keys the HMAC (§5.3) with a secret's UTF-8 bytes, as every other form of one (a variable, a value, the
 * worked example of §5.10) is text: bytes that are not UTF-8 are refused, never decoded into U+FFFD, which would sign
 * with another key than the file holds and make two different files the same secret.
 */
export function readSecretText(fullPath: string, shown = fullPath): string {
  const bytes = readFileCapped(fullPath, 'secret', shown, 'secret');
  if (!isUtf8(bytes))
    throw usageError(
      'not_utf8',
      `secret file ${shown} holds bytes that are not UTF-8; a secret is text, as in a variable, so it is not used`,
      'write the secret as the other party has it; a binary key goes in as text (hex or base64) on both sides',
    );
  return bytes.toString('utf8');
}

/**
 * Reads an opened file to its end, at most the cap of `kind`. A FIFO, a socket or a device is polled, the thread
 * pausing between reads: a reader that runs before any await cannot give way to Ctrl-C, so a pipe silent for
 * PIPE_SILENCE_MS is refused instead of waited on.
 */
function readOpened({ fd, info }: Opened, kind: InputKind, shown: string, what: string): Buffer {
  const cap = INPUT_CAPS[kind].bytes;
  try {
    // A regular file says its size: one over the cap is refused unread. Anything else is read to one byte past it.
    if (info.isFile() && info.size > cap) throw tooLarge(kind, `${what} file ${shown}`, { size: info.size });
    const chunks: Buffer[] = [];
    let total = 0;
    let quietSince = Date.now();
    const chunkSize = info.isFile() ? Math.min(cap + 1, info.size + 1) : 64 * 1024;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, cap + 1 - total)));
      const read = readSome(fd, chunk, chunk.length);
      if (read > 0) {
        chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
        total += read;
        quietSince = Date.now();
        if (total > cap) throw tooLarge(kind, `${what} file ${shown}`);
      } else if (read === 0 && isEnd(info, total > 0)) break;
      else if (Date.now() - quietSince > PIPE_SILENCE_MS) throw silentPipe(shown, what);
      else Atomics.wait(PAUSE, 0, 0, 5);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof CaiError) throw error;
    throw unreadable(shown, what, error);
  } finally {
    closeSync(fd);
  }
}

/** What Atomics.wait sleeps on between two reads of a pipe that has nothing yet. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function silentPipe(shown: string, what: string): CaiError {
  return usageError(
    'silent_pipe',
    `${what} file ${shown} is a pipe that sent nothing for ${PIPE_SILENCE_MS / 1000} s; reading stopped there`,
    'start the program that writes to it first, or give a regular file',
  );
}

/**
 * `error: body file x is over the 16 MiB cap; reading stopped there` and the hint of its kind (docs/limits.md).
 * `known.size` when the size is known without reading (a regular file).
 */
export function tooLarge(kind: InputKind, subject: string, known?: { size: number }): CaiError {
  const cap = INPUT_CAPS[kind];
  const over = known
    ? `is ${known.size} bytes, over the ${formatCap(cap.bytes)} cap; not read`
    : `is over the ${formatCap(cap.bytes)} cap; reading stopped there`;
  return usageError('input_too_large', `${subject} ${over}`, `${cap.hint} (caps: docs/limits.md)`);
}

export function unreadable(path: string, what: string, error: unknown) {
  return usageError(
    'unreadable_file',
    `${what} file ${path} ${whyUnreadable(error)}`,
    'check the path, or pass - to read from stdin',
    error,
  );
}

/** Why a file could not be read, after `file x`: `does not exist`, `is a directory`, … */
export function whyUnreadable(error: unknown): string {
  const code = errnoCode(error);
  return code === 'ENOENT'
    ? 'does not exist'
    : code === 'EACCES'
      ? 'is not readable (permission denied)'
      : code === 'EISDIR'
        ? 'is a directory'
        : 'cannot be read';
}

/** Why a file or directory could not be written, in words (`full` its absolute path). */
export function whyNotWritten(error: unknown, full: string): string {
  const code = errnoCode(error);
  // A directory that exists and still refuses a new file (/proc): not writable, whatever errno says.
  if (code === 'ENOENT')
    return existsSync(dirname(full)) ? 'its directory is not writable' : 'its directory does not exist';
  if (code === 'ENOTDIR') return 'a part of its path is not a directory';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOSPC') return 'no space left on the device';
  return errorMessage(error);
}

function readStdin(io: Io, what: string, kind: InputKind): Promise<Buffer> {
  // An explicit `-` on a terminal waits for typed input: say so rather than seem to hang.
  if (io.stdin.isTTY) io.stderr.write(`note: reading the ${what} from the terminal; end it with Ctrl-D\n`);
  return readStreamCapped(io.stdin, kind, `the ${what} on stdin`);
}

/** Reads a stream to its end, or to one byte past the cap of `kind`: then it stops reading and refuses. */
export async function readStreamCapped(
  stream: NodeJS.ReadableStream,
  kind: InputKind,
  subject: string,
): Promise<Buffer> {
  const cap = INPUT_CAPS[kind].bytes;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    total += buffer.length;
    // Leaving the loop ends the iteration, which stops the stream: nothing more is read.
    if (total > cap) throw tooLarge(kind, subject);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/** The PEM files cai reads: a certificate authority to trust (`--ca`), and a server's certificate and key (`--tls-cert`, `--tls-key`). */
type PemRole = 'ca' | 'tls-cert' | 'tls-key';

/**
 * The one reader of PEM files. An authority must hold a certificate, so a mistaken file is named here rather than
 * at the first TLS handshake; a server's certificate and key are checked by the server that loads them.
 */
export async function readPem(path: string, io: Io, role: PemRole): Promise<Buffer> {
  if (role === 'ca') {
    const pem = await readFileInput(path, io, 'pem', 'CA certificate');
    if (!pem.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
      throw usageError(
        'bad_ca',
        `${path} holds no PEM certificate`,
        'pass the CA certificate in PEM form (-----BEGIN CERTIFICATE-----)',
      );
    }
    return pem;
  }
  const what = role === 'tls-cert' ? 'cert' : 'key';
  try {
    return await readFileInput(path, io, 'pem', `TLS ${what}`);
  } catch (error) {
    if (error instanceof CaiError && error.code === 'input_too_large') throw error;
    const cause = error instanceof CaiError ? error.cause : error;
    throw usageError(
      'unreadable_file',
      `cannot read the TLS ${what} ${path}: ${errorMessage(cause)}`,
      `check the --tls-${what} path`,
      cause,
    );
  }
}
