import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { codedError, optionName, usageError } from '../errors.js';

/**
 * Finding the deployment profile file. Kept free of zod: this runs on the start-up path of every command,
 * and a command run without a config file must not pay for the schema library (start-up rule).
 */

export const CONFIG_FILE_NAME = 'cai.config.json';

/**
 * How the config file was found: `--config FILE`, `CAI_CONFIG`, or `cai.config.json` in the working directory
 * (`cwd`) or in one of its parents up to the repository root (`parent`).
 */
export type ConfigOrigin = 'flag' | 'env' | 'cwd' | 'parent';

export interface ConfigLocation {
  /** Absolute path. */
  path: string;
  origin: ConfigOrigin;
}

/** Where the environment name came from. */
export type EnvironmentOrigin = 'flag' | 'env' | 'only' | 'default_env';

export interface EnvironmentRequest {
  name: string;
  origin: 'flag' | 'env';
}

/**
 * The config file to use, or undefined when there is none. A file named explicitly (flag or CAI_CONFIG) wins, and
 * one that does not exist is a usage error. Otherwise the nearest `cai.config.json` from the working directory up
 * to the repository root (see `configSearch`); none at all just means "no profile".
 */
export function locateConfig(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): ConfigLocation | undefined {
  const named =
    flag !== undefined
      ? { value: flag, origin: 'flag' as const, label: optionName('config') }
      : env.CAI_CONFIG
        ? { value: env.CAI_CONFIG, origin: 'env' as const, label: 'CAI_CONFIG' }
        : undefined;
  if (named) {
    if (named.value === '')
      throw usageError(
        'missing_config',
        `${named.label} is empty`,
        'name a cai.config.json file, or leave it out to use ./cai.config.json',
      );
    const path = resolve(cwd, named.value);
    if (!existsSync(path)) {
      throw usageError(
        'missing_config',
        `config file ${named.value} (from ${named.label}) does not exist`,
        "check the path, or create one with 'cai config init'",
      );
    }
    if (statSync(path).isDirectory()) {
      throw usageError(
        'missing_config',
        `config file ${named.value} (from ${named.label}) is a directory`,
        `name the file itself, e.g. ${named.value.replace(/\/$/, '')}/${CONFIG_FILE_NAME}`,
      );
    }
    return { path, origin: named.origin };
  }
  const found = configSearch(cwd).found;
  return found === undefined ? undefined : { path: found, origin: dirname(found) === resolve(cwd) ? 'cwd' : 'parent' };
}

export interface ConfigSearch {
  /** The nearest `cai.config.json`, absolute. */
  found?: string;
  /** The last directory looked in: the repository root, or the filesystem root outside any repository. */
  top: string;
  /** Whether `top` is a repository root (it holds `.git`, a directory, or a file in a worktree or submodule). */
  repository: boolean;
}

/**
 * Looks for `cai.config.json` in `cwd`, then each parent, stopping after the nearest directory that holds `.git`
 * (a profile above the repository belongs to something else) or at the filesystem root. A few stat calls: this
 * runs on every command's start-up.
 */
export function configSearch(cwd: string): ConfigSearch {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, CONFIG_FILE_NAME);
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile())
      return { found: candidate, top: dir, repository: false };
    const repository = existsSync(join(dir, '.git'));
    if (repository || dirname(dir) === dir) return { top: dir, repository };
  }
}

/** `--env NAME` wins over `CAI_ENV`. */
export function requestedEnvironment(flag: string | undefined, env: NodeJS.ProcessEnv): EnvironmentRequest | undefined {
  if (flag !== undefined) return { name: flag, origin: 'flag' };
  if (env.CAI_ENV !== undefined && env.CAI_ENV !== '') return { name: env.CAI_ENV, origin: 'env' };
  return undefined;
}

/**
 * How `cai config show` and the messages say what chose the config file and the environment: an option by its
 * name in the words in use (`--config`), the rest as below.
 */
const ORIGINS: Readonly<Record<string, string>> = {
  'config env': 'CAI_CONFIG',
  'config cwd': 'found in the working directory',
  'config parent': 'found above the working directory',
  'env env': 'CAI_ENV',
  'env only': 'the only environment in the file',
  'env default_env': 'default_env in the file',
};

function describeOrigin(option: 'config' | 'env', origin: string): string {
  return origin === 'flag' ? optionName(option) : (ORIGINS[`${option} ${origin}`] as string);
}

export function describeConfigOrigin(origin: ConfigOrigin): string {
  return describeOrigin('config', origin);
}

export function describeEnvironmentOrigin(origin: EnvironmentOrigin): string {
  return describeOrigin('env', origin);
}

/** Where `cai.config.json` was looked for: `/repo/a/b or its parents up to /repo (the repository root)`. */
export function describeConfigSearch(cwd: string): string {
  const { top, repository } = configSearch(cwd);
  if (top === resolve(cwd)) return resolve(cwd);
  return repository
    ? `${resolve(cwd)} or its parents up to ${top} (the repository root)`
    : `${resolve(cwd)} or any parent directory`;
}

export function noConfigForEnvironment(request: EnvironmentRequest, cwd: string) {
  const from = describeEnvironmentOrigin(request.origin);
  const where = describeConfigSearch(cwd);
  const message = `${from} names environment ${request.name} but there is no ${CONFIG_FILE_NAME} in ${where}`;
  return codedError('usage', 'missing_config', message, { environment: request.name });
}
