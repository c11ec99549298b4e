/**
 * The JSON Schema (2020-12) of cai.config.json, generated from the zod schema that `cai config` reads it with
 * (schema.ts), so that an editor checks the file by the same rules. `cai schema config` prints it; the repository
 * keeps a copy (schemas/cai.config.schema.json, `npm run docs`), which `cai config init` names as the file's
 * `$schema`. The refinements JSON Schema cannot say are checked by cai only: a secret reference names exactly one
 * of `env` and `file`, header values are printable, addresses are IP addresses or CIDR ranges, URLs are absolute,
 * `default_env` names a defined environment, branch codes are unique.
 */
import * as z from 'zod';
import { CaiConfigSchema } from './schema.js';

/** Where the repository publishes the schema, by the tag of each version (the package's `repository`). */
export function configSchemaUrl(version: string): string {
  return `https://raw.githubusercontent.com/cai-toolkit/cai/v${version}/schemas/cai.config.schema.json`;
}

export function configJsonSchema(): Record<string, unknown> {
  // Refinements have no JSON Schema form: they are left to cai (see above), the rest is exact.
  const generated = z.toJSONSchema(CaiConfigSchema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const { $schema: dialect, ...rest } = generated;
  return {
    $schema: dialect,
    title: 'cai.config.json',
    description:
      'A cai deployment profile: the private annex of §1 (provider code, platform id, endpoints, catalog, authorised origins, secret references) per environment. Written by `cai config init`, read by every cai command (`cai config show`).',
    ...rest,
  };
}
