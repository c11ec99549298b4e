import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/spec/constants.js';
import { jsonSchemaFor, openApiDocument, type SchemaTarget } from '../../src/spec/json-schema.js';
import { sampleAck, sampleEvent, sampleJob } from '../../src/spec/sample.js';
import { validateBody, validateDocument, type DocumentKind } from '../../src/spec/validate.js';
import { ROOT } from '../helpers/cli.js';
import { corpusLabels } from '../helpers/corpus.js';

// An independent validator: ajv in strict mode, JSON Schema 2020-12, no formats plugin (formats are patterns).
const ajv = new Ajv2020({ strict: true, allErrors: true });
const compiled = new Map<SchemaTarget, ReturnType<typeof ajv.compile>>();
const ajvValid = (target: SchemaTarget, value: unknown): boolean => {
  let validate = compiled.get(target);
  if (!validate) {
    validate = ajv.compile(jsonSchemaFor(target));
    compiled.set(target, validate);
  }
  return validate(value) === true;
};

describe('JSON Schema emitted by cai schema, checked by ajv', () => {
  it('compiles every target in ajv strict mode', () => {
    for (const target of ['job', 'ack', 'duplicate-ack', 'event', ...EVENT_TYPES, 'all'] as const) {
      expect(() => ajvValid(target, {})).not.toThrow();
    }
  });

  it('gives the same verdict as cai validate for every parseable corpus document', () => {
    let compared = 0;
    for (const label of corpusLabels()) {
      if (label.kind === 'catalog') continue; // the catalog is per deployment, not in the schema
      const bytes = readFileSync(join(ROOT, label.file));
      let value: unknown;
      try {
        value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
      } catch {
        continue; // not JSON / not UTF-8: nothing for a JSON Schema validator to judge
      }
      const kind = label.kind as DocumentKind;
      const ours = validateBody(bytes, { kind }).valid;
      expect({ file: label.file, ajv: ajvValid(kind, value) }).toEqual({ file: label.file, ajv: ours });
      expect({ file: label.file, all: ajvValid('all', value) || !ours }).toEqual({ file: label.file, all: true });
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(70);
  });

  it('agrees with cai validate on randomly broken documents (property)', () => {
    const fields = [
      ['job', 'contact.phone_e164'],
      ['job', 'contact.language'],
      ['job', 'origin.captured_at'],
      ['job', 'origin.channel'],
      ['job', 'callback_url'],
      ['job', 'lead_id'],
      ['job', 'contact'],
      ['job', 'brief.intent'],
      ['event', 'event'],
      ['event', 'event_id'],
      ['event', 'occurred_at'],
      ['event', 'attempts'],
      ['event', 'text'],
      ['event', 'from_number_e164'],
      ['event', 'outcome'],
      ['event', 'scheduled_at'],
      ['ack', 'assigned_number_e164'],
    ] as const;
    const stringish = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.stringMatching(/^\+?[0-9 ]{0,17}$/),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.stringMatching(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})?$/),
      fc.stringMatching(/^[a-zA-Z]{1,9}(-[a-zA-Z0-9]{1,9}){0,4}$/),
      fc.constantFrom(
        'job.closed',
        'appointment.booked',
        'no_answer',
        'booked',
        'https://x.example/a',
        'http://h',
        'ftp://h',
        '',
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.oneof(stringish, fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
        fc.constantFrom(...EVENT_TYPES),
        ([kind, path], value, type) => {
          const doc: Record<string, unknown> =
            kind === 'job' ? sampleJob() : kind === 'ack' ? sampleAck() : sampleEvent(type);
          const parts = path.split('.');
          let target = doc;
          for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
          if (value === undefined) delete target[parts[parts.length - 1] as string];
          else target[parts[parts.length - 1] as string] = value;
          const roundTripped: unknown = JSON.parse(JSON.stringify(doc));
          expect(ajvValid(kind, roundTripped)).toBe(validateDocument(roundTripped, { kind }).valid);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('OpenAPI 3.1 document', () => {
  const doc = openApiDocument() as {
    openapi: string;
    paths: Record<
      string,
      { post: { responses: Record<string, unknown>; parameters: { name: string }[]; callbacks?: unknown } }
    >;
    components: { schemas: Record<string, unknown> };
  };

  it('describes both interfaces with their headers and every status of §7', () => {
    expect(doc.openapi).toBe('3.1.0');
    const jobs = doc.paths['/contact-jobs']?.post;
    const events = doc.paths['/']?.post;
    expect(jobs?.parameters.map((p) => p.name)).toEqual(['X-CAI-Source', 'X-CAI-Signature', 'X-CAI-Timestamp']);
    expect(events?.parameters.map((p) => p.name)).toEqual(['X-CAI-Provider', 'X-CAI-Signature', 'X-CAI-Timestamp']);
    expect(Object.keys(jobs?.responses ?? {})).toEqual(['202']);
    expect(Object.keys(events?.responses ?? {})).toEqual(['202', '400', '401', '413', '429', '5XX']);
    expect(jobs?.callbacks).toBeDefined();
  });

  it('has every $ref resolvable and every component schema compilable by ajv', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z]+)"/g)].map(
      (m) => m[1] as string,
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
    for (const schema of Object.values(doc.components.schemas))
      expect(() => new Ajv2020({ strict: true }).compile(schema as object)).not.toThrow();
  });
});
