import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { usageError } from '../errors.js';
import { CONTACT_JOBS_PATH } from '../spec/constants.js';
import type { SecretSource } from '../secrets/resolve.js';
import { CONFIG_DEFAULT_RULES, type ConfigField, type DefaultRule } from './defaults-table.js';
import type { ChosenEnvironment } from './load.js';
import type { ConfigLocation, EnvironmentRequest } from './locate.js';
import type { Environment } from './schema.js';
import { asRefList, inspectSecretRef, looseModeWarning, resolveRefPath, type SecretRef } from './secret-refs.js';

/**
 * The body of the config-defaults hook (src/cli/config-defaults.ts), loaded only when a config file exists:
 * sets each option of the table that the user did not give, with commander's value source 'config'.
 * Returns what it did and what to say; the hook prints it.
 */

/** One default that was applied: for --debug. */
export interface AppliedDefault {
  option: string;
  field: ConfigField;
  /** Safe to print: secrets are shown by reference only. */
  shown: string;
}

export interface ProfileDefaults {
  environment?: string;
  applied: AppliedDefault[];
  warnings: string[];
  notes: string[];
}

export async function applyProfileDefaults(command: Command, path: string, location: ConfigLocation, request: EnvironmentRequest | undefined, env: NodeJS.ProcessEnv): Promise<ProfileDefaults> {
  const rules = rulesFor(command, path);
  const result: ProfileDefaults = { applied: [], warnings: [], notes: [] };
  if (rules.length === 0) return result;
  // zod and the schema only now: a command none of whose options the profile sets never loads them.
  const { chooseEnvironment, loadConfig } = await import('./load.js');
  const chosen = chooseEnvironment(loadConfig(location), request);
  if (!chosen) {
    result.notes.push(`${location.path} defines several environments and none is chosen, so none of its values is used; pass --env NAME or set CAI_ENV`);
    return result;
  }
  result.environment = chosen.name;
  for (const rule of rules) result.applied.push(...applyRule(command, rule, chosen, env, result.warnings));
  return result;
}

/** The rules of this command whose condition holds and whose option exists and was not given by the user. */
export function rulesFor(command: Command, path: string): DefaultRule[] {
  return CONFIG_DEFAULT_RULES.filter((rule) => {
    if (rule.command !== path) return false;
    if (rule.when && command.getOptionValue('interface') !== rule.when.interface) return false;
    if (rule.unless?.some((flag) => givenByUser(command, flag))) return false;
    return isSecretField(rule.field) ? secretKeys(command, rule.option).length > 0 && !secretKeys(command, rule.option).some((key) => userSource(command, key)) : optionOf(command, rule.option) !== undefined && !givenByUser(command, rule.option);
  });
}

function applyRule(command: Command, rule: DefaultRule, chosen: ChosenEnvironment, env: NodeJS.ProcessEnv, warnings: string[]): AppliedDefault[] {
  const settings = chosen.settings;
  if (rule.field === 'secrets.jobs' || rule.field === 'secrets.events') {
    const direction = rule.field === 'secrets.jobs' ? 'jobs' : 'events';
    const refs = asRefList(settings.secrets?.[direction] as SecretRef | SecretRef[] | undefined);
    if (refs.length === 0) return [];
    return [applySecrets(command, rule, refs, chosen, env, warnings)];
  }
  const value = fieldValue(settings, rule, chosen.location);
  if (value === undefined) return [];
  const key = (optionOf(command, rule.option) as Option).attributeName();
  command.setOptionValueWithSource(key, value, 'config');
  return [{ option: rule.option, field: rule.field, shown: Array.isArray(value) ? value.join(', ') : value }];
}

function fieldValue(settings: Environment, rule: DefaultRule, location: ConfigLocation): string | string[] | undefined {
  switch (rule.field) {
    case 'branches': {
      const branches = settings.branches;
      if (!branches || branches.length === 0) return undefined;
      return rule.shape === 'first-branch-code' ? branches[0]?.branch_code : writeCatalogFile(branches, location);
    }
    case 'authorised_origins':
      return settings.authorised_origins && settings.authorised_origins.length > 0 ? [...settings.authorised_origins] : undefined;
    case 'provider_endpoint': {
      const base = settings.provider_endpoint;
      return base !== undefined && rule.shape === 'contact-jobs-url' ? base.replace(/\/+$/, '') + CONTACT_JOBS_PATH : base;
    }
    case 'events_url':
      return settings.events_url !== undefined && rule.shape === 'url-path' ? new URL(settings.events_url).pathname : settings.events_url;
    case 'provider_code':
    case 'platform_id':
      return settings[rule.field];
    default:
      return undefined;
  }
}

/**
 * Sets the env/file members of a secret option family (`--secret-env`, `--secret-file`) in the config's order,
 * so the first reference signs (§5.9). Missing references stop here with a message naming the config field,
 * rather than later with one naming a flag the user never typed.
 */
function applySecrets(command: Command, rule: DefaultRule, refs: SecretRef[], chosen: ChosenEnvironment, env: NodeJS.ProcessEnv, warnings: string[]): AppliedDefault {
  const where = `${rule.field} of environment ${chosen.name} in ${chosen.location.path}`;
  const envSources: SecretSource[] = [];
  const fileSources: SecretSource[] = [];
  refs.forEach((ref, order) => {
    const status = inspectSecretRef(ref, chosen.baseDir, env);
    if (!status.present && rule.optional) return;
    if (!status.present) {
      throw usageError('missing_secret', `${status.problem} (${where})`, `set it, or pass ${rule.option}-env NAME / ${rule.option}-file PATH to override the config`);
    }
    const warning = looseModeWarning(status);
    if (warning) warnings.push(warning);
    if ('env' in ref) envSources.push({ kind: 'env', ref: ref.env, order });
    else fileSources.push({ kind: 'file', ref: resolveRefPath(ref.file, chosen.baseDir), order });
  });
  if (envSources.length + fileSources.length === 0) return { option: rule.option, field: rule.field, shown: '(none readable; skipped)' };
  const [envKey, fileKey] = secretKeys(command, rule.option);
  if (envKey) command.setOptionValueWithSource(envKey, envSources, 'config');
  if (fileKey) command.setOptionValueWithSource(fileKey, fileSources, 'config');
  return { option: rule.option, field: rule.field, shown: refs.map((ref) => ('env' in ref ? `env ${ref.env}` : `file ${ref.file}`)).join(', ') };
}

/** The branches as a catalog file (Branch[] JSON), named by content so repeated runs reuse one file. */
function writeCatalogFile(branches: readonly { branch_code: string; name: string }[], location: ConfigLocation): string {
  const text = JSON.stringify(branches, null, 2) + '\n';
  const digest = createHash('sha256').update(location.path).update('\0').update(text).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `cai-catalog-${digest}.json`);
  writeFileSync(file, text, { mode: 0o644 });
  return file;
}

function isSecretField(field: ConfigField): boolean {
  return field === 'secrets.jobs' || field === 'secrets.events';
}

/** Attribute names of `--<prefix>-env`, `--<prefix>-file` and `--<prefix>` (the inline form, never set from config). */
function secretKeys(command: Command, prefix: string): string[] {
  return [`${prefix}-env`, `${prefix}-file`, prefix].map((flag) => optionOf(command, flag)?.attributeName()).filter((key): key is string => key !== undefined);
}

function optionOf(command: Command, flag: string): Option | undefined {
  return command.options.find((option) => option.long === flag);
}

function givenByUser(command: Command, flag: string): boolean {
  const option = optionOf(command, flag);
  return option !== undefined && userSource(command, option.attributeName());
}

/** 'cli' and 'env' (commander's own env fallbacks) are the user's; 'default', 'implied' and unset are not. */
function userSource(command: Command, key: string): boolean {
  const source = command.getOptionValueSource(key);
  return source === 'cli' || source === 'env';
}
