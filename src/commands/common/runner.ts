import type { Command } from 'commander';
import { useWords, type Words } from '../../errors.js';
import type { Io } from '../../io.js';
import { Output, type OutputOptions } from '../../output/output.js';
import type { Terminal } from '../../output/progress.js';
import { SHARED_HINTS } from './hints.js';
import { WRITTEN_FILE_FLAGS } from './file-flags.js';

/** What every command action receives: its streams and its output. */
export type CommandContext = Terminal;

/** Shared between main.ts and the actions: the output in use and the exit code decided. */
export interface RunState {
  io: Io;
  output?: Output;
  exitCode: number;
}

export function globalOutputOptions(command: Command): OutputOptions {
  const globals = command.optsWithGlobals() as { json?: boolean; quiet?: boolean; debug?: boolean; color?: boolean };
  return {
    json: globals.json === true,
    quiet: globals.quiet === true,
    debug: globals.debug === true,
    color: globals.color === false ? false : undefined,
  };
}

/**
 * Runs a command handler with its context. Errors propagate to main.ts, the one place that
 * maps them to exit codes and prints them. `hints` words the command's own coded errors (its folder's hints.ts),
 * before the words every command shares.
 */
export async function runHandler(
  state: RunState,
  command: Command,
  /** The command's body: returns its exit code (0 success, 1 negative verdict); throws CaiError to stop. */
  handler: (context: CommandContext) => Promise<number>,
  hints?: Words,
): Promise<void> {
  useWords(...(hints ? [hints] : []), SHARED_HINTS);
  if (namesFileToWrite(command))
    await (await import('./same-file.js')).refuseSameFiles(command, state.io.cwd, async (full) =>
      (await import('../../mock/log-lock.js')).LogLock.holder(full),
    );
  const output = await Output.create(state.io, globalOutputOptions(command));
  state.output = output;
  state.exitCode = await handler({ io: state.io, output });
}

/** Whether the command line names a file the command writes (a value for --html, --output, …). */
function namesFileToWrite(command: Command): boolean {
  return command.options.some(
    (option) =>
      option.long !== undefined &&
      WRITTEN_FILE_FLAGS.has(option.long) &&
      typeof command.getOptionValue(option.attributeName()) === 'string',
  );
}
