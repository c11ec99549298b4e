/** Flags given twice: one place, over the whole program, loaded by every command (nothing heavy: commander and errors). */
import type { Command } from 'commander';
import { usageError } from '../../errors.js';

/**
 * A flag that takes one value, given twice, is a usage error: the last value would silently win. A repeatable flag
 * is known by its parser, which keeps the values before (`collectValues`, `collectOneOf`, a secret list). Only the
 * command line counts: a profile's or an environment's value is set apart from it, and is no first value.
 * Installed once over the whole program (src/program.ts), after every command is registered.
 */
export function refuseRepeatedFlags(program: Command): void {
  const visit = (command: Command) => {
    for (const option of command.options.filter((candidate) => candidate.required)) {
      let first: { raw: string; value: unknown } | undefined;
      command.on(`option:${option.name()}`, (raw: string) => {
        const value = command.getOptionValue(option.attributeName()) as unknown;
        if (first !== undefined && !keepsBefore(first.value, value)) {
          const flag = option.long ?? (option.short as string);
          throw usageError(
            'repeated_option',
            `${flag} is given twice (${first.raw} and ${raw})`,
            `pass ${flag} once: only the flags whose --help says repeatable take several values`,
          );
        }
        first = { raw, value };
      });
    }
    command.commands.forEach(visit);
  };
  visit(program);
}

/** The parser collected: the values before are still there, and one more. */
function keepsBefore(before: unknown, after: unknown): boolean {
  return (
    Array.isArray(before) &&
    Array.isArray(after) &&
    after.length > before.length &&
    before.every((item, index) => after[index] === item)
  );
}
