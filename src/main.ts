import { CommanderError } from 'commander';
import { CaiError, ExitCode, errorMessage, usageError } from './errors.js';
import { processIo, type Io } from './io.js';
import { Output } from './output/output.js';
import { buildProgram, commandWordOf, GLOBAL_OPTIONS_WITH_VALUE, GROUP_SUBCOMMANDS, VERSION_REQUESTED } from './program.js';
import type { RunState } from './cli/runner.js';
import { redactSecrets } from './secrets/resolve.js';

const COMMANDER_SUCCESS = new Set(['commander.helpDisplayed']);

/**
 * Runs the CLI for `argv` (without `node` and the script) and returns the exit code.
 * The one place that turns errors into exit codes (STYLE.md "Errors and exit codes").
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const state: RunState = { io, exitCode: ExitCode.ok };
  try {
    const missing = missingCommandOf(argv);
    if (missing) throw missing;
    const program = await buildProgram(state, argv);
    await program.parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    const output = state.output ?? (await outputFromArgv(io, argv));
    if (error instanceof CommanderError && error.code === VERSION_REQUESTED) return printVersion(output);
    return reportError(error, output, argv);
  }
}

/** `cai --version`: `0.2.0 (spec 1.0)`, or `{"version": "0.2.0", "spec": "1.0"}` with --json. */
async function printVersion(output: Output): Promise<number> {
  const { versionInfo, formatVersion } = await import('./version.js');
  const info = versionInfo();
  if (output.json) output.printJson(info);
  else output.result(formatVersion(info));
  return ExitCode.ok;
}

function reportError(error: unknown, output: Output, argv: readonly string[]): number {
  if (error instanceof CommanderError) {
    // `cai help <command>` ends with code commander.help and exit code 0; a group without its subcommand, exit code 1.
    if (COMMANDER_SUCCESS.has(error.code) || (error.code === 'commander.help' && error.exitCode === 0)) return ExitCode.ok;
    const group = commandWordOf(argv);
    if (error.code === 'commander.help') {
      // A command group run without its subcommand: commander has printed the group's help on stderr.
      const message = group ? `cai ${group} needs a subcommand` : 'cai needs a command';
      const hint = group ? `run 'cai ${group} --help' for its subcommands` : "run 'cai --help' for the commands";
      return print(output, 'usage', message, hint, ExitCode.usage, error);
    }
    // Commander puts its suggestion on a second line; keep the error to one line.
    const message = error.message.replace(/^error:\s*/, '').replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)');
    // For a mistyped subcommand, point at the group's help, not at the mistyped word's.
    const command = error.code === 'commander.unknownCommand' ? group : commandNameOf(argv);
    const hint = command ? `run 'cai ${command} --help' for its options and examples` : "run 'cai --help' for the commands";
    return print(output, 'usage', redactSecrets(message), hint, ExitCode.usage, error);
  }
  if (error instanceof CaiError) {
    return print(output, error.code, redactSecrets(error.message), redactSecrets(error.hint), error.exitCode, error);
  }
  return print(
    output,
    'internal',
    `internal error: ${redactSecrets(errorMessage(error))}`,
    'this is a bug in cai; please report it with the output of the same command run with --debug',
    ExitCode.internal,
    error,
  );
}

function print(output: Output, code: string, message: string, hint: string, exitCode: number, error: unknown): number {
  if (output.json) {
    output.printJson({ ok: false, error: { code, message, hint, exitCode } });
  } else {
    output.error(message, hint);
  }
  if (output.debug && error instanceof Error && error.stack) {
    output.debugLine(redactSecrets(error.stack));
    if (error.cause instanceof Error && error.cause.stack) output.debugLine(`caused by: ${redactSecrets(error.cause.stack)}`);
  }
  return exitCode;
}

/** Before commander has parsed anything, the global flags are read from argv directly. */
function outputFromArgv(io: Io, argv: readonly string[]): Promise<Output> {
  return Output.create(io, {
    json: argv.includes('--json'),
    quiet: argv.includes('--quiet'),
    debug: argv.includes('--debug'),
    color: argv.includes('--no-color') ? false : undefined,
  });
}

/** `sign`, or `mock platform` for command groups: used to point the hint at the right `--help`. */
function commandNameOf(argv: readonly string[]): string | undefined {
  const first = commandWordOf(argv);
  if (!first) return undefined;
  const words = argv.filter((word) => !word.startsWith('-'));
  const second = words[words.indexOf(first) + 1];
  return GROUPS.has(first) && second && /^[a-z]+$/.test(second) ? `${first} ${second}` : first;
}

const GROUPS = new Set(Object.keys(GROUP_SUBCOMMANDS));

/**
 * `cai` alone, or a group such as `cai mock` without its subcommand: one error line and one hint line,
 * instead of commander's full help followed by an error.
 */
function missingCommandOf(argv: readonly string[]): CaiError | undefined {
  if (argv.some((word) => word === '-h' || word === '--help' || word === '-V' || word === '--version')) return undefined;
  const words = argv.filter((word, index) => !word.startsWith('-') && !GLOBAL_OPTIONS_WITH_VALUE.has(argv[index - 1] ?? ''));
  const [first, second] = words;
  if (first === undefined) return usageError('missing_command', 'cai needs a command', "run 'cai --help' for the commands");
  const subcommands = GROUP_SUBCOMMANDS[first];
  if (subcommands !== undefined && second === undefined) {
    return usageError('missing_command', `cai ${first} needs a subcommand: ${subcommands}`, `run 'cai ${first} --help' for what each does`);
  }
  return undefined;
}

/** Entry point of `bin/cai.js`: the only place that touches `process.exitCode`. */
export async function main(): Promise<void> {
  // `cai … | head` closes the pipe early: that is the reader's choice, not an error to report. The command goes on
  // (its writes are dropped) and exits with its own code once decided: `send-event … 2>&1 | true` still exits 3.
  let finished = false;
  for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') {
        if (finished) process.exit(process.exitCode ?? 0);
        return;
      }
      // A full disk or a closed descriptor is the environment's doing, not a bug: exit 2, like any unwritable path.
      if (name === 'stdout') {
        process.stderr.write(`error: cannot write the result to stdout (${error.code ?? error.message})\nhint: check where stdout is redirected\n`);
      }
      process.exit(ExitCode.usage);
    });
  }
  try {
    process.exitCode = await run(process.argv.slice(2), processIo());
    finished = true;
  } catch (error) {
    // run() reports every error itself; this is the last line of defence, without a stack trace.
    const { safeText } = await import('./output/safe-text.js');
    const { maskSecrets } = await import('./secrets/mask.js');
    process.stderr.write(`error: internal error: ${safeText(maskSecrets(errorMessage(error)))}\nhint: this is a bug in cai; please report it with the output of --debug\n`);
    process.exitCode = ExitCode.internal;
  }
}
