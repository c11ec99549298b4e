import { CONFIG_DEFAULT_RULES, CONFIG_FIELDS, type ConfigField } from '../common/config-defaults-table.js';
import type { ChosenEnvironment } from '../../config/load.js';
import { describeConfigOrigin, describeEnvironmentOrigin } from '../../config/locate.js';
import type { Environment } from '../../config/schema.js';
import { inspectSecretRef, type SecretRefStatus } from '../../config/secret-refs.js';
import { isSecretField, secretRefsOf } from '../common/config-defaults-values.js';

/** One resolved setting of an environment, safe to print (secrets masked, by reference only). */
interface DescribedSetting {
  field: ConfigField;
  /** The value as text; undefined when the environment leaves the field out. */
  value?: string;
  /** Where the value came from: `environments.test.provider_code` of the file. */
  source: string;
  /** The options it becomes a default of: `send-job --to`, `sign --url (A)`. */
  usedBy: string[];
  /** Secrets only: each reference checked. */
  secrets?: SecretRefStatus[];
}

interface DescribedEnvironment {
  name: string;
  chosenBy?: string;
  settings: DescribedSetting[];
}

const FIELDS = CONFIG_FIELDS.filter((field) => field !== 'tls');

export function describeEnvironment(chosen: ChosenEnvironment, env: NodeJS.ProcessEnv): DescribedEnvironment {
  const { settings, name } = chosen;
  return {
    name,
    chosenBy: describeEnvironmentOrigin(chosen.origin),
    settings: FIELDS.map((field) => {
      const base = { field, source: `environments.${name}.${field}`, usedBy: usedBy(field) };
      if (isSecretField(field)) {
        const refs = secretRefsOf(settings, field);
        if (refs.length === 0) return base;
        const secrets = refs.map((ref) => inspectSecretRef(ref, chosen.baseDir, env));
        return { ...base, value: secrets.map(maskedSecret).join('; '), secrets };
      }
      return { ...base, value: plainValue(settings, field) };
    }),
  };
}

export function describeLocation(chosen: Pick<ChosenEnvironment, 'location'>): string {
  return `${chosen.location.path} (${describeConfigOrigin(chosen.location.origin)})`;
}

/** Never the value: where it is and whether it is usable. */
function maskedSecret(status: SecretRefStatus): string {
  if (!status.present) return `${status.label}: ${status.problem}`;
  const loose = status.looseMode ? `, readable by other users (mode ${status.looseMode})` : '';
  return `${status.label}: ******** (${status.length} characters${loose})`;
}

function plainValue(settings: Environment, field: ConfigField): string | undefined {
  switch (field) {
    case 'branches':
      return settings.branches?.map((branch) => `${branch.branch_code} (${branch.name})`).join(', ');
    case 'authorised_origins':
      return settings.authorised_origins?.join(', ');
    case 'provider_code':
    case 'platform_id':
    case 'provider_endpoint':
    case 'events_url':
      return settings[field];
    default:
      return undefined;
  }
}

function usedBy(field: ConfigField): string[] {
  return CONFIG_DEFAULT_RULES.filter((rule) => rule.field === field).map(
    (rule) =>
      `${rule.command} ${rule.option}${rule.option.endsWith('secret') ? '-env/-file' : ''}${rule.when ? ` (--interface ${rule.when.interface})` : ''}`,
  );
}
