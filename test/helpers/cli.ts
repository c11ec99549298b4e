import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/main.js';
import type { Io } from '../../src/io.js';

export const BIN = fileURLToPath(new URL('../../bin/cai.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface InProcessOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  cwd?: string;
  now?: number;
  /**
   * Resolved to trigger the interrupt listeners (as SIGINT would); `'when-serving'`: once stdout has its first whole
   * line (a server's URL, printed when it listens), however long a loaded machine takes to get there; `{ stderr }`:
   * once stderr has a whole line that matches it (a command's start line), likewise.
   */
  interrupt?: Promise<void> | 'when-serving' | { stderr: RegExp };
}

/** An Io with fake streams that keeps what was written, and an interrupt to trigger by hand. */
export interface FakeIo extends Io {
  out(): string;
  err(): string;
  /** Calls the interrupt listeners as SIGINT would; a command that subscribes later still gets it. */
  interrupt(): void;
  /** How many interrupt listeners are subscribed. */
  interruptListeners(): number;
}

export function fakeIo(
  options: { env?: NodeJS.ProcessEnv; stdin?: string | Buffer | Readable; cwd?: string; now?: number } = {},
): FakeIo {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const stdin =
    options.stdin instanceof Readable
      ? options.stdin
      : Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const listeners = new Set<(signal: NodeJS.Signals) => void>();
  let interrupted = false;
  return {
    stdin,
    stdout,
    stderr,
    env: { NO_COLOR: '1', ...(options.env ?? {}) },
    cwd: options.cwd ?? ROOT,
    onInterrupt(listener) {
      listeners.add(listener);
      // On a loaded machine the command may subscribe only after the interrupt came: it still gets it.
      if (interrupted) queueMicrotask(() => listeners.has(listener) && listener('SIGINT'));
      return () => listeners.delete(listener);
    },
    now: () => options.now ?? Date.now(),
    out: () => out,
    err: () => err,
    interrupt() {
      interrupted = true;
      listeners.forEach((listener) => listener('SIGINT'));
    },
    interruptListeners: () => listeners.size,
  };
}

/** Runs the CLI in-process with fake streams (fast; for command-level tests). */
export async function runCli(argv: string[], options: InProcessOptions = {}): Promise<CliResult> {
  const io = fakeIo(options);
  if (options.interrupt === 'when-serving') {
    const serving = () => io.out().includes('\n') && (io.stdout.off('data', serving), io.interrupt());
    io.stdout.on('data', serving);
  } else if (options.interrupt !== undefined && 'stderr' in options.interrupt) {
    const wanted = options.interrupt.stderr;
    const started = () =>
      io
        .err()
        .split('\n')
        .slice(0, -1)
        .some((line) => wanted.test(line)) && (io.stderr.off('data', started), io.interrupt());
    io.stderr.on('data', started);
  } else options.interrupt?.then(() => io.interrupt());
  const code = await run(argv, io);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: io.out(), stderr: io.err() };
}

/** Spawns the built binary (for end-to-end tests): `npm test` builds first. */
export function spawnCli(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string | Buffer; cwd?: string } = {},
): Promise<CliResult> {
  return spawnProcess(process.execPath, [BIN, ...argv], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...(options.env ?? {}) },
    stdin: options.stdin,
  });
}

/** Spawns any program and collects its exit code, stdout and stderr (stdin is given, or empty). */
export function spawnProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | Buffer },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A program that exits before reading its stdin closes the pipe (EPIPE): its exit code and output say the rest.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}
