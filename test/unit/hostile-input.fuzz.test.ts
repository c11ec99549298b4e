/**
 * Issue 14: cai's parsers and validators against random and adversarial input (fast-check): deep nesting, huge
 * strings, odd Unicode, prototype-pollution keys, random bytes. They never throw (or throw only a CaiError, for the
 * readers whose bad input is a usage error), always terminate, and never report an internal error.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_WALK_DEPTH } from '../../src/bounds.js';
import { parseConfig } from '../../src/config/load.js';
import { CaiError } from '../../src/errors.js';
import { parseRawRequest } from '../../src/http/raw-request.js';
import { parseLogLine } from '../../src/report/log.js';
import { diagnose } from '../../src/signing/diagnose.js';
import { verify } from '../../src/signing/verify.js';
import { sign } from '../../src/signing/sign.js';
import { describeJsonFailure, jsonNestingDepth } from '../../src/spec/json-syntax.js';
import { parseSetOverride, sampleEvent, sampleJob } from '../../src/spec/sample.js';
import { validateBody, validateDocument, type DocumentVerdict } from '../../src/spec/validate.js';
import { useWords } from '../../src/errors.js';
import { SHARED_HINTS } from '../../src/commands/common/hints.js';

// The messages in the CLI's words (its flags), as the commands print them.
beforeAll(() => useWords(SHARED_HINTS));

const POLLUTING_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];
const ODD = fc.constantFrom(
  '\u0000',
  '\u001b[2J',
  '\u202e',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u2028',
  '𝕏',
  'é',
  '\\',
  '"',
  '\u0085',
);
const key = fc.oneof(
  fc.constantFrom(...POLLUTING_KEYS, 'event', 'event_id', 'contact', 'lead_id', 'text'),
  fc.string(),
);
const oddString = fc
  .array(fc.oneof(fc.string({ unit: 'binary' }), ODD), { maxLength: 5 })
  .map((parts) => parts.join(''));

/** JSON values with hostile keys and strings, of bounded size. */
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    oddString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value nested `depth` levels deep, built without recursion. */
function deep(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function expectVerdict(verdict: DocumentVerdict): void {
  expect(typeof verdict.valid).toBe('boolean');
  expect(verdict.errors.some((issue) => issue.code === 'internal')).toBe(false);
  expect(verdict.valid).toBe(verdict.errors.length === 0);
}

describe('the validators (src/spec/validate.ts) never throw and judge every input', () => {
  it('any JSON value with hostile keys and strings, as a job, an event or by shape', () => {
    fc.assert(
      fc.property(
        hostileValue,
        fc.constantFrom('auto', 'job', 'event', 'ack', 'duplicate-ack') as fc.Arbitrary<'auto'>,
        fc.boolean(),
        (value, kind, strict) => {
          expectVerdict(validateDocument(value, { kind, strict }));
          expectVerdict(validateBody(Buffer.from(JSON.stringify(value) ?? 'null'), { kind, strict }));
        },
      ),
      { numRuns: 400 },
    );
    // Nothing above polluted the prototype of every object.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.toString.call({})).toBe('[object Object]');
  });

  it('real documents with hostile fields merged in', () => {
    fc.assert(
      fc.property(fc.dictionary(key, hostileValue, { maxKeys: 6 }), fc.boolean(), (extra, job) => {
        const document = { ...(job ? sampleJob() : sampleEvent('job.closed')), ...extra };
        expectVerdict(validateDocument(document, { strict: true }));
        expectVerdict(validateBody(Buffer.from(JSON.stringify(document)), { strict: true }));
      }),
      { numRuns: 300 },
    );
  });

  it('random bytes, random text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), oddString, (bytes, text) => {
        expectVerdict(validateBody(bytes));
        expectVerdict(validateBody(Buffer.from(text, 'utf8')));
      }),
      { numRuns: 400 },
    );
  });

  it('nesting 100 000 levels deep, anywhere in a document, is judged like any other value', () => {
    for (const kind of ['array', 'object'] as const) {
      const nested = deep(100_000, kind);
      for (const body of [
        nested,
        `{"event":"job.closed","event_id":"e1","extra":${nested}}`,
        `{"event":"conversation.message","event_id":"e1","text":${nested}}`,
        `{"contact":${nested},"lead_id":"l"}`,
        `{"__proto__":${nested},"event":"job.closed","event_id":"e1"}`,
      ]) {
        expectVerdict(validateBody(Buffer.from(body), { strict: true }));
      }
    }
    // Unclosed: not JSON, located without recursion.
    expect(validateBody(Buffer.from('['.repeat(100_000))).errors[0]?.message).toBe(
      'not JSON: unexpected end of input at line 1, column 100001',
    );
  });

  it('huge strings and keys', () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    expectVerdict(
      validateBody(Buffer.from(JSON.stringify({ event: 'job.closed', event_id: huge, [huge]: huge })), {
        strict: true,
      }),
    );
    expectVerdict(
      validateDocument({ contact: { name: huge, phone_e164: huge }, event_id: huge }, { kind: 'job', strict: true }),
    );
  });
});

describe('the other readers of user and network JSON', () => {
  it('a profile: a CaiError for anything wrong, never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileValue.map((value) => JSON.stringify(value) ?? ''),
          oddString,
        ),
        (text) => {
          try {
            parseConfig(text, 'c.json');
          } catch (error) {
            expect(error).toBeInstanceOf(CaiError);
          }
        },
      ),
      { numRuns: 300 },
    );
    for (const kind of ['array', 'object'] as const) {
      expect(() =>
        parseConfig(`{"version":1,"environments":{"t":{"branches":${deep(100_000, kind)}}}}`, 'c.json'),
      ).toThrow(CaiError);
    }
  });

  it('a log line, a raw request: a result, never an exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileValue.map((value) => JSON.stringify(value) ?? ''),
          oddString,
        ),
        fc.uint8Array({ maxLength: 256 }),
        (line, bytes) => {
          expect(typeof parseLogLine(line).ok).toBe('boolean');
          expect(typeof parseRawRequest(Buffer.from(bytes)).ok).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
    expect(
      parseLogLine(
        `{"v":1,"interface":"B","received_at":"2026-01-01T00:00:00Z","verdict":"accepted","document":${deep(100_000, 'object')}}`,
      ).ok,
    ).toBe(false);
  });

  it('the syntax locator and the depth count take any text, and never quote it', () => {
    fc.assert(
      fc.property(oddString, (text) => {
        const described = describeJsonFailure(text);
        expect(typeof described).toBe('string');
        expect(jsonNestingDepth(text)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
    expect(describeJsonFailure('whsec_TopSecretValue')).toBe(
      'found a letter where a value was expected at line 1, column 1',
    );
    expect(jsonNestingDepth(deep(100_000, 'array'))).toBe(100_000);
    expect(jsonNestingDepth('["[[[", {"a": "]]"}]')).toBe(2);
  });

  it('verify diagnoses a body nested past MAX_WALK_DEPTH without re-serialising it, and says so', () => {
    const body = Buffer.from(`{"a":${deep(50_000, 'array')}}`);
    const timestamp = '1767225600';
    const signature = sign('other-secret', timestamp, body);
    const result = verify({ secrets: ['the-secret'], signature, timestamp, rawBody: body, now: 1767225600 });
    const diagnoses = diagnose({ secrets: ['the-secret'], signature, timestamp, rawBody: body, result });
    expect(diagnoses.map((item) => item.code)).toEqual(['reserialisation_skipped', 'signature_over_other_content']);
    // At the bound, the re-serialisations still run.
    const shallow = Buffer.from(`{"a":${deep(MAX_WALK_DEPTH - 1, 'array')}}`);
    const minified = Buffer.from(JSON.stringify(JSON.parse(shallow.toString())));
    const pretty = sign('the-secret', timestamp, Buffer.from(JSON.stringify(JSON.parse(shallow.toString()), null, 2)));
    const spaced = verify({
      secrets: ['the-secret'],
      signature: pretty,
      timestamp,
      rawBody: minified,
      now: 1767225600,
    });
    expect(
      diagnose({ secrets: ['the-secret'], signature: pretty, timestamp, rawBody: minified, result: spaced }).map(
        (item) => item.code,
      ),
    ).toContain('body_reserialised');
  });

  it('--set refuses a value nested past MAX_WALK_DEPTH (the document is printed and sent as JSON)', () => {
    expect(() => parseSetOverride(`text=${deep(MAX_WALK_DEPTH + 1, 'array')}`)).toThrow(
      `--set text: the value nests ${MAX_WALK_DEPTH + 1} levels deep, over the ${MAX_WALK_DEPTH} cai takes`,
    );
    expect(parseSetOverride(`text=${deep(MAX_WALK_DEPTH, 'array')}`)[0]).toBe('text');
    expect(parseSetOverride('__proto__={"polluted":true}')[0]).toBe('__proto__');
  });
});
