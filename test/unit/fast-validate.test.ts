import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type * as z from 'zod';
import { fastValidatorSource } from '../../scripts/fast-validators.mjs';
import { EVENT_TYPES, type EventType } from '../../src/spec/constants.js';
import { FAST_VALIDATORS, KNOWN_FIELDS } from '../../src/spec/fast-validate.generated.js';
import { fastBodyVerdict } from '../../src/spec/validate-fast.js';
import { jsonSchemaFor } from '../../src/spec/json-schema.js';
import { sampleAck, sampleDuplicateAck, sampleEvent, sampleJob } from '../../src/spec/sample.js';
import { Brief, Contact, ContactJob, DuplicateAck, EventSchemas, JobAck, Origin } from '../../src/spec/schemas.js';
import * as fastPath from '../../src/spec/validate.js';
import type { DocumentVerdict, ValidateOptions } from '../../src/spec/validate.js';
import { ROOT } from '../helpers/cli.js';
import { corpusLabels } from '../helpers/corpus.js';

/**
 * The compiled validators (src/spec/fast-validate.generated.ts) against the zod schemas they are generated from
 * (issue #17): the same verdict on every corpus document and on generated documents, valid ones and mutations of
 * them; and validate.ts with the fast path gives exactly the verdicts, errors and warnings that it gives with zod
 * alone (a second instance of the module, whose compiled functions all answer "invalid", so zod decides everything).
 */

const SCHEMAS: Record<string, z.ZodType> = {
  job: ContactJob,
  ack: JobAck,
  'duplicate-ack': DuplicateAck,
  ...EventSchemas,
};
const TARGETS = Object.keys(SCHEMAS);

vi.resetModules();
vi.doMock('../../src/spec/fast-validate.generated.js', async (original) => ({
  ...(await original<object>()),
  FAST_VALIDATORS: new Proxy({}, { get: () => () => false }),
}));
const zodOnly = (await import('../../src/spec/validate.js')) as typeof fastPath;
vi.doUnmock('../../src/spec/fast-validate.generated.js');

/** Every compiled function agrees with its zod schema on `value`; returns the targets that found it valid. */
function expectAgreement(value: unknown): string[] {
  const valid: string[] = [];
  for (const target of TARGETS) {
    const zodValid = (SCHEMAS[target] as z.ZodType).safeParse(value).success;
    const fastValid = (FAST_VALIDATORS[target] as (data: unknown) => boolean)(value);
    if (fastValid !== zodValid)
      expect.fail(`${target}: compiled ${fastValid}, zod ${zodValid} for ${JSON.stringify(value)}`);
    if (zodValid) valid.push(target);
    else expectInputsAtPaths(target, value);
  }
  return valid;
}

/** validate.ts reads each issue's value at its path (inputAt) rather than asking zod for it: the same value. */
function expectInputsAtPaths(target: string, value: unknown): void {
  const result = (SCHEMAS[target] as z.ZodType).safeParse(value, { reportInput: true });
  for (const issue of result.error?.issues ?? []) {
    if (!Object.is(fastPath.inputAt(value, issue.path), issue.input))
      expect.fail(
        `${target}: zod's input at ${issue.path.join('.')} is not the value there in ${JSON.stringify(value)}`,
      );
  }
}

const OPTION_SETS: ValidateOptions[] = [
  {},
  { strict: true },
  { kind: 'event', strict: true },
  { kind: 'job', catalog: [{ branch_code: 'BR-001', name: 'Centre' }] },
  { kind: 'ack' },
  { kind: 'duplicate-ack', strict: true },
];

/** validate.ts gives the same verdict, errors and warnings with its fast path as with zod alone. */
function expectSameVerdicts(value: unknown): void {
  for (const options of OPTION_SETS) {
    const fast: DocumentVerdict = fastPath.validateDocument(value, options);
    expect(fast).toEqual(zodOnly.validateDocument(value, options));
  }
}

describe('the compiled validators', () => {
  it('are generated from the current zod schemas (npm run build rewrites the file)', () => {
    const committed = readFileSync(join(ROOT, 'src/spec/fast-validate.generated.ts'), 'utf8');
    expect(committed).toBe(fastValidatorSource(jsonSchemaFor, EVENT_TYPES));
  });

  it('agree with zod on every corpus document, and validate.ts gives the same verdicts with or without them', () => {
    let compared = 0;
    for (const label of corpusLabels()) {
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(join(ROOT, label.file), 'utf8'));
      } catch {
        continue; // not JSON: neither validator sees it
      }
      expectAgreement(value);
      expectSameVerdicts(value);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(80);
  });

  it('agree on the bytes path too: validateBody with and without the fast path, for every corpus file', () => {
    for (const label of corpusLabels()) {
      const bytes = readFileSync(join(ROOT, label.file));
      for (const options of OPTION_SETS)
        expect(fastPath.validateBody(bytes, options)).toEqual(zodOnly.validateBody(bytes, options));
    }
  });

  it("give every verdict without zod but a schema's refusal (validate-fast.ts), the same as validate.ts", () => {
    let given = 0;
    for (const label of corpusLabels()) {
      const bytes = readFileSync(join(ROOT, label.file));
      for (const options of OPTION_SETS) {
        const quick = fastBodyVerdict(bytes, options);
        if (quick === undefined) continue;
        expect(quick).toEqual(fastPath.validateBody(bytes, options));
        given += 1;
      }
    }
    expect(given).toBeGreaterThan(100);
  });

  it("name the fields of zod's shapes (KNOWN_FIELDS: what strict validation reports others against, §9.2)", () => {
    const shapeOf = (schema: z.ZodType) => Object.keys((schema as unknown as { shape: object }).shape);
    for (const target of TARGETS) expect(KNOWN_FIELDS[target], target).toEqual(shapeOf(SCHEMAS[target] as z.ZodType));
    for (const [nested, schema] of [
      ['contact', Contact],
      ['origin', Origin],
      ['brief', Brief],
    ] as const)
      expect(KNOWN_FIELDS[`job.${nested}`], nested).toEqual(shapeOf(schema));
  });
});

// Values chosen at the edges of the rules (§2.1 formats, §8 event_id length, identifiers, integers).
const EDGE_STRINGS = [
  '',
  ' ',
  'x',
  '+',
  '+1',
  '+12',
  '+123456789012345',
  '+1234567890123456',
  '+0123',
  '447700900123',
  '2026-11-22T13:00:00+00:00',
  '2026-11-22T13:00:00Z',
  '2026-11-22T13:00:00.123456789-03:30',
  '2026-11-22T13:00:00.1234567890Z',
  '2026-11-22T13:00:00',
  '2026-11-22 13:00:00Z',
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '1900-02-29T00:00:00Z',
  '2000-02-29T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-12-31T23:59:60Z',
  '2026-12-31T24:00:00Z',
  'en',
  'es-ES',
  'zh-Hant-TW',
  'i-klingon',
  'I-KLINGON',
  'x-private',
  'en-',
  'e',
  'toolonglanguage',
  'https://platform.example/cai/events',
  'HTTP://x',
  'http://',
  'https://a b',
  'https://user@host/',
  'ftp://x',
  'a'.repeat(120),
  'a'.repeat(121),
  '😀'.repeat(120),
  '😀'.repeat(121),
  '\ud800',
  '\u0000',
  'whatsapp',
  'inbound',
  'agent',
  'no_answer',
  'book_appointment',
  'phone',
  'job.closed',
  'conversation.message',
];
const pad = (n: number, width: number) => String(n).padStart(width, '0');
/** Strings near each §2.1 format, built from their parts, each part sometimes out of range. */
/** Mostly in range, sometimes out of it, so that documents reach the rules at their edges and beyond. */
const part = <T>(usual: fc.Arbitrary<T>, edges: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 5 }, { arbitrary: edges, weight: 1 });
const dateTimeString = fc
  .record({
    year: fc.oneof(fc.constantFrom(1900, 2000, 2023, 2024, 2100, 2400), fc.integer({ min: 0, max: 9999 })),
    month: part(fc.oneof(fc.constant(2), fc.integer({ min: 1, max: 12 })), fc.constantFrom(0, 13)),
    day: part(fc.oneof(fc.constantFrom(28, 29, 30, 31), fc.integer({ min: 1, max: 31 })), fc.constantFrom(0, 32)),
    hour: part(fc.integer({ min: 0, max: 23 }), fc.constantFrom(24, 25)),
    minute: part(fc.integer({ min: 0, max: 59 }), fc.constantFrom(60, 61)),
    second: part(fc.integer({ min: 0, max: 59 }), fc.constantFrom(60, 61)),
    fraction: part(fc.option(fc.stringMatching(/^[0-9]{1,9}$/)), fc.constantFrom('', '0123456789')),
    offset: part(
      fc.constantFrom('Z', '+00:00', '-03:30', '+14:00', '+23:59'),
      fc.constantFrom('z', '+24:00', '-12:60', '', '+0100', ' Z'),
    ),
    separator: part(fc.constant('T'), fc.constantFrom('t', ' ')),
  })
  .map(
    (p) =>
      `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}${p.separator}${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}${p.fraction === null ? '' : `.${p.fraction}`}${p.offset}`,
  );
const e164String = fc
  .tuple(fc.constantFrom('+', '+', '', '00', '+ '), fc.stringMatching(/^[0-9]{0,17}$/))
  .map(([plus, digits]) => plus + digits);
const languageString = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z]{1,9}$/),
      fc.stringMatching(/^[0-9][A-Za-z0-9]{0,8}$/),
      fc.constantFrom('x', 'X', 'i', 'u', 'Latn', '419', 'klingon'),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((parts) => parts.join('-'));
const urlString = fc
  .tuple(
    fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'https:/', ''),
    fc.constantFrom('host', 'a b', 'u@h', '', 'h.example'),
    fc.constantFrom('', '/', '/p?q#f', ' /x', '?'),
  )
  .map((parts) => parts.join(''));
const eventIdString = fc
  .tuple(fc.integer({ min: 0, max: 122 }), fc.constantFrom('a', '😀', 'é', ' ', '\n'))
  .map(([length, unit]) => unit.repeat(length));
const formatString = fc.oneof(dateTimeString, e164String, languageString, urlString, eventIdString);

const edgeValue = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(...EDGE_STRINGS), weight: 3 },
  { arbitrary: formatString, weight: 3 },
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -0,
    -1,
    1,
    1.5,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    Infinity,
    [],
    {},
    ['x'],
    { a: 1 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 130 }),
);

const validDocument = fc.oneof(
  fc.constantFrom(...EVENT_TYPES).map((type: EventType) => sampleEvent(type)),
  fc.constant(null).map(() => sampleJob()),
  fc.constant(null).map(() => sampleAck()),
  fc.constant(null).map(() => sampleDuplicateAck()),
);

type Doc = Record<string, unknown>;

/** A change at the top level or one level down: a field set to an edge value, removed, or added. */
const mutation = fc.record({
  nested: fc.boolean(),
  action: fc.constantFrom('set', 'delete', 'add'),
  pick: fc.nat(),
  value: edgeValue,
  name: fc.oneof(
    fc.constantFrom('extra', 'title', '__proto__', 'constructor', 'event', 'contact', 'outcome'),
    fc.string({ maxLength: 6 }),
  ),
});

function mutate(
  doc: Doc,
  change: { nested: boolean; action: string; pick: number; value: unknown; name: string },
): Doc {
  const copy = structuredClone(doc);
  const objects = Object.values(copy).filter(
    (value): value is Doc => typeof value === 'object' && value !== null && !Array.isArray(value),
  );
  const target = change.nested && objects.length > 0 ? (objects[change.pick % objects.length] as Doc) : copy;
  const keys = Object.keys(target);
  const key = keys.length > 0 ? (keys[change.pick % keys.length] as string) : change.name;
  if (change.action === 'delete') delete target[key];
  else if (change.action === 'add')
    Object.defineProperty(target, change.name, {
      value: change.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else target[key] = change.value;
  return copy;
}

describe('the compiled validators on generated documents (fast-check)', () => {
  it('agree with zod on valid documents of every kind', () => {
    fc.assert(
      fc.property(validDocument, (doc) => {
        expect(expectAgreement(doc).length).toBeGreaterThan(0);
        expectSameVerdicts(doc);
      }),
      { numRuns: 300 },
    );
  });

  it('agree with zod on documents with one to three changes, and validate.ts hides no error and no warning', () => {
    fc.assert(
      fc.property(validDocument, fc.array(mutation, { minLength: 1, maxLength: 3 }), (doc, changes) => {
        const mutated = changes.reduce(mutate, doc);
        expectAgreement(mutated);
        expectSameVerdicts(mutated);
      }),
      { numRuns: 3000 },
    );
  });

  it('agree with zod on the §2.1 formats: every format field of a valid document set to a string near its format', () => {
    const FORMAT_FIELDS: [string, fc.Arbitrary<string>][] = [
      ['occurred_at', dateTimeString],
      ['scheduled_at', dateTimeString],
      ['origin.captured_at', dateTimeString],
      ['from_number_e164', e164String],
      ['assigned_number_e164', e164String],
      ['contact.phone_e164', e164String],
      ['contact.language', languageString],
      ['callback_url', urlString],
      ['event_id', eventIdString],
    ];
    const fieldAndText = fc.constantFrom(...FORMAT_FIELDS).chain(([path, text]) => fc.tuple(fc.constant(path), text));
    fc.assert(
      fc.property(validDocument, fieldAndText, (doc, [path, text]) => {
        const copy = structuredClone(doc);
        const [outer, inner] = path.split('.') as [string, string | undefined];
        if (inner === undefined) copy[outer] = text;
        else if (typeof copy[outer] === 'object' && copy[outer] !== null) (copy[outer] as Doc)[inner] = text;
        else copy[outer] = { [inner]: text };
        expectAgreement(copy);
        expectSameVerdicts(copy);
      }),
      { numRuns: 4000 },
    );
  });

  it('agree with zod on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        expectAgreement(value);
        expectSameVerdicts(value);
      }),
      { numRuns: 500 },
    );
  });

  it('agree with zod on objects whose fields are edge values', () => {
    const field = fc.constantFrom(
      'event',
      'event_id',
      'lead_id',
      'provider_job_id',
      'branch_code',
      'channel',
      'from_number_e164',
      'direction',
      'author',
      'text',
      'occurred_at',
      'scheduled_at',
      'outcome',
      'attempts',
      'contact',
      'callback_url',
      'assigned_number_e164',
      'ok',
      'duplicate',
      'service',
      'notes',
      'origin',
      'brief',
    );
    fc.assert(
      fc.property(fc.dictionary(field, edgeValue, { maxKeys: 10 }), (value) => {
        expectAgreement(value);
        expectSameVerdicts(value);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('invalid events: zod runs only for the fields the compiled function refuses', () => {
  /** Several fields of one event wrong at once (one missing), in an order unlike the schema's. */
  function brokenEvent(type: EventType): Doc {
    const doc: Doc = {
      attempts: -1.5,
      ...sampleEvent(type),
      channel: null,
      from_number_e164: 3,
      occurred_at: '2026-02-30T10:00:00Z',
      text: 7,
    };
    delete doc.event_id;
    if (type.startsWith('appointment.')) Object.assign(doc, { scheduled_at: 'tomorrow', branch_code: '' });
    return doc;
  }

  it('gives the issues of zod on the whole document, in the same order, without running the whole schema', () => {
    for (const type of EVENT_TYPES) {
      const schema = EventSchemas[type] as unknown as { _zod: { run: (...args: unknown[]) => unknown } };
      const whole = vi.spyOn(schema._zod, 'run');
      try {
        const doc = brokenEvent(type);
        const fast = fastPath.validateDocument(doc);
        expect(whole).not.toHaveBeenCalled();
        // zodOnly's compiled functions refuse everything, the valid probe too: zod checks its whole documents.
        expect(fast).toEqual(zodOnly.validateDocument(doc));
        const zodIssues = (EventSchemas[type] as z.ZodType).safeParse(doc).error?.issues ?? [];
        expect(fast.errors.map((issue) => issue.path)).toEqual(zodIssues.map((issue) => issue.path.join('.')));
        expect(fast.errors.length).toBeGreaterThanOrEqual(5);
        // The probe each field was tried on is left as it was: the next valid document is still valid.
        expect(fastPath.validateDocument(sampleEvent(type)).valid).toBe(true);
      } finally {
        whole.mockRestore();
      }
    }
  });
});
