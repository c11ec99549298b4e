import type { Argument, Command, Option } from 'commander';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../mock/faults.js';
import { EVENT_TYPES } from '../../spec/constants.js';
import { flowNames } from '../../send/flows.js';

/**
 * What a shell needs to complete `cai`, read from the commander program itself (every registered command,
 * option and argument), so the completion scripts cannot drift from the flags the tool accepts.
 */

/** What the word after an option, or a positional word, completes to. */
export type Completion =
  | { kind: 'none' }
  | { kind: 'files' }
  | { kind: 'directories' }
  | { kind: 'words'; words: string[] };

export interface CompletionOption {
  /** `-V` and `--version`, as declared. */
  flags: string[];
  description: string;
  /** Whether the option reads the next word as its value: never, always (`<x>`), or when it does not start with `-` (`[x]`). */
  value: 'none' | 'required' | 'optional';
  completion: Completion;
}

export interface CompletionCommand {
  name: string;
  /** Words from the program to here: `[]` for cai itself, `['mock', 'platform']`. */
  path: string[];
  description: string;
  subcommands: CompletionCommand[];
  /** Its own options, then those of every command above it (commander accepts them anywhere). */
  options: CompletionOption[];
  /** What its positional arguments complete to (all of them merged: one list, or files). */
  positional: Completion;
}

/**
 * Values that commander does not hold as `choices`, by the placeholder an option or argument names them with
 * (`--break <fault>`, `sample event <type>`, `--sample [type]`, `trigger [flow]`). The sets themselves come from the
 * domain.
 */
function completionByPlaceholder(placeholder: string, path: readonly string[]): Completion | undefined {
  switch (placeholder) {
    case 'fault': {
      // `mock platform` and `mock provider` take their own faults; `conformance run --break` either, by --interface.
      const faults = path.includes('platform')
        ? PLATFORM_FAULTS
        : path.includes('provider')
          ? PROVIDER_FAULTS
          : { ...PLATFORM_FAULTS, ...PROVIDER_FAULTS };
      return { kind: 'words', words: Object.keys(faults) };
    }
    case 'type':
      return { kind: 'words', words: [...EVENT_TYPES] };
    case 'flow':
      return { kind: 'words', words: flowNames() };
    case 'file':
    case 'files':
      return { kind: 'files' };
    case 'dir':
      return { kind: 'directories' };
    default:
      return undefined;
  }
}

/** The placeholder of `--break <fault>` is `fault`; of `[files...]`, `files`. */
function placeholderOf(flags: string): string | undefined {
  return /[<[]([a-z-]+)(?:\.\.\.)?[>\]]/.exec(flags)?.[1];
}

function completionOf(
  choices: readonly string[] | undefined,
  placeholder: string | undefined,
  path: readonly string[],
): Completion {
  if (choices && choices.length > 0) return { kind: 'words', words: [...choices] };
  return (placeholder !== undefined ? completionByPlaceholder(placeholder, path) : undefined) ?? { kind: 'none' };
}

/** `--secret-file <path>` names a file whatever its placeholder says; `--unset <path>` and `--path <path>` do not. */
function isFileOption(option: Option): boolean {
  return option.long?.endsWith('-file') === true;
}

function optionOf(option: Option, path: readonly string[]): CompletionOption {
  const value = option.required ? 'required' : option.optional ? 'optional' : 'none';
  return {
    flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
    description: oneLine(option.description),
    value,
    completion:
      value === 'none'
        ? { kind: 'none' }
        : isFileOption(option)
          ? { kind: 'files' }
          : completionOf(option.argChoices, placeholderOf(option.flags), path),
  };
}

function positionalOf(args: readonly Argument[], path: readonly string[]): Completion {
  const completions = args.map((arg) => completionOf(arg.argChoices, arg.name(), path));
  const words = completions.flatMap((completion) => (completion.kind === 'words' ? completion.words : []));
  if (completions.some((completion) => completion.kind === 'files')) return { kind: 'files' };
  return words.length > 0 ? { kind: 'words', words } : { kind: 'none' };
}

/** The tree of `program`: build it with every command registered (`buildProgram(state)` without argv). */
export function completionTree(program: Command): CompletionCommand {
  return walk(program, [], []);
}

function walk(command: Command, path: string[], inherited: CompletionOption[]): CompletionCommand {
  const help = command.createHelp();
  // visibleOptions adds the help option; hidden options stay hidden.
  const own = help.visibleOptions(command).map((option) => optionOf(option, path));
  const ownFlags = new Set(own.flatMap((option) => option.flags));
  const options = [...own, ...inherited.filter((option) => !option.flags.some((flag) => ownFlags.has(flag)))];
  const globals = command.options.filter((option) => !option.hidden).map((option) => optionOf(option, path));
  const subcommands = help
    .visibleCommands(command)
    .map((sub) =>
      sub.name() === 'help' && !command.commands.includes(sub)
        ? helpCommand(sub, command, path)
        : walk(sub, [...path, sub.name()], [...globals, ...inherited]),
    );
  return {
    name: command.name(),
    path,
    description: command.summary() || oneLine(command.description()),
    subcommands,
    options,
    positional: positionalOf(command.registeredArguments, path),
  };
}

/** Commander's implicit `help [command]`: it completes to the names of the other commands. */
function helpCommand(help: Command, parent: Command, path: string[]): CompletionCommand {
  const names = parent.commands.filter((sub) => sub !== help).map((sub) => sub.name());
  return {
    name: 'help',
    path: [...path, 'help'],
    description: oneLine(help.description()),
    subcommands: [],
    options: [],
    positional: { kind: 'words', words: names },
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Every command of the tree, the program first, parents before their subcommands. */
export function flattenTree(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.subcommands.flatMap(flattenTree)];
}
