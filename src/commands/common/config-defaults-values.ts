/**
 * The deployment profile's defaults for one command, as data: which option gets which value from the chosen
 * environment, following the table in defaults-table.ts. No commander here: the command is described by a CommandView,
 * and src/commands/common/config-defaults.ts sets the values it returns (commander's value source 'config'). No zod
 * either, so a command none of whose options the profile sets pays for nothing more.
 */
import { usageError } from '../../errors.js';
import type { SecretSource } from '../../secrets/resolve.js';
import { CONTACT_JOBS_PATH } from '../../spec/constants.js';
import { CONFIG_DEFAULT_RULES, type ConfigField, type DefaultRule } from './config-defaults-table.js';
import type { ChosenEnvironment } from '../../config/load.js';
import type { Environment } from '../../config/schema.js';
import {
  asRefList,
  inspectSecretRef,
  looseModeWarning,
  resolveRefPath,
  type SecretRef,
} from '../../config/secret-refs.js';

/** What the defaults need to know of the command being run. */
export interface CommandView {
  /** The command path as typed: `send-job`, `mock platform`. */
  path: string;
  /** The value of its `--interface`, when it has one. */
  interface?: string;
  /** Its long flags: `--to`, `--secret-env`, … */
  flags: ReadonlySet<string>;
  /** The flags the user gave: on the command line, or through commander's own environment fallbacks. */
  given: ReadonlySet<string>;
}

/** One option value the profile supplies. */
interface OptionDefault {
  /** The long flag whose value it is: `--to`, `--secret-env`, `--catalog`. */
  flag: string;
  /** A string, a list, secret sources, or (for `--catalog`) the branches themselves. */
  value: unknown;
}

/** One default that was applied, for --debug. */
interface AppliedDefault {
  option: string;
  field: ConfigField;
  /** Safe to print: secrets are shown by reference only. */
  shown: string;
}

interface ProfileDefaults {
  environment?: string;
  defaults: OptionDefault[];
  applied: AppliedDefault[];
  warnings: string[];
  notes: string[];
}

/** The rules of this command whose condition holds and whose option exists and was not given by the user. */
export function rulesFor(view: CommandView): DefaultRule[] {
  return CONFIG_DEFAULT_RULES.filter((rule) => {
    if (rule.command !== view.path) return false;
    if (rule.when && view.interface !== rule.when.interface) return false;
    if (rule.unless?.some((flag) => view.given.has(flag))) return false;
    if (!isSecretField(rule.field)) return view.flags.has(rule.option) && !view.given.has(rule.option);
    const family = secretFlags(rule.option).filter((flag) => view.flags.has(flag));
    return family.length > 0 && !family.some((flag) => view.given.has(flag));
  });
}

/** The defaults for `view` from the chosen environment; none, with a note, when no environment is chosen. */
export function profileDefaults(
  view: CommandView,
  chosen: ChosenEnvironment | undefined,
  configPath: string,
  env: NodeJS.ProcessEnv,
): ProfileDefaults {
  const result: ProfileDefaults = { defaults: [], applied: [], warnings: [], notes: [] };
  if (!chosen) {
    result.notes.push(
      `${configPath} defines several environments and none is chosen, so none of its values is used; pass --env NAME or set CAI_ENV`,
    );
    return result;
  }
  result.environment = chosen.name;
  for (const rule of rulesFor(view)) {
    const applied = isSecretField(rule.field)
      ? secretDefaults(view, rule, chosen, env, result)
      : plainDefault(rule, chosen.settings, result);
    if (applied) result.applied.push(applied);
  }
  return result;
}

function plainDefault(rule: DefaultRule, settings: Environment, result: ProfileDefaults): AppliedDefault | undefined {
  const value = fieldValue(settings, rule);
  if (value === undefined) return undefined;
  result.defaults.push({ flag: rule.option, value });
  const shown =
    typeof value === 'string'
      ? value
      : value.map((item) => (typeof item === 'string' ? item : item.branch_code)).join(', ');
  return { option: rule.option, field: rule.field, shown };
}

type Branches = NonNullable<Environment['branches']>;

function fieldValue(settings: Environment, rule: DefaultRule): string | string[] | Branches | undefined {
  const { branches, authorised_origins: origins, provider_endpoint: base, events_url: url } = settings;
  switch (rule.field) {
    case 'branches':
      if (!branches?.length) return undefined;
      // The catalog goes to the command as data, never through a file (a predictable temp file).
      return rule.shape === 'first-branch-code' ? branches[0]?.branch_code : branches.map((branch) => ({ ...branch }));
    case 'authorised_origins':
      return origins?.length ? [...origins] : undefined;
    case 'provider_endpoint':
      return base !== undefined && rule.shape === 'contact-jobs-url'
        ? base.replace(/\/+$/, '') + CONTACT_JOBS_PATH
        : base;
    case 'events_url':
      return url !== undefined && rule.shape === 'url-path' ? new URL(url).pathname : url;
    case 'provider_code':
    case 'platform_id':
    case 'tls':
      return settings[rule.field];
    default:
      return undefined;
  }
}

/**
 * The env/file members of a secret option family (`--secret-env`, `--secret-file`) in the config's order, so the
 * first reference signs (§5.9). A missing reference stops here with a message naming the config field, rather
 * than later with one naming a flag the user never typed.
 */
function secretDefaults(
  view: CommandView,
  rule: DefaultRule,
  chosen: ChosenEnvironment,
  env: NodeJS.ProcessEnv,
  result: ProfileDefaults,
): AppliedDefault | undefined {
  const refs = secretRefsOf(chosen.settings, rule.field);
  if (refs.length === 0) return undefined;
  const where = `${rule.field} of environment ${chosen.name} in ${chosen.location.path}`;
  const sources: Record<'env' | 'file', SecretSource[]> = { env: [], file: [] };
  refs.forEach((ref, order) => {
    const status = inspectSecretRef(ref, chosen.baseDir, env);
    if (!status.present && rule.optional) return;
    if (!status.present) {
      throw usageError(
        'missing_secret',
        `${status.problem} (${where})`,
        `set it, or pass ${rule.option}-env NAME / ${rule.option}-file PATH to override the config`,
      );
    }
    const warning = looseModeWarning(status);
    if (warning) result.warnings.push(warning);
    // Named as the flags they stand in for: a message names the source as if it had been given.
    const [kind, source] =
      'env' in ref ? (['env', ref.env] as const) : (['file', resolveRefPath(ref.file, chosen.baseDir)] as const);
    sources[kind].push({ kind, named: `${rule.option}-${kind}`, ref: source, order });
  });
  if (sources.env.length + sources.file.length === 0)
    return { option: rule.option, field: rule.field, shown: '(none readable; skipped)' };
  const [envFlag, fileFlag] = secretFlags(rule.option);
  if (view.flags.has(envFlag)) result.defaults.push({ flag: envFlag, value: sources.env });
  if (view.flags.has(fileFlag)) result.defaults.push({ flag: fileFlag, value: sources.file });
  return {
    option: rule.option,
    field: rule.field,
    shown: refs.map((ref) => ('env' in ref ? `env ${ref.env}` : `file ${ref.file}`)).join(', '),
  };
}

export function isSecretField(field: ConfigField): boolean {
  return field === 'secrets.jobs' || field === 'secrets.events';
}

/** The references of `secrets.jobs` or `secrets.events`, as a list. */
export function secretRefsOf(settings: Environment, field: ConfigField): SecretRef[] {
  return asRefList(
    settings.secrets?.[field === 'secrets.jobs' ? 'jobs' : 'events'] as SecretRef | SecretRef[] | undefined,
  );
}

/** `--<prefix>-env`, `--<prefix>-file` and `--<prefix>` (the inline form, never set from config). */
function secretFlags(prefix: string): [envFlag: string, fileFlag: string, inline: string] {
  return [`${prefix}-env`, `${prefix}-file`, prefix];
}
