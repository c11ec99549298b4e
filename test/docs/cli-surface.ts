/**
 * The command-line surface as commander declares it (the program of src/program.ts, every command registered),
 * and a check of one documented `cai …` command line against it: the command words must name a real command or
 * subcommand, and every flag must be one that command (or the program) has.
 */
import { PassThrough, Readable } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { Io } from '../../src/io.js';

export async function loadProgram(): Promise<Command> {
  const io: Io = {
    stdin: Readable.from([]),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: process.cwd(),
    onInterrupt: () => () => {},
    now: () => Date.now(),
  };
  return buildProgram({ io, exitCode: 0 });
}

function flagsOf(command: Command): Set<string> {
  const flags = new Set<string>();
  for (let at: Command | null = command; at; at = at.parent) {
    for (const option of at.options) {
      if (option.long) flags.add(option.long);
      if (option.short) flags.add(option.short);
    }
    flags.add('-h').add('--help');
  }
  return flags;
}

/** Program options that take a value, so the word after them is not a command word. */
function valueFlags(program: Command): Set<string> {
  return new Set(
    program.options
      .filter((option) => option.required || option.optional)
      .flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined)),
  );
}

/** `[--body`, `FILE|-]`, `--secret-env=X`: the flags a documented word names. */
export function flagsInWord(word: string): string[] {
  return word
    .replace(/^[[(]+/, '')
    .split('|')
    .map((part) => part.replace(/^[[(]+/, ''))
    .filter((part) => /^--?[A-Za-z]/.test(part))
    .map((part) => part.replace(/[=\])…,].*$/, ''));
}

/** Whether a command runs an action of its own, besides its subcommands (commander keeps it as `_actionHandler`). */
function hasOwnAction(command: Command): boolean {
  return (command as unknown as { _actionHandler: unknown })._actionHandler != null;
}

export interface CommandCheck {
  /** `sign`, `mock platform`, … or undefined when the line names only global flags. */
  command?: string;
  problems: string[];
}

export function checkCommand(program: Command, words: readonly string[]): CommandCheck {
  const takesValue = valueFlags(program);
  let command: Command = program;
  const path: string[] = [];
  const problems: string[] = [];
  let index = 0;
  // The command words: non-flag words, skipping the values of global options, while the command has subcommands.
  while (index < words.length) {
    const word = words[index] as string;
    if (word === '--') break;
    if (word.startsWith('-')) {
      index += takesValue.has(word) || (command !== program && valueFlags(command).has(word)) ? 2 : 1;
      continue;
    }
    if (command.commands.length === 0) break;
    if (word === 'help' && command === program) {
      const target = words[index + 1];
      if (target !== undefined && !program.commands.some((sub) => sub.name() === target))
        problems.push(`cai help ${target}: no such command`);
      return { command: 'help', problems };
    }
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    // A command with an action of its own and subcommands (`cai load`, `cai load export`): other words are its arguments.
    if (!sub && hasOwnAction(command)) break;
    if (!sub) {
      problems.push(
        `${['cai', ...path].join(' ')} has no command "${word}" (it has: ${command.commands.map((candidate) => candidate.name()).join(', ')})`,
      );
      return { command: path.join(' ') || undefined, problems };
    }
    command = sub;
    path.push(sub.name());
    index += 1;
  }
  const known = flagsOf(command);
  for (const word of words) {
    if (word === '--') break;
    for (const flag of flagsInWord(word)) {
      if (!known.has(flag)) problems.push(`${['cai', ...path].join(' ')} has no option ${flag}`);
    }
  }
  return { command: path.join(' ') || undefined, problems };
}
