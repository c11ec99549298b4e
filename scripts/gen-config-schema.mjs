#!/usr/bin/env node
// Writes schemas/cai.config.schema.json, the JSON Schema of cai.config.json, from the zod schema cai reads the file
// with (the built dist/config/json-schema.js): the file `cai config init` names as "$schema" (src/config/json-schema.ts)
// and `cai schema config` prints. Run `npm run docs` (it builds first); `--check` exits 1 when the committed file
// differs. test/commands/schema-config.test.ts compares it with the schema generated from src/.
import { fileURLToPath } from 'node:url';
import { writeOrCheck } from './generated-page.mjs';

export const FILE = 'schemas/cai.config.schema.json';
export const REGENERATE = 'npm run docs';

/** The file's text: the schema as `cai schema config` prints it. */
export function renderConfigSchema(schema) {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

async function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { configJsonSchema } = await import(new URL('../dist/config/json-schema.js', import.meta.url).href);
  writeOrCheck(root, FILE, renderConfigSchema(configJsonSchema()), {
    regenerate: REGENERATE,
    source: 'src/config/schema.ts',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
