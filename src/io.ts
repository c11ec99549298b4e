import { realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { shellQuote } from './shell.js';

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

/** A project's own commands: on the PATH of one shell (or npm's), not of every shell the script may run in. */
const PROJECT_BIN = /(^|[\\/])node_modules[\\/]\.bin[\\/]?$/;

/** The names the package installs its command under (package.json `bin`). */
const COMMAND_NAMES = ['cai', 'cai-toolkit'];

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How to run this cai again from any folder: its name, when that name on the PATH is this very script (a global
 * install, a link the user made; not a project's node_modules/.bin put on the PATH); otherwise the node binary and the script, absolute (`'/usr/bin/node'
 * '/…/node_modules/cai-toolkit/bin/cai.js'`). Not the name inside npm (npx, `npm run`, `npm test`), whose PATH holds
 * the project's node_modules/.bin for that one command only.
 */
export function invocationOf(execPath: string, script: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const real = script === undefined ? undefined : realpathOrUndefined(script);
  if (real === undefined) return undefined;
  if (env.npm_command === undefined) {
    // A project's node_modules/.bin (or any relative entry) on this shell's PATH is no name another shell knows.
    const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => isAbsolute(dir) && !PROJECT_BIN.test(dir));
    const name = COMMAND_NAMES.find((command) => dirs.some((dir) => realpathOrUndefined(join(dir, command)) === real));
    if (name !== undefined) return name;
  }
  // A single executable (`npm run bundle -- --sea`): the script is the executable itself, named once.
  if (real === realpathOrUndefined(execPath)) return shellQuote(real);
  return `${shellQuote(execPath)} ${shellQuote(real)}`;
}

export function processIo(): Io {
  let invocation: string | undefined;
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
    // Worked out when a command asks (it reads the file system): most commands never do.
    get invocation() {
      invocation ??= invocationOf(process.execPath, process.argv[1], process.env) ?? 'cai';
      return invocation;
    },
  };
}
