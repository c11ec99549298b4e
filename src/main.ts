import { type Command, CommanderError } from 'commander';
import { CaiError, ExitCode, errorMessage, usageError } from './errors.js';
import { processIo, type Io } from './io.js';
import { Output } from './output/output.js';
import { jsonText } from './output/safe-text.js';
import {
  buildProgram,
  checkHelpPath,
  commandWordOf,
  commandWords,
  GROUP_SUBCOMMANDS,
  isGlobalFlag,
  routeHelp,
  VERSION_REQUESTED,
} from './program.js';
import type { RunState } from './commands/common/runner.js';
import { closestValue } from './suggest.js';
import { redactSecrets } from './secrets/known.js';

/**
 * Runs the CLI for `argv` (without `node` and the script) and returns the exit code.
 * The one place that turns errors into exit codes (STYLE.md "Errors and exit codes").
 */
export async function run(given: readonly string[], io: Io): Promise<number> {
  const { argv, path: helpPath } = routeHelp(given);
  const interrupts = watchInterrupts(io);
  const state: RunState = { io: interrupts.io, exitCode: ExitCode.ok };
  let program: Command | undefined;
  const command = (async () => {
    try {
      const missing = missingCommandOf(argv);
      if (missing) throw missing;
      program = await buildProgram(state, argv);
      if (helpPath) checkHelpPath(program, helpPath);
      await program.parseAsync([...argv], { from: 'user' });
      return state.exitCode;
    } catch (error) {
      const output = state.output ?? (await outputFromArgv(io, argv));
      if (error instanceof CommanderError && error.code === VERSION_REQUESTED) return printVersion(output);
      return reportError(error, output, argv, program);
    }
  })();
  try {
    const ended = await Promise.race([command.then((code) => ({ code })), interrupts.givenUp]);
    if ('code' in ended) return interrupts.signal === 'SIGINT' ? ExitCode.interrupted : ended.code;
    // The command did not stop in time (or listens to no interrupt at all): say so, and stop without it.
    const output = state.output ?? (await outputFromArgv(io, argv));
    const message = ended.listened
      ? `interrupted by ${ended.signal}: the command did not stop within ${GIVE_UP_AFTER_MS / 1000} s`
      : `interrupted by ${ended.signal}`;
    return print(output, 'interrupted', message, 'run the command again to finish it', exitCodeOfSignal(ended.signal));
  } finally {
    interrupts.dispose();
  }
}

/** After Ctrl-C, what is in flight is aborted after this long (as a second Ctrl-C would)… */
const ABORT_AFTER_MS = 2_500;
/** …and cai stops after this long, whether the command has finished or not. */
export const GIVE_UP_AFTER_MS = 4_500;
/** A command that listens to no interrupt is stopped this soon (it may still be subscribing). */
const UNHEARD_AFTER_MS = 300;

/** 130 for Ctrl-C; 128 + 15 for SIGTERM, as a shell reports a process ended by it. */
function exitCodeOfSignal(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? ExitCode.interrupted : 143;
}

/**
 * Ctrl-C (SIGINT) ends every command with exit 130, after it wrote what its results and reports hold so far: the
 * command's own listeners stop it; if it is still running ABORT_AFTER_MS later, they are called again (the second
 * Ctrl-C of a send aborts what is in flight); GIVE_UP_AFTER_MS after the signal, cai stops anyway. A command that
 * listens to no interrupt (it has nothing to save) is stopped at once. SIGTERM is handled the same way, but a
 * command that stops by itself keeps its own exit code (a mock stopped by its service manager exits 0).
 */
function watchInterrupts(io: Io) {
  const listeners = new Set<(signal: NodeJS.Signals) => void>();
  const timers: NodeJS.Timeout[] = [];
  let signal: NodeJS.Signals | undefined;
  let giveUp: (ended: { signal: NodeJS.Signals; listened: boolean }) => void = () => {};
  const givenUp = new Promise<{ signal: NodeJS.Signals; listened: boolean }>((resolve) => (giveUp = resolve));
  const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms));
  const startGrace = (received: NodeJS.Signals) => {
    timers.splice(0).forEach(clearTimeout);
    later(ABORT_AFTER_MS, () => [...listeners].forEach((listener) => listener(received)));
    later(GIVE_UP_AFTER_MS, () => giveUp({ signal: received, listened: true }));
  };
  const stopWatching = io.onInterrupt((received) => {
    if (signal !== undefined) return;
    signal = received;
    // This listener was subscribed first, so it runs before the command's own.
    if (listeners.size > 0) startGrace(received);
    else later(UNHEARD_AFTER_MS, () => giveUp({ signal: received, listened: false }));
  });
  return {
    // The Io the command gets: its interrupt listeners are counted, so cai knows whether anything will stop.
    io: {
      ...io,
      stdout: statingInterrupt(io.stdout, () => signal === 'SIGINT'),
      onInterrupt(listener: Parameters<Io['onInterrupt']>[0]) {
        listeners.add(listener);
        // Subscribed after the signal came (it is delivered to it all the same): the grace starts now.
        if (signal !== undefined && listeners.size === 1) startGrace(signal);
        const off = io.onInterrupt(listener);
        return () => {
          listeners.delete(listener);
          off();
        };
      },
    },
    /** The first signal received. */
    get signal() {
      return signal;
    },
    /** Resolves when cai must stop without waiting for the command any longer. */
    givenUp,
    dispose() {
      timers.splice(0).forEach(clearTimeout);
      stopWatching();
    },
  };
}

/**
 * After Ctrl-C cai exits 130 whatever the command decided, so a JSON document written then states 130 too (its
 * `exitCode`, or its error's): the one place a result's code and the process's are made to agree (docs/cli.md).
 */
function statingInterrupt(stdout: Io['stdout'], interrupted: () => boolean): Io['stdout'] {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const document = interrupted() && typeof chunk === 'string' && chunk.startsWith('{') ? parsed(chunk) : undefined;
    const coded = typeof document?.exitCode === 'number' ? document : document?.error;
    if (typeof coded?.exitCode !== 'number') return (stdout.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    coded.exitCode = ExitCode.interrupted;
    return (stdout.write as (...args: unknown[]) => boolean)(`${jsonText(document)}\n`, ...rest);
  };
  return new Proxy(stdout, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key === 'write') return write;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function parsed(text: string): { exitCode?: unknown; error?: { exitCode?: unknown } } | undefined {
  try {
    return JSON.parse(text) as { exitCode?: unknown; error?: { exitCode?: unknown } };
  } catch {
    return undefined;
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

function reportError(error: unknown, output: Output, argv: readonly string[], program?: Command): number {
  if (error instanceof CommanderError) {
    // `cai help <command>` ends with code commander.help and exit code 0; a group without its subcommand, exit code 1.
    if (error.code === 'commander.helpDisplayed' || (error.code === 'commander.help' && error.exitCode === 0))
      return ExitCode.ok;
    const group = commandWordOf(argv);
    if (error.code === 'commander.help') {
      // A command group run without its subcommand: commander has printed the group's help on stderr.
      const message = group ? `cai ${group} needs a subcommand` : 'cai needs a command';
      const hint = group ? `run 'cai ${group} --help' for its subcommands` : "run 'cai --help' for the commands";
      return print(output, 'usage', message, hint, ExitCode.usage, error);
    }
    // Commander puts its suggestion on a second line; keep the error to one line.
    const message = shortenQuotedValues(
      withChoiceSuggestion(
        error.message.replace(/^error:\s*/, '').replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)'),
      ),
    );
    // For a mistyped subcommand, point at the group's help, not at the mistyped word's.
    const command = error.code === 'commander.unknownCommand' ? group : commandNameOf(argv, program);
    const help = command
      ? `run 'cai ${command} --help' for its options and examples`
      : "run 'cai --help' for the commands";
    // `cai send-event … event.json`, as curl or Hurl take a file: here a body is given with --body.
    const hint =
      error.code === 'commander.excessArguments' && command !== undefined && takesBody(program, command)
        ? `a file to send, sign or check is given with --body FILE (- for stdin); ${help}`
        : help;
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

/** A value outside commander's `.choices()`: the choice meant, when it is a typo (`--interface b`: B). */
function withChoiceSuggestion(message: string): string {
  const invalid = /'([^']*)' is invalid[^.]*\. Allowed choices are (.+)\.$/.exec(message);
  const near = invalid ? closestValue(invalid[1] as string, (invalid[2] as string).split(', ')) : undefined;
  return near === undefined ? message : `${message.slice(0, -1)}; did you mean ${near}?`;
}

/** How much of a value commander quotes back an error line keeps: a pasted file is not echoed whole. */
const QUOTED_VALUE_SHOWN = 80;

/** `argument 'xxxx…'` cut to its first characters, with the count of all of them, so the error stays one short line. */
function shortenQuotedValues(message: string): string {
  return message.replace(/'([^']{200,})'/g, (_, value: string) => {
    const shown = Array.from(value).slice(0, QUOTED_VALUE_SHOWN).join('');
    return `'${shown}…' (${value.length} characters)`;
  });
}

function print(output: Output, code: string, message: string, hint: string, exitCode: number, error?: unknown): number {
  if (output.json) {
    output.printJson({ ok: false, error: { code, message, hint, exitCode } });
  } else {
    output.error(message, hint);
  }
  if (output.debug && error instanceof Error && error.stack) {
    output.debugLine(redactSecrets(error.stack));
    if (error.cause instanceof Error && error.cause.stack)
      output.debugLine(`caused by: ${redactSecrets(error.cause.stack)}`);
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

/**
 * `sign`, `mock platform` for a command group, `load export` for a command with subcommands of its own: used to
 * point the hint at the right `--help`.
 */
function commandNameOf(argv: readonly string[], program?: Command): string | undefined {
  const first = commandWordOf(argv);
  if (!first) return undefined;
  const words = commandWords(argv);
  const second = words[words.indexOf(first) + 1];
  if (second === undefined) return first;
  const ownSubcommand = program?.commands
    .find((command) => command.name() === first)
    ?.commands.some((command) => command.name() === second);
  return (GROUPS.has(first) && /^[a-z]+$/.test(second)) || ownSubcommand === true ? `${first} ${second}` : first;
}

/** Whether the command named `cai <name>` has a --body option. */
function takesBody(program: Command | undefined, name: string): boolean {
  let command: Command | undefined = program;
  for (const word of name.split(' ')) command = command?.commands.find((each) => each.name() === word);
  return command?.options.some((option) => option.long === '--body') === true;
}

const GROUPS = new Set(Object.keys(GROUP_SUBCOMMANDS));

/**
 * `cai` alone, or a group such as `cai mock` without its subcommand: one error line and one hint line,
 * instead of commander's full help followed by an error.
 */
function missingCommandOf(argv: readonly string[]): CaiError | undefined {
  if (argv.some((word) => word === '-h' || word === '--help' || word === '-V' || word === '--version'))
    return undefined;
  const [first, second] = commandWords(argv);
  // `cai --bogus`: commander's unknown-option error, not a missing command.
  if (first === undefined && argv.some((word) => word.startsWith('-') && !isGlobalFlag(word))) return undefined;
  if (first === undefined)
    return usageError('missing_command', 'cai needs a command', "run 'cai --help' for the commands");
  const subcommands = GROUP_SUBCOMMANDS[first];
  if (subcommands !== undefined && second === undefined) {
    return usageError(
      'missing_command',
      `cai ${first} needs a subcommand: ${subcommands}`,
      `run 'cai ${first} --help' for what each does`,
    );
  }
  return undefined;
}

/** Entry point of `bin/cai.js`: the only place that touches `process.exitCode`. */
export async function main(): Promise<void> {
  // `cai … | head` closes the pipe early: that is the reader's choice, not an error to report. The command goes on
  // (its writes are dropped) and exits with its own code once decided: `send-event … 2>&1 | true` still exits 3.
  let finished = false;
  for (const [name, stream] of [
    ['stdout', process.stdout],
    ['stderr', process.stderr],
  ] as const) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') {
        if (finished) process.exit(process.exitCode ?? 0);
        return;
      }
      // A full disk or a closed descriptor is the environment's doing, not a bug: exit 2, like any unwritable path.
      if (name === 'stdout') {
        process.stderr.write(
          `error: cannot write the result to stdout (${error.code ?? error.message})\nhint: check where stdout is redirected\n`,
        );
      }
      process.exit(ExitCode.usage);
    });
  }
  try {
    const code = await run(process.argv.slice(2), processIo());
    process.exitCode = code;
    finished = true;
    // After Ctrl-C nothing may keep cai alive (a request still in flight, a server still closing): what had to be
    // written is written; stdout and stderr get a moment to drain.
    if (code === ExitCode.interrupted || code === 143) setTimeout(() => process.exit(code), 200).unref();
  } catch (error) {
    // run() reports every error itself; this is the last line of defence, without a stack trace.
    const { safeText } = await import('./output/safe-text.js');
    const { maskSecrets } = await import('./secrets/mask.js');
    process.stderr.write(
      `error: internal error: ${safeText(maskSecrets(errorMessage(error)))}\nhint: this is a bug in cai; please report it with the output of --debug\n`,
    );
    process.exitCode = ExitCode.internal;
  }
}
