/**
 * Flags given twice, or given with their negation: one place, over the whole program, loaded by every command (nothing
 * heavy: commander and errors).
 */
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
    refuseFlagAndNegation(command);
    command.commands.forEach(visit);
  };
  visit(program);
}

/**
 * A flag and its negation both given (`--generate 5 --no-generate`): they set one value, and the last would win
 * whichever it is. Only the command line counts, as above.
 */
function refuseFlagAndNegation(command: Command): void {
  for (const negation of command.options.filter((option) => option.negate)) {
    const flag = command.options.find(
      (option) => !option.negate && option.attributeName() === negation.attributeName(),
    );
    if (flag === undefined) continue;
    const seen = new Set<string>();
    for (const option of [flag, negation])
      command.on(`option:${option.name()}`, () => {
        seen.add(option.long as string);
        if (seen.size === 2)
          throw usageError(
            'conflicting_options',
            `${flag.long as string} and ${negation.long as string} are both given`,
            'pass one of them',
          );
      });
  }
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
