/**
 * Every command, by the word that invokes it, in the order of `cai --help`: its usage (what follows its name in the
 * list) and what it does. `cai --help` lists them from here without loading any command (START-UP RULE); a
 * command's module takes its description from here. Their modules are src/commands/common/registry.ts's to load.
 */
import { Help, type Command } from 'commander';

export interface ListedCommand {
  name: string;
  /** What `cai --help` writes after the name: `[options] [kind] [files...]`, as commander would from the module. */
  usage: string;
  description: string;
}

/** What each command does, by its word, in the order of `cai --help`. */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  sign: 'Sign a body as §5 prescribes and print the X-CAI-Timestamp and X-CAI-Signature headers',
  verify: 'Check an X-CAI-Signature against a body and timestamp (§5), and explain a mismatch',
  validate: 'Check contact jobs, events and acknowledgments against the spec (§2), offline',
  sample: 'Print valid, realistic documents: contact jobs, events, acknowledgments (§2)',
  schema:
    'Print the JSON Schema (2020-12) of the documents or of cai.config.json, or an OpenAPI 3.1 document of both interfaces',
  'send-job':
    'Send a signed contact job to a provider (Interface A, §4.1) with the retry policy of §7, and check the acknowledgment (§2.3)',
  'send-event':
    'Send a signed event to the platform (Interface B, §4.2) with the retry policy of §7, and say whether it counted as new or duplicate (§2.13)',
  replay:
    'Re-send a captured raw HTTP request: the same body bytes with a fresh signature (§5), or unchanged with --keep-timestamp',
  trigger:
    'Send the events of a whole flow to a platform (Interface B), signed and paced; or one job to a provider (Interface A) and show its conversation as it comes back',
  mock: 'Run a reference receiver: the platform (Interface B) or the provider (Interface A)',
  conformance: 'Run the conformance suite against a receiver of either interface (the onboarding gate, §1 steps 4–5)',
  config: "Deployment profiles (cai.config.json): the private annex of §1 as every command's defaults",
  doctor:
    'Check this machine and an environment before blaming the code: Node.js, secrets, configuration, then DNS, TCP, TLS ≥ 1.2 (§5.8), certificate, clock offset (§5.5)',
  report:
    'The operation report of §1 from a log of jobs and events: first contact, conversations, appointments, outcomes, delivery delay',
  load: 'Load a receiver of either interface at a set rate, every request freshly signed; judge k6-style thresholds and the §8 service levels',
  completion: 'Print a shell completion script for cai: commands, flags, fault names, event types and other values',
};

/** What `cai --help` writes after a command's name where it is not `[options]`: its arguments, or nothing for a group. */
const USAGES: Readonly<Record<string, string>> = {
  validate: '[options] [kind] [files...]',
  sample: '',
  schema: '[options] [what]',
  trigger: '[options] [flow]',
  mock: '',
  conformance: '',
  config: '',
  completion: '<shell>',
};

export const COMMAND_LIST: readonly ListedCommand[] = Object.entries(DESCRIPTIONS).map(([name, description]) => ({
  name,
  usage: USAGES[name] ?? '[options]',
  description,
}));

/** A command's declaration on the program: its word and what it does, as `cai --help` says it (COMMAND_LIST). */
export function declareCommand(program: Command, name: string): Command {
  const entry = COMMAND_LIST.find((command) => command.name === name);
  if (entry === undefined) throw new Error(`no command ${name} in src/commands/common/list.ts`);
  return program.command(name).description(entry.description);
}

/**
 * `cai --help`'s list without the commands' modules: each command by its name, usage and description only. Not
 * for running: a command word in argv registers its module instead (program.ts).
 */
export function registerListing(program: Command): void {
  for (const entry of COMMAND_LIST) program.command(entry.name).description(entry.description);
  program.configureHelp({
    ...program.configureHelp(),
    subcommandTerm(this: Help, command: Command): string {
      const listed = COMMAND_LIST.find((entry) => entry.name === command.name())?.usage;
      if (listed === undefined) return Help.prototype.subcommandTerm.call(this, command);
      return listed === '' ? command.name() : `${command.name()} ${listed}`;
    },
  });
}
