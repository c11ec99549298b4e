import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { hasSurroundingWhitespace, resolveSecrets, type Secret, type SecretSource } from '../../secrets/resolve.js';
import { shellQuote } from '../../shell.js';
import type { Terminal } from '../../output/progress.js';

let sequence = 0;

function collect(kind: SecretSource['kind'], named: string) {
  return (ref: string, previous: SecretSource[] | undefined): SecretSource[] => [
    ...(previous ?? []),
    { kind, named, ref, order: sequence++ },
  ];
}

export type SecretPrefix = 'secret' | 'callback-secret' | 'other-secret';

/** The attributes of a prefix's options as commander names them: `callbackSecretEnv`, `callbackSecretFile`, `callbackSecret`. */
export function secretKeys(prefix: SecretPrefix): [env: string, file: string, inline: string] {
  const key = prefix.replace('-s', 'S');
  return [`${key}Env`, `${key}File`, key];
}

/** Adds `--<prefix>-env`, `--<prefix>-file` and `--<prefix>`, each repeatable (a rotation overlap, §5.9). */
export function addSecretOptions(command: Command, prefix: SecretPrefix, what: string): Command {
  return command
    .option(
      `--${prefix}-env <name>`,
      `${what}: read from environment variable NAME (repeatable)`,
      collect('env', `--${prefix}-env`),
    )
    .option(
      `--${prefix}-file <path>`,
      `${what}: read from a file, one trailing newline removed (repeatable)`,
      collect('file', `--${prefix}-file`),
    )
    .option(
      `--${prefix} <value>`,
      `${what}: given inline (repeatable; leaks into shell history)`,
      collect('value', `--${prefix}`),
    );
}

/** The secret sources of one prefix, from commander's parsed options. */
function secretSources(options: Record<string, unknown>, prefix: SecretPrefix): SecretSource[] {
  return secretKeys(prefix).flatMap((name) => (Array.isArray(options[name]) ? (options[name] as SecretSource[]) : []));
}

/** Resolves secrets for a command and prints the warnings the issue asks for (inline value, stray whitespace). */
export function secretsFromOptions(
  options: Record<string, unknown>,
  prefix: SecretPrefix,
  { io, output }: Terminal,
  defaultEnv?: string,
): Secret[] {
  const sources = secretSources(options, prefix);
  const secrets = resolveSecrets(sources, io.env, { prefix, defaultEnv }, io.cwd);
  if (sources.some((source) => source.kind === 'value')) {
    output.warn(
      `--${prefix} puts the secret in your shell history and the process list; prefer --${prefix}-env or --${prefix}-file`,
    );
  }
  secrets.forEach((secret) => {
    if (hasSurroundingWhitespace(secret.value)) {
      output.warn(`the secret from ${secret.label} has leading or trailing whitespace; it is used exactly as given`);
    }
  });
  return secrets;
}

/** Only whether any secret flag of this prefix was given (for optional secrets such as --other-secret). */
export function hasSecretOptions(options: Record<string, unknown>, prefix: SecretPrefix): boolean {
  return secretSources(options, prefix).length > 0;
}

/** The signing secrets (`--secret*`, default $CAI_SECRET) in the order given: the first signs, any verifies (§5.9). */
export function signingSecrets(options: Record<string, unknown>, terminal: Terminal): Secret[] {
  return secretsFromOptions(options, 'secret', terminal, 'CAI_SECRET');
}

/** The events secrets of Interface B (`--callback-secret*`, default $CAI_CALLBACK_SECRET, §5.1). */
export function callbackSecretsOf(options: Record<string, unknown>, terminal: Terminal): Secret[] {
  return secretsFromOptions(options, 'callback-secret', terminal, 'CAI_CALLBACK_SECRET');
}

/** The secret that signs (`--secret*`, default $CAI_SECRET): the first one given; a usage error when there is none. */
export function signingSecret(options: Record<string, unknown>, terminal: Terminal): string {
  const secrets = signingSecrets(options, terminal);
  const first = secrets[0];
  if (!first)
    throw usageError(
      'missing_secret',
      'no signing secret',
      'pass --secret-env NAME or --secret-file PATH (or set CAI_SECRET)',
    );
  if (secrets.length > 1) terminal.output.info(`signing with the first of ${secrets.length} secrets (${first.label})`);
  return first.value;
}

/**
 * The flag that gives a `cai` command a secret by its source, never its value: `--<prefix>-env NAME` or
 * `--<prefix>-file PATH` from a label such as `--secret-env NAME` or `--test-secret-file PATH`, or a variable's name;
 * a secret given inline or generated, which must not be repeated, becomes `--<prefix>-env <defaultEnv>`.
 */
export function secretFlagFor(label: string | undefined, prefix = 'secret', defaultEnv = 'CAI_SECRET'): string {
  const flag = label === undefined ? undefined : /^--[a-z-]*secret-(env|file) (.+)$/.exec(label);
  if (flag) return `--${prefix}-${flag[1]} ${shellQuote(flag[2] as string)}`;
  if (label !== undefined && /^[A-Z_][A-Z0-9_]*$/.test(label)) return `--${prefix}-env ${label}`;
  return `--${prefix}-env ${defaultEnv}`;
}
