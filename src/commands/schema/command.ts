import type { Command } from 'commander';
import { runHandler, type CommandContext, type RunState } from '../runner.js';
import { oneOf } from '../options.js';
import { usageError } from '../../errors.js';
import { EVENT_TYPES } from '../../spec/constants.js';

const TARGETS = ['job', 'ack', 'duplicate-ack', 'event', ...EVENT_TYPES, 'all', 'config'] as const;
type Target = (typeof TARGETS)[number];
const FORMATS = ['json-schema', 'openapi'] as const;

interface SchemaOptions {
  format: (typeof FORMATS)[number];
}

export function registerSchema(program: Command, state: RunState): void {
  program
    .command('schema')
    .description('Print the JSON Schema (2020-12) of the documents or of cai.config.json, or an OpenAPI 3.1 document of both interfaces')
    .argument('[what]', `${TARGETS.join(', ')} (default: all: every document; config: the deployment profile)`, oneOf(TARGETS))
    .option('--format <format>', 'json-schema or openapi', oneOf(FORMATS), 'json-schema')
    .addHelpText(
      'after',
      `
The schemas are generated from the same definitions cai validate uses. Formats (E.164, ISO 8601 with offset,
BCP 47) are patterns, so any JSON Schema validator reaches the same verdict. Not expressible in JSON Schema:
the 256 KB body limit (§8), the branch catalog, and the warnings of cai validate. \`cai schema config\` is the
schema of cai.config.json, for an editor (\`cai config init\` names it as the file's "$schema").

Examples:
  $ cai schema job > contact-job.schema.json
  $ cai schema appointment.booked
  $ cai schema --format openapi > cai-openapi.json
  $ cai schema config > cai.config.schema.json`,
    )
    .action(async (what: Target | undefined, options: SchemaOptions, cmd: Command) => {
      await runHandler(state, cmd, (context) => runSchema(what, options, context));
    });
}

async function runSchema(what: Target | undefined, options: SchemaOptions, { output }: CommandContext): Promise<number> {
  if (what === 'config') {
    if (options.format === 'openapi') throw usageError('usage', '--format openapi describes the two interfaces, not cai.config.json', "drop --format: 'cai schema config' prints its JSON Schema");
    const { configJsonSchema } = await import('../../config/json-schema.js');
    output.resultRaw(JSON.stringify(configJsonSchema(), null, 2) + '\n');
    return 0;
  }
  const { jsonSchemaFor, openApiDocument } = await import('../../spec/json-schema.js');
  if (options.format === 'openapi') {
    if (what !== undefined && what !== 'all') {
      throw usageError('usage', `--format openapi describes both interfaces whole, not ${what} alone`, `drop '${what}', or use --format json-schema for one document kind`);
    }
    output.resultRaw(JSON.stringify(openApiDocument(), null, 2) + '\n');
    return 0;
  }
  output.resultRaw(JSON.stringify(jsonSchemaFor(what ?? 'all'), null, 2) + '\n');
  return 0;
}
