import { dirname } from 'node:path';
import type * as z from 'zod';
import { didYouMean } from '../suggest.js';
import { CaiError, errnoCode, usageError } from '../errors.js';
import { readFileCapped } from '../input.js';
import { jsonOrUsageError } from '../spec/json-text.js';
import { isObject } from '../spec/json.js';
import { CaiConfigSchema, type CaiConfig, type Environment } from './schema.js';
import {
  CONFIG_FILE_NAME,
  describeEnvironmentOrigin,
  locateConfig,
  noConfigForEnvironment,
  requestedEnvironment,
  type ConfigLocation,
  type EnvironmentOrigin,
  type EnvironmentRequest,
} from './locate.js';

export interface LoadedConfig {
  location: ConfigLocation;
  config: CaiConfig;
}

/** One environment of a loaded profile, with where the file and the choice of environment came from. */
export interface ChosenEnvironment {
  location: ConfigLocation;
  /** The directory relative secret file paths are resolved against. */
  baseDir: string;
  name: string;
  origin: EnvironmentOrigin;
  settings: Environment;
}

const shapeHint = `see docs/operations.md, section 'cai config', for the shape, or run 'cai config init' in an empty directory for a starting file`;

export function loadConfig(location: ConfigLocation): LoadedConfig {
  let text: string;
  try {
    text = readFileCapped(location.path, 'config', location.path, 'config').toString('utf8');
  } catch (error) {
    // Over the cap, or a pipe that stayed silent: the reader's own words say what to do.
    if (error instanceof CaiError && (error.code === 'input_too_large' || error.code === 'silent_pipe')) throw error;
    const cause = error instanceof CaiError ? error.cause : error;
    const why = errnoCode(cause) === 'EACCES' ? 'is not readable (permission denied)' : 'cannot be read';
    throw usageError(
      'unreadable_config',
      `config file ${location.path} ${why}`,
      'check the file and its permissions',
      cause,
    );
  }
  return { location, config: parseConfig(text, location.path) };
}

/** Parses and validates the text of a config file; every problem is a usage error naming the file and the field. */
export function parseConfig(text: string, file = CONFIG_FILE_NAME): CaiConfig {
  const value = jsonOrUsageError(
    text,
    'invalid_config',
    (failure) => `${file} is not valid JSON: ${failure}`,
    'fix the JSON syntax (no comments, no trailing commas)',
  );
  const inline = findInlineSecret(value);
  if (inline) {
    throw usageError(
      'inline_secret',
      `${file}: ${inline} holds a secret value; secrets are given only by reference`,
      'put the secret in an environment variable or a file readable only by you (chmod 600), and write {"env": "NAME"} or {"file": "PATH"} there',
    );
  }
  // zod's record skips a key named __proto__ (it would replace the prototype of the object it builds): the
  // environment would be dropped without a word, so it is refused here, as a name the schema refuses.
  if (isObject(value) && isObject(value.environments) && Object.hasOwn(value.environments, '__proto__'))
    throw usageError(
      'invalid_config',
      `${file} is invalid: environments.__proto__: __proto__ cannot name an environment; rename it`,
      shapeHint,
    );
  const parsed = CaiConfigSchema.safeParse(value, { error: typeWords });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issueWords(issue)}`,
    );
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
    throw usageError('invalid_config', `${file} is invalid: ${problems.slice(0, 3).join('; ')}${more}`, shapeHint);
  }
  return parsed.data;
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
};

/**
 * A value of the wrong type, or a required one missing, in the words of the file's other problems ("expected an
 * absolute http(s) URL"), not zod's ("Invalid input: expected string, received undefined"). Undefined for the
 * rest: the schema's own words, or zod's.
 */
function typeWords(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_type') return undefined;
  const expected = TYPE_NOUNS[issue.expected] ?? issue.expected;
  const input: unknown = issue.input;
  if (input === undefined) return `missing: expected ${expected}`;
  const got = input === null ? 'null' : Array.isArray(input) ? 'a list' : (TYPE_NOUNS[typeof input] ?? typeof input);
  return `expected ${expected}, got ${got}`;
}

/** zod's words for an issue, but for a key the schema does not have: named, with the key meant when it is a typo. */
function issueWords(issue: z.core.$ZodIssue): string {
  // A bad environment name: zod's words are 'Invalid key in record', the schema's say which rule it breaks.
  if (issue.code === 'invalid_key') return issue.issues.map(issueWords).join('; ');
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const known = [...schemaKeys(CaiConfigSchema)];
  return issue.keys.map((key) => `unknown key ${JSON.stringify(key)}${didYouMean(key, known, true)}`).join(', ');
}

/** Every key the configuration's schema names, at any depth: what a typo of a key is compared with. */
function schemaKeys(schema: z.ZodType, found = new Set<string>()): Set<string> {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const inner = (child: unknown) => schemaKeys(child as z.ZodType, found);
  if (def.type === 'object')
    for (const [key, child] of Object.entries(def.shape as Record<string, unknown>)) {
      found.add(key);
      inner(child);
    }
  else if (def.type === 'record') inner(def.valueType);
  else if (def.type === 'array') inner(def.element);
  else if (def.type === 'union') (def.options as unknown[]).forEach(inner);
  else if (def.type === 'pipe') inner(def.in);
  else if ('innerType' in def) inner(def.innerType);
  return found;
}

/**
 * The environment to apply: --env / CAI_ENV, else the only one, else default_env. Returns undefined when the
 * file has several and none is chosen (nothing is applied then; picking production silently would be worse).
 */
export function chooseEnvironment(
  loaded: LoadedConfig,
  request: EnvironmentRequest | undefined,
): ChosenEnvironment | undefined {
  const { config, location } = loaded;
  const names = Object.keys(config.environments);
  const pick = (name: string, origin: EnvironmentOrigin): ChosenEnvironment => ({
    location,
    baseDir: dirname(location.path),
    name,
    origin,
    settings: config.environments[name] as Environment,
  });
  if (request) {
    if (!Object.hasOwn(config.environments, request.name)) {
      const from = describeEnvironmentOrigin(request.origin);
      const known = names.length > 0 ? `it defines: ${names.join(', ')}` : 'it defines no environments';
      throw usageError(
        'unknown_environment',
        `environment ${request.name} (from ${from}) is not in ${location.path}`,
        `pass one of the file's environments (${known})`,
      );
    }
    return pick(request.name, request.origin);
  }
  if (names.length === 1) return pick(names[0] as string, 'only');
  if (config.default_env !== undefined) return pick(config.default_env, 'default_env');
  return undefined;
}

/**
 * An inline secret is refused before schema validation so the message says what to do instead of "unknown key".
 * Looks at `secrets.jobs` / `secrets.events` (a string, or a list holding one, or an object with a value) and
 * at any key named like a secret that holds a string.
 */
function findInlineSecret(value: unknown): string | undefined {
  if (!isObject(value) || !isObject(value.environments)) return undefined;
  for (const [name, environment] of Object.entries(value.environments)) {
    if (!isObject(environment)) continue;
    for (const [key, field] of Object.entries(environment)) {
      if (key !== 'secrets' && /secret|password|token/i.test(key) && typeof field === 'string')
        return `environments.${name}.${key}`;
    }
    const secrets = environment.secrets;
    if (typeof secrets === 'string') return `environments.${name}.secrets`;
    if (!isObject(secrets)) continue;
    for (const [direction, refs] of Object.entries(secrets)) {
      const path = `environments.${name}.secrets.${direction}`;
      const list = Array.isArray(refs) ? refs : [refs];
      const index = list.findIndex(
        (ref) => typeof ref === 'string' || (isObject(ref) && ('value' in ref || 'secret' in ref)),
      );
      if (index >= 0) return Array.isArray(refs) ? `${path}[${index}]` : path;
    }
  }
  return undefined;
}

/** What a command that reads the profile itself (`config show`, `doctor`) gets: each part when present. */
export interface Profile {
  loaded?: LoadedConfig;
  /** Undefined when there is no file, or when it has several environments and none is chosen. */
  chosen?: ChosenEnvironment;
}

/** Finds, loads and picks, as the config-defaults hook does: --config / CAI_CONFIG / ./cai.config.json, --env / CAI_ENV. */
export function loadProfile(flags: { config?: string; env?: string }, env: NodeJS.ProcessEnv, cwd: string): Profile {
  const request = requestedEnvironment(flags.env, env);
  const location = locateConfig(flags.config, env, cwd);
  if (!location) {
    if (request) throw noConfigForEnvironment(request, cwd);
    return {};
  }
  const loaded = loadConfig(location);
  return { loaded, chosen: chooseEnvironment(loaded, request) };
}
