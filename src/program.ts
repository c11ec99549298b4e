import { Command, CommanderError } from 'commander';
import type { RunState } from './commands/common/runner.js';
import { installConfigDefaults } from './commands/common/config-defaults.js';
import { installTargetAlias } from './commands/common/target-alias.js';
import type { Io } from './io.js';
import { fitHelp } from './output/layout.js';
import { didYouMean } from './suggest.js';
import { usageError, useWords } from './errors.js';
import { SHARED_HINTS } from './commands/common/hints.js';
import { COMMANDS } from './commands/common/registry.js';
import { registerListing } from './commands/common/list.js';
import { refuseRepeatedFlags } from './commands/common/repeated-flags.js';

/** Commands that only group subcommands, with the subcommands named in the error when none is given. */
export const GROUP_SUBCOMMANDS: Readonly<Record<string, string>> = {
  sample: 'job, event, ack, duplicate-ack',
  mock: 'platform, provider',
  conformance: 'run, list, coverage',
  config: 'show, init',
};

/** The options every command takes, declared once: the program's, and what argv is read by before commander. */
const GLOBAL_OPTIONS: readonly (readonly [flags: string, description: string])[] = [
  ['-V, --version', 'print the version of cai and of the spec it implements'],
  ['--json', 'print exactly one JSON document on stdout (errors included)'],
  ['--no-color', 'no colour (also NO_COLOR, or when the output is not a terminal)'],
  ['--quiet', 'print only the result, warnings and errors (no progress, no notes)'],
  ['--debug', 'add stack traces to errors'],
  [
    '--config <file>',
    'the deployment profile to use (default: $CAI_CONFIG, else the nearest cai.config.json from here up to the repository root)',
  ],
  ['--env <name>', 'the environment of the profile whose values are the defaults (default: $CAI_ENV)'],
];

const longFlagOf = (flags: string) => (flags.match(/--[a-z-]+/) as RegExpMatchArray)[0];

/** Global options that take a value, skipped when looking for the command word. */
const GLOBAL_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set(
  GLOBAL_OPTIONS.filter(([flags]) => flags.includes('<')).map(([flags]) => longFlagOf(flags)),
);
const GLOBAL_LONG_FLAGS: ReadonlySet<string> = new Set(GLOBAL_OPTIONS.map(([flags]) => longFlagOf(flags)));

/** Whether `word` is one of the global options (`--config=FILE` too). */
export function isGlobalFlag(word: string): boolean {
  return GLOBAL_LONG_FLAGS.has(word.split('=')[0] as string);
}

/** The words of argv that are neither options nor the value of a global option: the command and its operands. */
export function commandWords(argv: readonly string[]): string[] {
  return argv.filter((word, index) => !word.startsWith('-') && !GLOBAL_OPTIONS_WITH_VALUE.has(argv[index - 1] ?? ''));
}

/** The command word of argv, if it names a known command. */
export function commandWordOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] as string;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(word)) {
      i += 1;
      continue;
    }
    if (word === '--') return undefined;
    if (word.startsWith('-')) continue;
    return COMMANDS.some(({ name }) => name === word) ? word : undefined;
  }
  return undefined;
}

/** `cai help sign`: the command whose help commander's help command shows, when it names one. */
function helpTargetOf(argv: readonly string[]): string | undefined {
  const words = commandWords(argv);
  return words[0] === 'help' && COMMANDS.some(({ name }) => name === words[1]) ? words[1] : undefined;
}

/**
 * `cai help conformance run` as `cai conformance run --help`: commander's help command reads one word, and would
 * show the group's help for a subcommand. `help` alone or with one word is commander's own (`cai help sign`).
 * Returns the argv to parse, and the command words named after `help` (checked before commander shows any help).
 */
export function routeHelp(argv: readonly string[]): { argv: readonly string[]; path?: string[] } {
  let index = 0;
  while (index < argv.length && (argv[index] as string).startsWith('-'))
    index += GLOBAL_OPTIONS_WITH_VALUE.has(argv[index] as string) ? 2 : 1;
  if (argv[index] !== 'help') {
    // `cai sgin --help`: commander would show the program's help for a word that is no command; it is refused as
    // `cai sgin` is, with the command meant.
    const end = argv.indexOf('--');
    const asksHelp = argv.slice(0, end === -1 ? undefined : end).some((word) => word === '--help' || word === '-h');
    const first = commandWords(argv)[0];
    const unknown = first !== undefined && !COMMANDS.some(({ name }) => name === first);
    return asksHelp && unknown ? { argv, path: [first] } : { argv };
  }
  const rest = argv.slice(index + 1);
  const flag = rest.findIndex((word) => word.startsWith('-'));
  const path = flag === -1 ? rest : rest.slice(0, flag);
  if (path[0] === 'help') return { argv: [...argv.slice(0, index), '--help'] };
  if (path.length < 2) return path[0] === undefined ? { argv } : { argv, path };
  return { argv: [...argv.slice(0, index), ...path, '--help', ...rest.slice(path.length)], path };
}

/** The command that `cai help A B …` names, or a usage error naming the first word that is no command there. */
export function checkHelpPath(program: Command, path: readonly string[]): void {
  let command = program;
  for (const [index, word] of path.entries()) {
    const next = command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
    if (next === undefined) {
      const where = ['cai', ...path.slice(0, index)].join(' ');
      const known = command.commands.map((sub) => sub.name()).filter((name) => name !== 'help');
      const message =
        known.length === 0
          ? `${where} has no subcommands`
          : `${where} has no command ${word}${didYouMean(word, known)}`;
      throw usageError('unknown_command', message, `run '${where} --help' for its commands`);
    }
    command = next;
  }
}

/**
 * The width help is laid out for: the terminal's, else `COLUMNS` when the environment sets it (a pager, a script
 * that knows its width), else 80. Help is prose to read, so it is fitted even when piped.
 */
function helpWidth(stream: Io['stdout'], env: NodeJS.ProcessEnv): number {
  if (stream.isTTY === true && (stream.columns ?? 0) > 0) return stream.columns as number;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns >= 20 ? columns : 80;
}

/** The code of the CommanderError thrown when `-V, --version` is given; main.ts prints the version for it. */
export const VERSION_REQUESTED = 'commander.version';

/**
 * Builds the commander program. Each command module declares its own flags and lazy-imports its
 * domain code inside the action, so `cai sign` loads no zod, undici, ora or mock code.
 * Only the invoked command's module is registered; `cai --help` and unknown words get the list of
 * src/commands/common/registry.ts, no module; `cai completion` (and a program built without argv) gets them all.
 */
export async function buildProgram(state: RunState, argv?: readonly string[]): Promise<Command> {
  // The domains' coded errors in the CLI's words, from the first hook on (a profile's errors come before any action).
  useWords(SHARED_HINTS);
  const program = new Command('cai').description(
    'Sign, verify, validate, send, mock and conformance-test the CAI push interface (spec v1.0).',
  );
  for (const [flags, description] of GLOBAL_OPTIONS) program.option(flags, description);
  program
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => state.io.stdout.write(fitHelp(text, helpWidth(state.io.stdout, state.io.env))),
      writeErr: (text) => state.io.stderr.write(fitHelp(text, helpWidth(state.io.stderr, state.io.env))),
      getOutHelpWidth: () => helpWidth(state.io.stdout, state.io.env),
      getErrHelpWidth: () => helpWidth(state.io.stderr, state.io.env),
      // main.ts prints usage errors itself, as `error:` + `hint:` (or JSON).
      outputError: () => {},
    })
    // Descriptions wrap in their column down to 20 columns wide (commander's default gives up below 40).
    .configureHelp({ minWidthToWrap: 20 });

  // The version is read from package.json only when asked for (src/version.ts); main.ts prints it, --json aware.
  program.on('option:version', () => {
    throw new CommanderError(0, VERSION_REQUESTED, 'version requested');
  });
  // No argv: every command (the completion script and the tests read the whole program).
  const word = argv === undefined ? 'completion' : (commandWordOf(argv) ?? helpTargetOf(argv));
  if (word === undefined) {
    // `cai --help`, or a word that is no command (commander suggests the one meant): the list alone, no module.
    registerListing(program);
  } else {
    // `cai completion` reads every command's flags from the program itself, so it needs them all.
    const wanted = word === 'completion' ? COMMANDS : COMMANDS.filter(({ name }) => name === word);
    const registers = await Promise.all(wanted.map(({ load }) => load()));
    for (const register of registers) register(program, state);
  }
  // One preAction hook applies cai.config.json defaults to whichever command runs.
  installConfigDefaults(program, state);
  // `--to` on every command that has an address, `--target` accepted as its other name.
  installTargetAlias(program);
  refuseRepeatedFlags(program);
  return program;
}
