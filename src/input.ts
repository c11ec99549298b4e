// node:fs rather than node:fs/promises: it is already loaded at start-up, fs/promises is not (cai sign's start-up).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CaiError, errnoCode, errorMessage, usageError } from './errors.js';
import type { Io } from './io.js';

/**
 * Reads a body from a file path or `-` (stdin) as raw bytes: never decoded or re-encoded,
 * because signatures cover the bytes exactly as transmitted (§5.2).
 */
export async function readBodyInput(path: string | undefined, io: Io, what = 'body', flag = '--body'): Promise<Buffer> {
  if (path === undefined || path === '-') {
    if (path === undefined && io.stdin.isTTY) {
      throw usageError('missing_input', `no ${what} given`, `pass ${flag} FILE, or pipe the ${what} on stdin (${flag} - )`);
    }
    return readStdin(io, what);
  }
  return readFileInput(path, io, what);
}

/** Reads a file as raw bytes; `-` reads stdin. */
export async function readFileInput(path: string, io: Io, what = 'file'): Promise<Buffer> {
  if (path === '-') return readStdin(io, what);
  try {
    return readFileSync(resolve(io.cwd, path));
  } catch (error) {
    throw unreadable(path, what, error);
  }
}

export function unreadable(path: string, what: string, error: unknown) {
  const code = errnoCode(error);
  const why =
    code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable (permission denied)' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
  return usageError('unreadable_file', `${what} file ${path} ${why}`, 'check the path, or pass - to read from stdin', error);
}

function readStdin(io: Io, what: string): Promise<Buffer> {
  // An explicit `-` on a terminal waits for typed input: say so rather than seem to hang.
  if (io.stdin.isTTY) io.stderr.write(`note: reading the ${what} from the terminal; end it with Ctrl-D\n`);
  return readStream(io.stdin);
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The PEM files cai reads: a certificate authority to trust (`--ca`), and a server's certificate and key (`--tls-cert`, `--tls-key`). */
type PemRole = 'ca' | 'tls-cert' | 'tls-key';

/**
 * The one reader of PEM files. An authority must hold a certificate, so a mistaken file is named here rather than
 * at the first TLS handshake; a server's certificate and key are checked by the server that loads them.
 */
export async function readPem(path: string, io: Io, role: PemRole): Promise<Buffer> {
  if (role === 'ca') {
    const pem = await readFileInput(path, io, 'CA certificate');
    if (!pem.toString('utf8').includes('-----BEGIN CERTIFICATE-----')) {
      throw usageError('bad_ca', `${path} holds no PEM certificate`, 'pass the CA certificate in PEM form (-----BEGIN CERTIFICATE-----)');
    }
    return pem;
  }
  const what = role === 'tls-cert' ? 'cert' : 'key';
  try {
    return await readFileInput(path, io, `TLS ${what}`);
  } catch (error) {
    const cause = error instanceof CaiError ? error.cause : error;
    throw usageError('unreadable_file', `cannot read the TLS ${what} ${path}: ${errorMessage(cause)}`, `check the --tls-${what} path`, cause);
  }
}
