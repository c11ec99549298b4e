/**
 * The command line of a conformance run with its selection replaced by one check (`--only ID`): what a
 * reproduction runs when only the whole check shows the failure again (a sender's retries, a provider's callbacks,
 * a check against the built-in receiver, which is gone when the run ends). Every option given on the command line
 * is repeated as written, except the selection, the report files and the repro directory (the rerun prints its
 * own verdict), and a secret given inline, which is never written out: it becomes the environment variable the
 * user is told to set. A run against the built-in receiver needs no secret at all: it generates its own.
 */
import type { Command } from 'commander';
import { shellQuote } from '../../output/curl.js';
import type { SecretSource } from '../../secrets/resolve.js';
import { hostPort } from '../../http/address.js';

const DROPPED = new Set([
  'only',
  'rerunFailed',
  'skip',
  'include',
  'junit',
  'html',
  'summary',
  'reproDir',
  'failFast',
  'maxFailures',
  'verbose',
  'waivers',
]);

/** The secret options, by attribute: their flag prefix and the variable an inline value is replaced by. */
const SECRET_OPTIONS: Record<string, { prefix: string; env: string }> = {
  secretEnv: { prefix: 'secret', env: 'CAI_SECRET' },
  secretFile: { prefix: 'secret', env: 'CAI_SECRET' },
  secret: { prefix: 'secret', env: 'CAI_SECRET' },
  callbackSecretEnv: { prefix: 'callback-secret', env: 'CAI_CALLBACK_SECRET' },
  callbackSecretFile: { prefix: 'callback-secret', env: 'CAI_CALLBACK_SECRET' },
  callbackSecret: { prefix: 'callback-secret', env: 'CAI_CALLBACK_SECRET' },
};

/** A secret source as a flag that never holds the value: `--secret-env NAME`, `--secret-file PATH`. */
function secretFlag(source: SecretSource, option: { prefix: string; env: string }): string {
  if (source.kind === 'env') return `--${option.prefix}-env ${shellQuote(source.ref)}`;
  if (source.kind === 'file') return `--${option.prefix}-file ${shellQuote(source.ref)}`;
  return `--${option.prefix}-env ${option.env}`;
}

/** The value of a parsed option as the user wrote it (durations back in ms, listen addresses back to HOST:PORT). */
function rawValueOf(flag: string, value: unknown): string {
  if (typeof value === 'object' && value !== null && 'host' in value && 'port' in value) {
    const { host, port } = value as { host: string; port: number };
    return hostPort(host, port);
  }
  if (typeof value === 'object' && value !== null && 'seed' in value) {
    const { seed, path } = value as { seed: number; path?: string };
    return path === undefined ? String(seed) : `${seed}:${path}`;
  }
  if (typeof value === 'number' && /wait|timeout|observe|budget/.test(flag)) return `${value}ms`;
  return String(value);
}

export function rerunCommand(cmd: Command, invocation: string): (checkId: string) => string {
  const mock = cmd.getOptionValue('mock') === true;
  const words: string[] = [];
  for (const option of cmd.options) {
    const key = option.attributeName();
    if (DROPPED.has(key) || cmd.getOptionValueSource(key) !== 'cli') continue;
    const value = cmd.getOptionValue(key) as unknown;
    // `--generate N` and `--no-generate` share one value: the negating flag is written for false alone.
    if (option.negate) {
      if (value === false) words.push(option.long ?? '');
      continue;
    }
    const secret = SECRET_OPTIONS[key];
    if (secret) {
      if (!mock) words.push(...[...new Set((value as SecretSource[]).map((source) => secretFlag(source, secret)))]);
    } else if (value === true) words.push(option.long ?? '');
    else if (Array.isArray(value)) for (const item of value) words.push(`${option.long} ${shellQuote(String(item))}`);
    else if (value !== undefined && value !== false)
      words.push(`${option.long} ${shellQuote(rawValueOf(option.long ?? '', value))}`);
  }
  return (checkId) => [invocation, 'conformance', 'run', ...words, '--only', checkId].join(' ');
}
