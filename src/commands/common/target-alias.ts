/**
 * The address a command sends to or probes has one name on every command: `--to` (send-job, send-event, replay,
 * trigger, load, conformance run, doctor). `--target`, the name `conformance run` and `doctor` used to document, is
 * accepted by each of them as a hidden alias that sets `--to`: a command line written for either name runs. Given
 * both, with two different addresses, is a usage error. Installed once over the whole program (src/program.ts),
 * after every command is registered and after the profile's defaults (its hook runs first), so a `--target` on the
 * command line wins over a profile's address as `--to` would.
 */
import { Option, type Command } from 'commander';
import { usageError } from '../../errors.js';

const NAME = '--to';
const ALIAS = '--target';

export function installTargetAlias(program: Command): void {
  const visit = (command: Command) => {
    const main = command.options.find((option) => option.long === NAME);
    if (main !== undefined && !command.options.some((option) => option.long === ALIAS)) {
      const alias = new Option(`${ALIAS} <url>`, `another name for ${NAME}`).hideHelp();
      if (main.parseArg) alias.argParser(main.parseArg);
      command.addOption(alias);
      command.hook('preAction', () => mergeAlias(command, main.attributeName(), alias.attributeName()));
    }
    command.commands.forEach(visit);
  };
  visit(program);
}

/** Given by the user (the command line, or an environment variable commander reads), not a default or a profile's. */
const byUser = (source: string | undefined) => source === 'cli' || source === 'env';

/** The alias's value moves to the option it names; the alias is then as if not given. */
function mergeAlias(command: Command, main: string, alias: string): void {
  const value = command.getOptionValue(alias) as unknown;
  if (value === undefined) return;
  const source = command.getOptionValueSource(alias);
  const current = command.getOptionValue(main) as unknown;
  const currentSource = command.getOptionValueSource(main);
  if (byUser(source) && byUser(currentSource) && current !== undefined && current !== value) {
    throw usageError(
      'conflicting_options',
      `${NAME} and ${ALIAS} name two addresses`,
      `pass ${NAME} URL once (${ALIAS} is another name for it)`,
    );
  }
  if (current === undefined || (byUser(source) && !byUser(currentSource)))
    command.setOptionValueWithSource(main, value, source);
  command.setOptionValueWithSource(alias, undefined, 'default');
}
