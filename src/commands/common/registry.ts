/**
 * Every command's module, loaded when its word is typed: the list of src/commands/common/list.ts, each with a lazy
 * import of the module that registers it. Only the module of the command being run is loaded (program.ts).
 */
import type { Command } from 'commander';
import { COMMAND_LIST, type ListedCommand } from './list.js';
import type { RunState } from './runner.js';

export type Register = (program: Command, state: RunState) => void;

export interface CommandEntry extends ListedCommand {
  load: () => Promise<Register>;
}

const LOADERS: Readonly<Record<string, () => Promise<Register>>> = {
  sign: async () => (await import('../sign/command.js')).registerSign,
  verify: async () => (await import('../verify/command.js')).registerVerify,
  validate: async () => (await import('../validate/command.js')).registerValidate,
  sample: async () => (await import('../sample/command.js')).registerSample,
  schema: async () => (await import('../schema/command.js')).registerSchema,
  'send-job': async () => (await import('../send/command.js')).registerSend('job'),
  'send-event': async () => (await import('../send/command.js')).registerSend('event'),
  replay: async () => (await import('../replay/command.js')).registerReplay,
  trigger: async () => (await import('../trigger/command.js')).registerTrigger,
  mock: async () => (await import('../mock/command.js')).registerMock,
  conformance: async () => (await import('../conformance/command.js')).registerConformance,
  config: async () => (await import('../config/command.js')).registerConfig,
  doctor: async () => (await import('../doctor/command.js')).registerDoctor,
  report: async () => (await import('../report/command.js')).registerReport,
  load: async () => (await import('../load/command.js')).registerLoad,
  completion: async () => (await import('../completion/command.js')).registerCompletion,
};

export const COMMANDS: readonly CommandEntry[] = COMMAND_LIST.map((entry) => {
  const load = LOADERS[entry.name];
  if (load === undefined) throw new Error(`no module for the command ${entry.name}`);
  return { ...entry, load };
});
