import type { InterfaceId } from '../../spec/constants.js';

/**
 * The ONE table of deployment-profile defaults: which field of the chosen environment of cai.config.json becomes which
 * option of which command. Applied by src/commands/common/config-defaults.ts; listed by `cai config show`. Pure data
 * (no zod, no commander), so it costs nothing at start-up.
 */

/** The fields of an environment that become options, in the order `cai config show` lists them (tls apart). */
export const CONFIG_FIELDS = [
  'provider_code',
  'platform_id',
  'provider_endpoint',
  'events_url',
  'branches',
  'authorised_origins',
  'secrets.jobs',
  'secrets.events',
  'tls',
] as const;
export type ConfigField = (typeof CONFIG_FIELDS)[number];

/** How a field's value becomes the option's value, when not as is. */
type ValueShape =
  /** `{provider_endpoint}/contact-jobs` (§4.1), for options that take the full URL. */
  | 'contact-jobs-url'
  /** the branches themselves (Branch[]), for options that take a catalog file: passed as data, no file written. */
  | 'catalog'
  /** the first branch's branch_code, for options that take one code. */
  | 'first-branch-code'
  /** only the path of the URL, for a receiver that listens locally (`/cai/events`). */
  | 'url-path';

export interface DefaultRule {
  /** Command path as typed: `send-job`, `mock platform`, `conformance run`. */
  command: string;
  field: ConfigField;
  /** The flag as typed. For secrets, the prefix of the secret option family: `--secret`, `--callback-secret`. */
  option: string;
  /** Applies only when the command's `--interface` has this value. */
  when?: { interface: InterfaceId };
  /** Not applied when any of these flags was given (e.g. `--mock` replaces `--target`). */
  unless?: string[];
  shape?: ValueShape;
  /** A secret that only improves a diagnosis: skipped, not an error, when its reference cannot be read. */
  optional?: boolean;
}

/**
 * THE mapping table: config field → option, per command. §5.1: the jobs secret signs Interface A (platform →
 * provider), the events secret signs Interface B (provider → platform); a command that receives one direction
 * and sends the other takes the second as its callback secret.
 */
const A = { interface: 'A' } as const;
const B = { interface: 'B' } as const;
/**
 * `--mock` runs a self-contained receiver with generated secrets: the profile's target and secrets (perhaps not even
 * set here) stay out.
 */
const MOCK = ['--mock'];

export const CONFIG_DEFAULT_RULES: readonly DefaultRule[] = [
  // sign / verify: the direction is --interface A|B
  { command: 'sign', when: A, field: 'secrets.jobs', option: '--secret' },
  { command: 'sign', when: A, field: 'platform_id', option: '--source' },
  { command: 'sign', when: A, field: 'provider_endpoint', option: '--url', shape: 'contact-jobs-url' },
  { command: 'sign', when: B, field: 'secrets.events', option: '--secret' },
  { command: 'sign', when: B, field: 'provider_code', option: '--provider' },
  { command: 'sign', when: B, field: 'events_url', option: '--url' },
  { command: 'verify', when: A, field: 'secrets.jobs', option: '--secret' },
  { command: 'verify', when: B, field: 'secrets.events', option: '--secret' },
  { command: 'verify', when: A, field: 'secrets.events', option: '--other-secret', optional: true },
  { command: 'verify', when: B, field: 'secrets.jobs', option: '--other-secret', optional: true },
  // sending (§4.1, §4.2)
  { command: 'send-job', field: 'provider_endpoint', option: '--to' },
  { command: 'send-job', field: 'platform_id', option: '--source' },
  { command: 'send-job', field: 'secrets.jobs', option: '--secret' },
  { command: 'send-job', field: 'events_url', option: '--callback-url' },
  { command: 'send-job', field: 'branches', option: '--branch-code', shape: 'first-branch-code' },
  { command: 'send-event', field: 'events_url', option: '--to' },
  { command: 'send-event', field: 'provider_code', option: '--provider' },
  { command: 'send-event', field: 'secrets.events', option: '--secret' },
  // §5.8: a production environment refuses plain http to another machine
  { command: 'send-job', field: 'tls', option: '--tls' },
  { command: 'send-event', field: 'tls', option: '--tls' },
  { command: 'replay', field: 'tls', option: '--tls' },
  { command: 'conformance run', field: 'tls', option: '--tls' },
  // reference receivers
  { command: 'mock platform', field: 'provider_code', option: '--provider' },
  { command: 'mock platform', field: 'secrets.events', option: '--secret' },
  { command: 'mock platform', field: 'authorised_origins', option: '--allow-origin' },
  { command: 'mock platform', field: 'events_url', option: '--path', shape: 'url-path' },
  { command: 'mock platform', field: 'branches', option: '--catalog', shape: 'catalog' },
  { command: 'mock provider', field: 'provider_code', option: '--provider' },
  { command: 'mock provider', field: 'platform_id', option: '--source' },
  { command: 'mock provider', field: 'secrets.jobs', option: '--secret' },
  { command: 'mock provider', field: 'secrets.events', option: '--callback-secret' },
  { command: 'mock provider', field: 'branches', option: '--catalog', shape: 'catalog' },
  // conformance: A tests the provider's contact-jobs endpoint, B the platform's events endpoint
  { command: 'conformance run', when: A, field: 'provider_endpoint', option: '--target', unless: MOCK },
  { command: 'conformance run', when: A, field: 'platform_id', option: '--source' },
  { command: 'conformance run', when: A, field: 'branches', option: '--branch-code', shape: 'first-branch-code' },
  { command: 'conformance run', when: A, field: 'provider_code', option: '--provider' },
  { command: 'conformance run', when: A, field: 'secrets.jobs', option: '--secret', unless: MOCK },
  { command: 'conformance run', when: A, field: 'secrets.events', option: '--callback-secret', unless: MOCK },
  { command: 'conformance run', when: B, field: 'events_url', option: '--target', unless: MOCK },
  { command: 'conformance run', when: B, field: 'provider_code', option: '--provider' },
  { command: 'conformance run', when: B, field: 'branches', option: '--branch-code', shape: 'first-branch-code' },
  { command: 'conformance run', when: B, field: 'secrets.events', option: '--secret', unless: MOCK },
];
