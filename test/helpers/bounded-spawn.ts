/**
 * Spawns the built cai with a bound: a process still running `boundMs` after it started is killed, and the result
 * says so (`killed`), so that a test fails on the contract it states ("ends within N s") rather than hanging. The
 * bound is the contract's, never a measure of speed.
 */
import { spawn } from 'node:child_process';
import { BIN, ROOT } from './cli.js';

export interface BoundedResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed at the bound: the command did not end by itself. */
  killed: boolean;
  stdout: string;
  stderr: string;
}

export interface BoundedOptions {
  boundMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with the child once it runs (to signal it, or to watch its output). */
  onStart?: (child: import('node:child_process').ChildProcess) => void;
}

export function spawnBounded(argv: string[], options: BoundedOptions): Promise<BoundedResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...(options.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const guard = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, options.boundMs);
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, killed, stdout, stderr });
    });
    options.onStart?.(child);
  });
}
