import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';

/**
 * Finding the deployment profile file. Kept free of zod: this runs on the start-up path of every command,
 * and a command run without a config file must not pay for the schema library (issue #7, start-up rule).
 */

export const CONFIG_FILE_NAME = 'cai.config.json';

/** How the config file was found: `--config FILE`, `CAI_CONFIG`, or `cai.config.json` in the working directory. */
export type ConfigOrigin = 'flag' | 'env' | 'cwd';

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
 * The config file to use, or undefined when there is none. A file named explicitly (flag or CAI_CONFIG) that
 * does not exist is a usage error; an absent `cai.config.json` in the working directory just means "no profile".
 */
export function locateConfig(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): ConfigLocation | undefined {
  const named = flag !== undefined ? { value: flag, origin: 'flag' as const, label: '--config' } : env.CAI_CONFIG ? { value: env.CAI_CONFIG, origin: 'env' as const, label: 'CAI_CONFIG' } : undefined;
  if (named) {
    if (named.value === '') throw usageError('missing_config', `${named.label} is empty`, 'name a cai.config.json file, or leave it out to use ./cai.config.json');
    const path = resolve(cwd, named.value);
    if (!existsSync(path)) {
      throw usageError('missing_config', `config file ${named.value} (from ${named.label}) does not exist`, "check the path, or create one with 'cai config init'");
    }
    if (statSync(path).isDirectory()) {
      throw usageError('missing_config', `config file ${named.value} (from ${named.label}) is a directory`, `name the file itself, e.g. ${named.value.replace(/\/$/, '')}/${CONFIG_FILE_NAME}`);
    }
    return { path, origin: named.origin };
  }
  const path = resolve(cwd, CONFIG_FILE_NAME);
  return existsSync(path) ? { path, origin: 'cwd' } : undefined;
}

/** `--env NAME` wins over `CAI_ENV`. */
export function requestedEnvironment(flag: string | undefined, env: NodeJS.ProcessEnv): EnvironmentRequest | undefined {
  if (flag !== undefined) return { name: flag, origin: 'flag' };
  if (env.CAI_ENV !== undefined && env.CAI_ENV !== '') return { name: env.CAI_ENV, origin: 'env' };
  return undefined;
}

export function describeConfigOrigin(origin: ConfigOrigin): string {
  return origin === 'flag' ? '--config' : origin === 'env' ? 'CAI_CONFIG' : 'found in the working directory';
}

export function describeEnvironmentOrigin(origin: EnvironmentOrigin): string {
  switch (origin) {
    case 'flag':
      return '--env';
    case 'env':
      return 'CAI_ENV';
    case 'only':
      return 'the only environment in the file';
    case 'default_env':
      return 'default_env in the file';
  }
}

export function noConfigForEnvironment(request: EnvironmentRequest, cwd: string) {
  const from = request.origin === 'flag' ? '--env' : 'CAI_ENV';
  return usageError('missing_config', `${from} names environment ${request.name} but there is no ${CONFIG_FILE_NAME} in ${cwd}`, "run from the directory that holds it, pass --config FILE, or create one with 'cai config init'");
}
