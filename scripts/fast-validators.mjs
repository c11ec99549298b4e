// Generates src/spec/fast-validate.generated.ts (issue #17): standalone validation functions compiled by ajv from
// the JSON Schema that `cai schema` publishes, itself generated from the zod schemas of src/spec/schemas.ts
// (z.toJSONSchema, src/spec/json-schema.ts). The zod schemas stay the one definition: this file is derived from
// them at every build, and test/unit/fast-validate.test.ts fails when the committed copy is stale or when the two
// disagree on any document. src/spec/validate.ts uses these functions to answer "is this document valid" and
// asks zod for the exact issues only when the answer is no, so messages come from zod as before.
import { Ajv2020 } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';

/** The documents validate.ts checks with a schema of its own: each event type is checked with its own schema (§6). */
export function fastValidatorTargets(eventTypes) {
  return ['job', 'ack', 'duplicate-ack', ...eventTypes];
}

/** Annotations do not change what is valid; without them the generated code is smaller. */
function withoutAnnotations(value) {
  if (Array.isArray(value)) return value.map(withoutAnnotations);
  if (value === null || typeof value !== 'object') return value;
  const result = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'description' || key === 'title') continue;
    // `properties` maps field names to schemas: a field called "title" must stay.
    result[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(inner).map(([name, schema]) => [name, withoutAnnotations(schema)]))
        : withoutAnnotations(inner);
  }
  return result;
}

// ajv 8 calls `unicode` deprecated, yet it is the only way to count lengths as zod does; other warnings still show.
const QUIET_ABOUT_UNICODE = {
  log: console.log,
  warn: (message) => !String(message).includes('option unicode') && console.warn(message),
  error: console.error,
};

/**
 * A pattern of the form `^[\s\S]{min,max}$` with the `u` flag (the event_id length of §8, formats.ts) matches
 * exactly the strings of min to max code points. A string of min to max UTF-16 units has that many code points or
 * fewer, and at least min when min is 1 or less (the only case rewritten), so the regular expression runs only for
 * strings over max units, where astral characters may still bring the code points under the limit. Same verdicts;
 * the length check costs a tenth of the match.
 */
function withLengthShortcuts(code) {
  let result = code;
  for (const [, name, min, max] of code.matchAll(
    /const (pattern\d+) = new RegExp\("\^\[\\\\s\\\\S\]\{(\d+),(\d+)\}\$", "u"\);/g,
  )) {
    if (Number(min) > 1) continue;
    result = result.replace(
      new RegExp(`if\\(!${name}\\.test\\((data\\d*)\\)\\)\\{`, 'g'),
      (_, data) => `if(!((${data}.length >= ${min} && ${data}.length <= ${max}) || ${name}.test(${data}))){`,
    );
  }
  if (result === code && /\[\\\\s\\\\S\]\{/.test(code))
    throw new Error('the length pattern was not rewritten: check withLengthShortcuts against the ajv output');
  return result;
}

/**
 * The validators answer "valid?" only (zod gives the messages), so the error objects ajv builds before each
 * `return false` (170 of them, a few hundred characters each) are never read: without them each function is a
 * third of its size, which V8 parses, compiles and optimises sooner (the first thousands of documents of a
 * `cai validate --ndjson` run are validated before the functions are optimised). Same verdicts: only what is
 * assigned to `.errors` goes.
 */
function withoutErrorObjects(code) {
  const assignments = code.match(/^validate\d+\.errors = \[\{.*\}\];$/gm)?.length ?? 0;
  let result = code.replace(/^validate\d+\.errors = \[\{.*\}\];\nreturn false;$/gm, 'return false;');
  const left = result.match(/^validate\d+\.errors = \[\{/gm)?.length ?? 0;
  if (assignments === 0 || left !== 0)
    throw new Error(
      `withoutErrorObjects: ${left} of ${assignments} error objects left: check it against the ajv output`,
    );
  // What only the error objects and nested (dynamic) references read: the options parameter (instancePath…) and the
  // reset of `evaluated` (dynamicProps and dynamicItems are false in every function: no unevaluated* keyword).
  const functions = result.match(/^function validate\d+\(/gm)?.length ?? 0;
  result = result.replace(
    /^function (validate\d+)\(data, \{instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors=\{\}\}=\{\}\)\{$/gm,
    'function $1(data){',
  );
  result = result.replace(
    /^const evaluated0 = validate\d+\.evaluated;\nif\(evaluated0\.dynamicProps\)\{\nevaluated0\.props = undefined;\n\}\nif\(evaluated0\.dynamicItems\)\{\nevaluated0\.items = undefined;\n\}\n/gm,
    '',
  );
  const simplified = result.match(/^function validate\d+\(data\)\{$/gm)?.length ?? 0;
  if (simplified !== functions || /instancePath|rootData|evaluated0|"dynamic(Props|Items)":true/.test(result)) {
    throw new Error(
      'withoutErrorObjects: a validator still reads its options or evaluated state: check it against the ajv output',
    );
  }
  return result;
}

/**
 * The TypeScript module text. `jsonSchemaFor` is src/spec/json-schema.ts's, so the functions check exactly the
 * published schema. ajv options: `unicode: false` counts string lengths as zod does (UTF-16 units: the only length
 * rule is minLength 1, where both counts agree), and needs no ajv run-time helper, so the output imports nothing;
 * `messages: false`, since the errors shown always come from zod.
 */
export function fastValidatorSource(jsonSchemaFor, eventTypes) {
  const targets = fastValidatorTargets(eventTypes);
  const ajv = new Ajv2020({
    strict: true,
    unicode: false,
    messages: false,
    logger: QUIET_ABOUT_UNICODE,
    code: { source: true, esm: true, lines: true, optimize: true },
  });
  const names = targets.map((target, index) => [`v${index}`, target]);
  for (const target of targets) ajv.addSchema(withoutAnnotations(jsonSchemaFor(target)));
  const code = standalone.default(
    ajv,
    Object.fromEntries(names.map(([name, target]) => [name, jsonSchemaFor(target).$id])),
  );
  if (/\brequire\(|^import /m.test(code))
    throw new Error('the generated validators need an ajv run-time helper: bundle it or change the options');
  const body = withoutErrorObjects(withLengthShortcuts(code.replace(/^"use strict";\n?/, '')));
  const table = names.map(([name, target]) => `  ${JSON.stringify(target)}: ${name},`).join('\n');
  const known = knownFields(jsonSchemaFor, targets);
  const fields = Object.entries(known)
    .map(([target, list]) => `  ${JSON.stringify(target)}: ${JSON.stringify(list)},`)
    .join('\n');
  return `// @ts-nocheck
/* Generated by scripts/fast-validators.mjs (npm run build) from the JSON Schema of src/spec/json-schema.ts, itself
 * generated from the zod schemas of src/spec/schemas.ts, by ajv's standalone code generation. Do not edit: the
 * build rewrites it, and test/unit/fast-validate.test.ts fails when it is stale. */
${body}

/** Whether a parsed document is valid against the schema of its kind or event type; no messages (zod gives them). */
export const FAST_VALIDATORS: Readonly<Record<string, (data: unknown) => boolean>> = {
${table}
};

/** The fields each schema names (a job's contact, origin and brief too): what strict validation reports others against (§9.2). */
export const KNOWN_FIELDS: Readonly<Record<string, readonly string[]>> = {
${fields}
};
`;
}

/** The property names of each target's schema, and of the job's nested objects, as zod's shapes have them. */
function knownFields(jsonSchemaFor, targets) {
  const known = {};
  for (const target of targets) {
    const schema = jsonSchemaFor(target);
    known[target] = Object.keys(schema.properties ?? {});
    if (target === 'job')
      for (const nested of ['contact', 'origin', 'brief'])
        known[`job.${nested}`] = Object.keys(schema.properties[nested]?.properties ?? {});
  }
  return known;
}
