/**
 * The flags several commands take, each written once: its syntax and the reader of its value (a secret, its family
 * of three, src/commands/common/secret-options.ts). Each command gives them its own help (`addFlags`); their values
 * are typed by `SharedFlags`.
 */
import { Option, type Command } from 'commander';
import { parseHttpUrl } from './options.js';
import { addSecretOptions } from './secret-options.js';

const SHARED_FLAGS = {
  to: ['--to <url>', parseHttpUrl],
  provider: ['--provider <code>'],
  source: ['--source <id>'],
  branchCode: ['--branch-code <code>'],
  leadId: ['--lead-id <id>'],
  callbackUrl: ['--callback-url <url>', parseHttpUrl],
  publicUrl: ['--public-url <url>', parseHttpUrl],
  mock: ['--mock'],
  html: ['--html <file>'],
  tlsCert: ['--tls-cert <file>'],
  tlsKey: ['--tls-key <file>'],
} as const satisfies Record<string, SharedFlagSyntax>;
type SharedFlagSyntax = readonly [flags: string, parse?: (value: string) => string];
type SharedFlag = keyof typeof SHARED_FLAGS;

/** The secret families (`--secret-env`, `--secret-file`, `--secret`), by the key `addFlags` takes them under. */
const SECRET_FAMILIES = { secret: 'secret', callbackSecret: 'callback-secret' } as const;

/** The values of the shared flags, as commander names them. */
export type SharedFlags = { [K in SharedFlag]?: K extends 'mock' ? boolean : string };

/** Adds these shared flags to `command`, each with this command's help, in the order given (the order of --help). */
export function addFlags(
  command: Command,
  help: Partial<Record<SharedFlag | keyof typeof SECRET_FAMILIES, string>>,
): Command {
  for (const [name, text] of Object.entries(help)) {
    if (name in SECRET_FAMILIES) {
      addSecretOptions(command, SECRET_FAMILIES[name as keyof typeof SECRET_FAMILIES], text);
      continue;
    }
    const [flags, parse]: SharedFlagSyntax = SHARED_FLAGS[name as SharedFlag];
    command.addOption(parse ? new Option(flags, text).argParser(parse) : new Option(flags, text));
  }
  return command;
}
