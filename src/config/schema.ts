import { isIP } from 'node:net';
import { z } from 'zod';
import { FLAG_BOUNDS } from '../bounds-flags.js';
import { E164_PATTERN } from '../spec/formats.js';
import { headerValueProblem } from '../spec/header-value.js';

/**
 * The deployment profile: the private annex of §1 ("provider code, catalog, credentials, authorised addresses")
 * in machine-readable form. Every field of an environment is optional here, so a file can describe one side
 * only; whether it is complete enough for an interface is a `cai doctor` check, not a parse error.
 */

const refHint = 'a secret reference is {"env": "NAME"} or {"file": "PATH"}';

export const SecretRefSchema = z
  .strictObject({
    env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name such as CAI_JOBS_SECRET' })
      .optional(),
    file: z.string().min(1, { error: 'expected a file path' }).optional(),
  })
  .refine((ref) => (ref.env === undefined) !== (ref.file === undefined), {
    error: `${refHint}, exactly one of the two`,
  });

/** One reference, or a list of them for a rotation overlap (§5.9): the first signs, any verifies. */
const SecretRefsSchema = z.union([
  SecretRefSchema,
  z.array(SecretRefSchema).min(1, { error: 'expected at least one secret reference' }),
]);

const BranchSchema = z.strictObject({
  branch_code: z.string().min(1, { error: 'expected a non-empty branch_code' }),
  name: z.string(),
  /** Provider side only: the unit's origin number (§3 step 4), used by `cai mock provider --catalog`. */
  number_e164: z.string().regex(E164_PATTERN, { error: 'expected an E.164 number such as +34910000001' }).optional(),
});
export type Branch = z.infer<typeof BranchSchema>;

/** §5.7: authorised origins are the provider's egress IP addresses, as addresses or CIDR ranges. */
const OriginSchema = z
  .string()
  .refine(isAddressOrCidr, { error: 'expected an IP address or CIDR range such as 203.0.113.7 or 203.0.113.0/24' });

/** An absolute http(s) URL; local addresses (127.0.0.1, localhost) allowed, for mocks and test environments. */
const HttpUrlSchema = z.string().refine(isHttpUrl, { error: 'expected an absolute http(s) URL' });

/** §4.1 X-CAI-Source, §4.2 X-CAI-Provider: a value HTTP carries as given (RFC 9110 §5.5). */
const HeaderValueSchema = z
  .string()
  .min(1)
  .max(FLAG_BOUNDS.identityCharacters, {
    error: `sent as a header, and it is over the ${FLAG_BOUNDS.identityCharacters} characters cai takes (docs/limits.md)`,
  })
  .refine((value) => headerValueProblem(value) === undefined, {
    error: (issue) => `sent as a header, and it ${headerValueProblem(String(issue.input))?.message ?? 'cannot be'}`,
  });

export const EnvironmentSchema = z.strictObject({
  provider_code: HeaderValueSchema.optional(),
  platform_id: HeaderValueSchema.optional(),
  /** §4.1: the Provider's base address; jobs go to `{provider_endpoint}/contact-jobs`. */
  provider_endpoint: HttpUrlSchema.optional(),
  /** §4.2: the platform's one events endpoint, also sent as each job's callback_url. */
  events_url: HttpUrlSchema.optional(),
  branches: z
    .array(BranchSchema)
    .superRefine(refuseRepeatedBranchCodes, {
      // Said beside a branch's other problems (a missing name), not only once they are fixed.
      when: (payload) => Array.isArray(payload.value),
    })
    .optional(),
  authorised_origins: z.array(OriginSchema).optional(),
  secrets: z.strictObject({ jobs: SecretRefsSchema.optional(), events: SecretRefsSchema.optional() }).optional(),
  /**
   * §5.8: "required" marks a production environment: the sending commands refuse plain http to an address that is
   * not this machine (their `--tls required`); "warn" (the default) only says so.
   */
  tls: z.enum(['required', 'warn'], { error: 'expected "required" or "warn"' }).optional(),
});
export type Environment = z.infer<typeof EnvironmentSchema>;

export const CaiConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    version: z.literal(1, { error: 'expected "version": 1' }),
    /** The environment used when neither --env nor CAI_ENV names one and the file has several. */
    default_env: z.string().optional(),
    environments: z.record(
      // __proto__, which zod skips without a word, is refused before (parseConfig in load.ts).
      z.string().regex(/^[A-Za-z0-9_.-]+$/, { error: 'environment names are letters, digits, _ . -' }),
      EnvironmentSchema,
    ),
  })
  // Own keys only: `constructor` or `toString` is in every object, and names no environment of the file.
  .refine((config) => config.default_env === undefined || Object.hasOwn(config.environments, config.default_env), {
    error: 'default_env names an environment that the file does not define',
    path: ['default_env'],
  });
export type CaiConfig = z.infer<typeof CaiConfigSchema>;

/**
 * A branch_code is given once: the catalog maps a code to one unit, and a code given twice would attribute a job to
 * whichever came first. Reads the list as given (its items may still be malformed), naming the code and the places.
 */
function refuseRepeatedBranchCodes(branches: readonly unknown[], context: z.RefinementCtx): void {
  const places = new Map<string, number[]>();
  branches.forEach((branch, index) => {
    const code =
      typeof branch === 'object' && branch !== null ? (branch as { branch_code?: unknown }).branch_code : undefined;
    if (typeof code === 'string') places.set(code, [...(places.get(code) ?? []), index]);
  });
  for (const [code, indexes] of places)
    if (indexes.length > 1)
      context.addIssue({
        code: 'custom',
        message: `branch_code ${JSON.stringify(code)} is given ${indexes.length === 2 ? 'twice' : `${indexes.length} times`} (branches ${indexes.slice(0, -1).join(', ')} and ${indexes.at(-1)}): branch codes must be unique`,
      });
}

function isAddressOrCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
