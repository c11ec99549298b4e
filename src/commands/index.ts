/**
 * Every command, by the word that invokes it, in the order of `cai --help`: its usage (what follows its name in the
 * list), what it does, and a lazy import of the module that registers it. `cai --help` lists them from here without
 * loading any module (START-UP RULE); a command's module takes its description from here. The conformance command
 * keeps its own copy until it moves into src/commands/conformance/ (a test holds the two equal).
 */
import { Help, type Command } from 'commander';
import type { RunState } from './runner.js';

export type Register = (program: Command, state: RunState) => void;

export interface CommandEntry {
  name: string;
  /** What `cai --help` writes after the name: `[options] [kind] [files...]`, as commander would from the module. */
  usage: string;
  description: string;
  load: () => Promise<Register>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'sign',
    usage: '[options]',
    description: 'Sign a body as §5 prescribes and print the X-CAI-Timestamp and X-CAI-Signature headers',
    load: async () => (await import('./sign/command.js')).registerSign,
  },
  {
    name: 'verify',
    usage: '[options]',
    description: 'Check an X-CAI-Signature against a body and timestamp (§5), and explain a mismatch',
    load: async () => (await import('./verify/command.js')).registerVerify,
  },
  {
    name: 'validate',
    usage: '[options] [kind] [files...]',
    description: 'Check contact jobs, events and acknowledgments against the spec (§2), offline',
    load: async () => (await import('./validate/command.js')).registerValidate,
  },
  {
    name: 'sample',
    usage: '',
    description: 'Print valid, realistic documents: contact jobs, events, acknowledgments (§2)',
    load: async () => (await import('./sample/command.js')).registerSample,
  },
  {
    name: 'schema',
    usage: '[options] [what]',
    description:
      'Print the JSON Schema (2020-12) of the documents or of cai.config.json, or an OpenAPI 3.1 document of both interfaces',
    load: async () => (await import('./schema/command.js')).registerSchema,
  },
  {
    name: 'send-job',
    usage: '[options]',
    description:
      'Send a signed contact job to a provider (Interface A, §4.1) with the retry policy of §7, and check the acknowledgment (§2.3)',
    load: async () => (await import('./send/command.js')).registerSendJob,
  },
  {
    name: 'send-event',
    usage: '[options]',
    description:
      'Send a signed event to the platform (Interface B, §4.2) with the retry policy of §7, and say whether it counted as new or duplicate (§2.13)',
    load: async () => (await import('./send/command.js')).registerSendEvent,
  },
  {
    name: 'replay',
    usage: '[options]',
    description:
      'Re-send a captured raw HTTP request: the same body bytes with a fresh signature (§5), or unchanged with --keep-timestamp',
    load: async () => (await import('./replay/command.js')).registerReplay,
  },
  {
    name: 'trigger',
    usage: '[options] [flow]',
    description:
      'Send the events of a whole flow to a platform (Interface B), signed and paced; or one job to a provider (Interface A) and show its conversation as it comes back',
    load: async () => (await import('./trigger/command.js')).registerTrigger,
  },
  {
    name: 'mock',
    usage: '',
    description: 'Run a reference receiver: the platform (Interface B) or the provider (Interface A)',
    load: async () => (await import('./mock/command.js')).registerMock,
  },
  {
    name: 'conformance',
    usage: '',
    description: 'Run the conformance suite against a receiver of either interface (the onboarding gate, §1 steps 4–5)',
    load: async () => (await import('./conformance.js')).registerConformance,
  },
  {
    name: 'config',
    usage: '',
    description: "Deployment profiles (cai.config.json): the private annex of §1 as every command's defaults",
    load: async () => (await import('./config/command.js')).registerConfig,
  },
  {
    name: 'doctor',
    usage: '[options]',
    description:
      'Check this machine and an environment before blaming the code: Node.js, secrets, configuration, then DNS, TCP, TLS ≥ 1.2 (§5.8), certificate, clock offset (§5.5)',
    load: async () => (await import('./doctor/command.js')).registerDoctor,
  },
  {
    name: 'report',
    usage: '[options]',
    description:
      'The operation report of §1 from a log of jobs and events: first contact, conversations, appointments, outcomes, delivery delay',
    load: async () => (await import('./report/command.js')).registerReport,
  },
  {
    name: 'load',
    usage: '[options]',
    description:
      'Load a receiver of either interface at a set rate, every request freshly signed; judge k6-style thresholds and the §8 service levels',
    load: async () => (await import('./load/command.js')).registerLoad,
  },
  {
    name: 'completion',
    usage: '<shell>',
    description: 'Print a shell completion script for cai: commands, flags, fault names, event types and other values',
    load: async () => (await import('./completion/command.js')).registerCompletion,
  },
];

/** What a command does, as `cai --help` and its own help say it. */
export function describeCommand(name: string): string {
  const entry = COMMANDS.find((command) => command.name === name);
  if (entry === undefined) throw new Error(`no command ${name} in src/commands/index.ts`);
  return entry.description;
}

/**
 * `cai --help`'s list without the commands' modules: each command by its name, usage and description only. Not
 * for running: a command word in argv registers its module instead (program.ts).
 */
export function registerListing(program: Command): void {
  const usage = new Map(COMMANDS.map((entry) => [entry.name, entry.usage]));
  for (const entry of COMMANDS) program.command(entry.name).description(entry.description);
  program.configureHelp({
    ...program.configureHelp(),
    subcommandTerm(this: Help, command: Command): string {
      const listed = usage.get(command.name());
      if (listed === undefined) return Help.prototype.subcommandTerm.call(this, command);
      return listed === '' ? command.name() : `${command.name()} ${listed}`;
    },
  });
}
