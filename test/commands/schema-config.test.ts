/**
 * `cai schema config` prints the JSON Schema of cai.config.json, generated from the zod schema cai reads the file
 * with; the file `cai config init` writes validates against it (ajv, an independent validator, strict, 2020-12),
 * names it as its "$schema", and the repository's copy (schemas/cai.config.schema.json) is what the code generates.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema, configSchemaUrl } from '../../src/config/json-schema.js';
import { versionInfo } from '../../src/version.js';
import { ROOT, runCli } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { FILE, REGENERATE, renderConfigSchema } from '../../scripts/gen-config-schema.mjs';

const dir = mkdtempSync(join(tmpdir(), 'cai-schema-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cai schema config', () => {
  it('prints a JSON Schema that the file cai config init writes validates against', async () => {
    const printed = await runCli(['schema', 'config']);
    expect(printed.code).toBe(0);
    const schema = JSON.parse(printed.stdout) as Record<string, unknown>;
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'cai.config.json',
      type: 'object',
    });

    const init = await runCli(['config', 'init'], { cwd: dir });
    expect(init.code).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'cai.config.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(written)[0]).toBe('$schema');
    expect(written.$schema).toBe(configSchemaUrl(versionInfo().version));

    const validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
    // And it can fail: what cai refuses, the schema refuses too.
    for (const broken of [
      { ...written, version: 2 },
      { ...written, extra: true },
      { ...written, environments: { 'bad name': {} } },
    ]) {
      expect(validate(broken), JSON.stringify(broken).slice(0, 80)).toBe(false);
    }
  });

  it('is the repository copy the "$schema" URL serves', () => {
    const committed = readFileSync(join(ROOT, FILE as string), 'utf8');
    expect(
      committed === (renderConfigSchema as (schema: unknown) => string)(configJsonSchema()),
      `${FILE as string} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
    expect(configSchemaUrl('0.2.0')).toBe(`https://raw.githubusercontent.com/cai-toolkit/cai/v0.2.0/${FILE as string}`);
  });

  it('has no OpenAPI form', async () => {
    const result = await runCli(['schema', 'config', '--format', 'openapi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: --format openapi describes the two interfaces, not cai.config.json\nhint: drop --format: 'cai schema config' prints its JSON Schema\n",
    );
  });
});
