/**
 * The checks of the deployment profile (cai.config.json), with no network: its secrets, one per direction and each
 * present, private and long enough (§5.1, §5.9), and whether it holds what each interface's commands need.
 */
import { hintOf } from '../errors.js';
import { placeholderHost } from '../http/network-errors.js';
import type { InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import type { ChosenEnvironment } from '../config/load.js';
import {
  asRefList,
  inspectSecretRef,
  readSecretRef,
  type SecretDirection,
  type SecretRef,
} from '../config/secret-refs.js';
import { sameSecrets, SHORT_SECRET_CHARACTERS, shortSecret } from './local.js';
import type { CheckResult } from './types.js';

const DIRECTION_INTERFACE: Record<SecretDirection, InterfaceId> = { jobs: 'A', events: 'B' };

/** A check skipped for want of a deployment profile. */
function noProfile(id: string, message: string): CheckResult[] {
  return [{ id, verdict: 'skip', message, hint: hintOf('doctor_no_profile') }];
}

/** §5.1: one secret per direction, both needed by either party (one signs, the other verifies). */
export function checkSecrets(environment: ChosenEnvironment | undefined, env: NodeJS.ProcessEnv): CheckResult[] {
  if (!environment) return noProfile('secrets', 'no deployment profile, so no secrets to check');
  const results: CheckResult[] = (['jobs', 'events'] as const).map((direction) =>
    checkDirection(direction, environment, env),
  );
  const [jobs, events] = (['jobs', 'events'] as const).map(
    (direction) => asRefList(environment.settings.secrets?.[direction] as SecretRef | SecretRef[] | undefined)[0],
  );
  if (!jobs || !events) return results;
  const [a, b] = [jobs, events].map((ref) => readSecretRef(ref, environment.baseDir, env));
  return [...results, ...sameSecrets(a, b, 'the jobs and events secrets are the same')];
}

function checkDirection(
  direction: SecretDirection,
  environment: ChosenEnvironment,
  env: NodeJS.ProcessEnv,
): CheckResult {
  const field = `secrets.${direction}`;
  const base = { id: 'secrets', interface: DIRECTION_INTERFACE[direction] };
  const refs = asRefList(environment.settings.secrets?.[direction] as SecretRef | SecretRef[] | undefined);
  if (refs.length === 0) {
    return {
      ...base,
      verdict: 'fail',
      message: `${field} is not set in environment ${environment.name}`,
      hint: `add "${direction}": {"env": "NAME"} or {"file": "PATH"} under "secrets"`,
    };
  }
  const statuses = refs.map((ref) => inspectSecretRef(ref, environment.baseDir, env));
  const described = statuses
    .map((s) => (s.present ? `${s.label} (${s.length} characters)` : `${s.label}: ${s.problem}`))
    .join(', ');
  const missing = statuses.find((s) => !s.present);
  if (missing) {
    const hint =
      missing.kind === 'env'
        ? `export ${missing.ref} with the ${direction} secret, or point ${field} at a file`
        : `create ${missing.path ?? missing.ref} holding the ${direction} secret (chmod 600)`;
    return { ...base, verdict: 'fail', message: `${field}: ${described}`, hint };
  }
  const loose = statuses.find((s) => s.looseMode !== undefined);
  if (loose)
    return {
      ...base,
      verdict: 'warn',
      message: `${field}: ${loose.ref} is readable by other users (mode ${loose.looseMode})`,
      hint: `chmod 600 ${loose.path ?? loose.ref}`,
    };
  const short = statuses.find((s) => (s.length ?? 0) < SHORT_SECRET_CHARACTERS);
  if (short) return { ...base, ...shortSecret(`${field}: ${short.label}`, short.length ?? 0) };
  const rotation = refs.length > 1 ? `; ${refs.length} secrets, a rotation overlap (§5.9): the first signs` : '';
  return { ...base, verdict: 'pass', message: `${field}: ${described}${rotation}` };
}

/** What each interface needs from the profile to run its commands (send, mock, conformance). */
const REQUIRED: Record<InterfaceId, readonly string[]> = {
  A: ['provider_endpoint', 'platform_id', 'branches', 'secrets.jobs', 'secrets.events'],
  B: ['events_url', 'provider_code', 'secrets.events'],
};

/** Where each interface's receiver is reached: the field of the profile that holds its address. */
const ADDRESS_FIELD: Record<InterfaceId, 'provider_endpoint' | 'events_url'> = {
  A: 'provider_endpoint',
  B: 'events_url',
};

export function checkConfiguration(
  environment: ChosenEnvironment | undefined,
  interfaces: readonly InterfaceId[],
): CheckResult[] {
  if (!environment) return noProfile('config', 'no deployment profile (cai.config.json) in use');
  const s = environment.settings;
  const present: Record<string, boolean> = {
    provider_endpoint: s.provider_endpoint !== undefined,
    platform_id: s.platform_id !== undefined,
    branches: (s.branches?.length ?? 0) > 0,
    events_url: s.events_url !== undefined,
    provider_code: s.provider_code !== undefined,
    'secrets.jobs': asRefList(s.secrets?.jobs as SecretRef | SecretRef[] | undefined).length > 0,
    'secrets.events': asRefList(s.secrets?.events as SecretRef | SecretRef[] | undefined).length > 0,
  };
  return interfaces.flatMap((id): CheckResult[] => {
    const missing = REQUIRED[id].filter((field) => !present[field]);
    const what = `interface ${id} (${interfaceSpec(id).documentName}s, ${interfaceSpec(id).section})`;
    if (missing.length > 0) {
      return [
        {
          id: 'config',
          interface: id,
          verdict: 'fail',
          message: `environment ${environment.name} is incomplete for ${what}: missing ${missing.join(', ')}`,
          hint: `add them to environments.${environment.name} in ${environment.location.path}`,
        },
      ];
    }
    const results: CheckResult[] = [
      {
        id: 'config',
        interface: id,
        verdict: 'pass',
        message: `environment ${environment.name} has everything ${what} needs`,
      },
    ];
    // What `cai config init` writes: every send there fails at once (src/http/network-errors.ts).
    const field = ADDRESS_FIELD[id];
    const url = s[field];
    const placeholder = url === undefined ? undefined : placeholderHost(url);
    if (placeholder !== undefined)
      results.push({
        id: 'config',
        interface: id,
        verdict: 'warn',
        message: `${field} ${url} is a placeholder: names under .example and .invalid never resolve (RFC 2606)`,
        hint: `write the receiver's real address as ${field} in environments.${environment.name} of ${environment.location.path}`,
      });
    if (interfaceSpec(id).authorisedOrigins && (s.authorised_origins?.length ?? 0) === 0) {
      results.push({
        id: 'config',
        interface: id,
        verdict: 'warn',
        message: 'no authorised_origins: the events endpoint cannot restrict who may call it (§5.7)',
        hint: "add the provider's egress IP addresses as authorised_origins",
      });
    }
    return results;
  });
}
