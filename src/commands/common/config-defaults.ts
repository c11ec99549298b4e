import type { Command, Option } from 'commander';
import type { Io } from '../../io.js';
import { Output } from '../../output/output.js';
import { locateConfig, noConfigForEnvironment, requestedEnvironment } from '../../config/locate.js';
import { globalOutputOptions, type RunState } from './runner.js';
import type { CommandView } from './config-defaults-values.js';

/**
 * Deployment profiles as defaults: ONE mechanism for every command. A preAction hook finds the
 * chosen environment of cai.config.json and sets each mapped option that the user did not give, with
 * commander's value source 'config', so flags (and their own env fallbacks) always win.
 *
 * The mapping itself is the table in src/commands/common/config-defaults-table.ts; the values it gives are
 * src/commands/common/config-defaults-values.ts. Both, and zod, are loaded only when a config file exists: `cai sign`
 * without one pays for an existsSync (START-UP RULE).
 */

/** The flags whose values may be request headers (src/commands/common/header-options.ts checks them). */
const HEADER_FLAGS: readonly (string | undefined)[] = ['--provider', '--source', '--test-provider'];

/** Commands that read the config themselves (and `config init`, which must work next to a broken file). */
const SELF_CONFIGURED = new Set(['config show', 'config init', 'doctor']);

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/**
 * Commander checks required options (`requiredOption`) before any hook runs, so a required option that the
 * profile would fill could never be filled. Installing therefore takes the check over: every mandatory option
 * is relaxed here and checked again in the hook, after the profile's values are in, with commander's own error.
 * Call it after every command is registered.
 */
export function installConfigDefaults(program: Command, state: RunState): void {
  const required = new Map<Command, Option[]>();
  const visit = (command: Command) => {
    const mandatory = command.options.filter((option) => option.mandatory);
    if (mandatory.length > 0) required.set(command, mandatory);
    mandatory.forEach((option) => option.makeOptionMandatory(false));
    command.commands.forEach(visit);
  };
  visit(program);
  program.hook('preAction', async (_program, actionCommand) => {
    await applyConfigDefaults(actionCommand, state.io);
    // Header values are checked once, here, whoever gave them: the user or the profile. The checker
    // loads only when such a flag has a value (START-UP RULE: `cai sign --body x` does not pay for it).
    const headerValued = actionCommand.options.filter((option) => HEADER_FLAGS.includes(option.long));
    if (headerValued.some((option) => typeof actionCommand.getOptionValue(option.attributeName()) === 'string')) {
      (await import('./header-options.js')).checkHeaderOptions(actionCommand, commandPath(actionCommand));
    }
    for (let command: Command | null = actionCommand; command; command = command.parent) {
      const missing = required
        .get(command)
        ?.find((option) => command?.getOptionValue(option.attributeName()) === undefined);
      if (missing)
        command.error(`error: required option '${missing.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
          exitCode: 1,
        });
    }
  });
}

/** The hook's body: finds the profile (existsSync only), and only then loads the code that reads it. */
async function applyConfigDefaults(command: Command, io: Io): Promise<void> {
  const path = commandPath(command);
  if (SELF_CONFIGURED.has(path)) return;
  const globals = command.optsWithGlobals() as { config?: string; env?: string };
  const request = requestedEnvironment(globals.env, io.env);
  const location = locateConfig(globals.config, io.env, io.cwd);
  if (!location) {
    if (request) throw noConfigForEnvironment(request, io.cwd);
    return;
  }
  const view = commandView(command, path);
  const { profileDefaults, rulesFor } = await import('./config-defaults-values.js');
  const setsNone = rulesFor(view).length === 0;
  // The profile sets none of this command's options, but an environment asked for, or a file named, is still read
  // and must be right (docs/operations.md: never silently ignored); a file merely found is left unread.
  if (setsNone && request === undefined && location.origin !== 'flag' && location.origin !== 'env') return;
  // zod and the schema only now: a command none of whose options the profile sets never loads them.
  const { chooseEnvironment, loadConfig } = await import('../../config/load.js');
  const chosen = chooseEnvironment(loadConfig(location), request);
  if (setsNone) return;
  const result = profileDefaults(view, chosen, location.path, io.env);
  for (const { flag, value } of result.defaults) {
    const option = command.options.find((candidate) => candidate.long === flag);
    if (option) command.setOptionValueWithSource(option.attributeName(), value, 'config');
  }
  if (result.applied.length + result.warnings.length + result.notes.length === 0) return;
  const output = await Output.create(io, globalOutputOptions(command));
  result.notes.forEach((note) => output.note(note));
  result.warnings.forEach((warning) => output.warn(warning));
  for (const item of result.applied)
    output.debugLine(`config: ${item.option} = ${item.shown} (${item.field} of environment ${result.environment})`);
}

/** The command as the defaults see it: its path, its --interface, its flags and which of them the user gave. */
function commandView(command: Command, path: string): CommandView {
  const flags = command.options.map((option) => option.long).filter((flag): flag is string => flag !== undefined);
  // 'cli' and 'env' (commander's own env fallbacks) are the user's; 'default', 'implied' and unset are not.
  const given = command.options
    .filter((option) => ['cli', 'env'].includes(command.getOptionValueSource(option.attributeName()) ?? ''))
    .map((option) => option.long);
  const iface = command.getOptionValue('interface') as unknown;
  return {
    path,
    flags: new Set(flags),
    given: new Set(given.filter((flag): flag is string => flag !== undefined)),
    ...(typeof iface === 'string' ? { interface: iface } : {}),
  };
}
