import type { Readable, Writable } from 'node:stream';

/**
 * Everything a command touches of the process, so commands run in-process in tests
 * with fake streams and environment, and nothing but `main.ts` reads `process` directly.
 */
export interface Io {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); long-running commands await it. */
  onInterrupt(listener: (signal: NodeJS.Signals) => void): () => void;
  now(): number;
}

export function processIo(): Io {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      const handler = (signal: NodeJS.Signals) => listener(signal);
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
    now: () => Date.now(),
  };
}
