import { realpathSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { shellQuote } from './http/curl.js';

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
  /**
   * How cai was run, as a shell command that runs this same cai from any folder (the node binary and the script,
   * absolute), for the reproduction commands it writes. Undefined in tests that run commands in-process.
   */
  invocation?: string;
}

/** `'/usr/bin/node' '/…/node_modules/cai-toolkit/bin/cai.js'`: the links (npx's .bin/cai) resolved to the script. */
export function invocationOf(execPath: string, script: string | undefined): string | undefined {
  if (script === undefined) return undefined;
  try {
    return `${shellQuote(execPath)} ${shellQuote(realpathSync(script))}`;
  } catch {
    return undefined;
  }
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
    invocation: invocationOf(process.execPath, process.argv[1]),
  };
}
