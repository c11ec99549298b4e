// node:fs rather than node:fs/promises: it is already loaded at start-up, fs/promises is not (cai sign's start-up).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatCap, INPUT_CAPS, type InputKind } from './bounds.js';
import { CaiError, errnoCode, errorMessage, usageError } from './errors.js';
import type { Io } from './io.js';

/**
 * The readers of files and stdin. Each input has a kind, and each kind a cap (src/bounds.ts): a regular file over
 * it is refused before a byte is read, and a pipe, stdin or a device is read up to one byte past it and then
 * refused, so `/dev/zero` or an endless stdin never runs the process out of memory. The error names the input and
 * the cap, never the bytes (they may be a secret given by mistake).
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

/** Reads a file as raw bytes, at most the cap of its kind; `-` reads stdin. */
export async function readFileInput(
  path: string,
  io: Io,
  kind: InputKind,
  what: string = INPUT_CAPS[kind].what,
): Promise<Buffer> {
  if (path === '-') return readStdin(io, what, kind);
  return readFileCapped(resolve(io.cwd, path), kind, path, what);
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
  const cap = INPUT_CAPS[kind].bytes;
  let fd: number;
  try {
    fd = openSync(fullPath, 'r');
  } catch (error) {
    throw unreadable(shown, what, error);
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory())
      throw unreadable(shown, what, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
    // A regular file says its size: one over the cap is refused unread. Anything else is read to one byte past it.
    if (info.isFile() && info.size > cap) throw tooLarge(kind, `${what} file ${shown}`, { size: info.size });
    const chunks: Buffer[] = [];
    let total = 0;
    const chunkSize = info.isFile() ? Math.min(cap + 1, info.size + 1) : 64 * 1024;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, cap + 1 - total)));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > cap) throw tooLarge(kind, `${what} file ${shown}`);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof CaiError) throw error;
    throw unreadable(shown, what, error);
  } finally {
    closeSync(fd);
  }
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
