/**
 * The generator of `--generate N`: what it calls valid is valid by cai's own validator and what it calls invalid is
 * invalid, across 5 000 draws of each; the draws reach every shape they claim to (each enumeration value, each
 * optional field present and absent, text in every Unicode plane, E.164 of 8 to 15 digits, date-times with and
 * without fractions and with odd offsets, event_ids at the 120-character limit counted in characters); the same
 * seed draws the same documents.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eventIdFor,
  materialise,
  validDraft,
  type Draft,
  type DraftContext,
} from '../../src/conformance/generate/documents.js';
import { invalidDraft } from '../../src/conformance/generate/mutations.js';
import { compact } from '../../src/conformance/probe/bodies.js';
import {
  AUTHORS,
  BRIEF_INTENTS,
  DIRECTIONS,
  EVENT_CHANNELS,
  EVENT_TYPES,
  MAX_EVENT_ID_LENGTH,
  ORIGIN_CHANNELS,
  OUTCOMES,
  type InterfaceId,
} from '../../src/spec/constants.js';
import { validateBody } from '../../src/spec/validate.js';

const DRAWS = 5_000;
const CONTEXT: DraftContext = { callbackUrl: 'https://callback.invalid/cai-conformance' };
const FRESH = 'cai-conf-0a1b2c3d-b-gen-42';

const kindOf = (iface: InterfaceId) => (iface === 'B' ? 'event' : 'job');
const sample = (arbitrary: fc.Arbitrary<Draft>, seed = 20261123, numRuns = DRAWS) =>
  fc.sample(arbitrary, { seed, numRuns }).map((draft) => materialise(draft, FRESH));

describe.each(['B', 'A'] as const)('interface %s', (iface) => {
  const valid = sample(validDraft(iface, CONTEXT));
  const invalidDrafts = fc.sample(invalidDraft(iface, CONTEXT), { seed: 20261123, numRuns: DRAWS });
  const invalid = invalidDrafts.map((draft) => materialise(draft, FRESH));

  it(`${DRAWS} documents drawn valid are valid by cai's validator`, () => {
    const wrong = valid
      .map((doc) => ({ doc, verdict: validateBody(compact(doc), { kind: kindOf(iface) }) }))
      .filter(({ verdict }) => !verdict.valid);
    expect(
      wrong.slice(0, 3).map(({ doc, verdict }) => `${JSON.stringify(doc)}: ${JSON.stringify(verdict.errors)}`),
    ).toEqual([]);
  });

  it(`${DRAWS} documents drawn invalid (one change each) are invalid by cai's validator`, () => {
    const wrong = invalidDrafts.filter(
      (_draft, index) => validateBody(compact(invalid[index]), { kind: kindOf(iface) }).valid,
    );
    expect(wrong.slice(0, 3).map((draft) => `${draft.mutation}: ${JSON.stringify(materialise(draft, FRESH))}`)).toEqual(
      [],
    );
    // One change each: every invalid draft says what it changed.
    expect(invalidDrafts.every((draft) => typeof draft.mutation === 'string' && draft.mutation !== '')).toBe(true);
  });

  it('reaches each kind of change: removed, wrong type, enumeration and format near misses', () => {
    const changes = invalidDrafts.map((draft) => draft.mutation ?? '');
    expect(changes.some((change) => / removed$/.test(change))).toBe(true);
    expect(changes.some((change) => / given as (number|boolean|an array|an object|null)/.test(change))).toBe(true);
    expect(changes.some((change) => / ".*" (in capitals|with a trailing space|as a synonym)$/.test(change))).toBe(true);
    expect(changes.some((change) => /a date-time/.test(change))).toBe(true);
    expect(changes.some((change) => /a telephone number/.test(change))).toBe(true);
    if (iface === 'B') expect(changes).toContain('event_id of 121 characters (§8: at most 120)');
    else
      expect(
        changes.some((change) => /a language tag/.test(change)) &&
          changes.some((change) => /callback_url: a URL/.test(change)),
      ).toBe(true);
  });

  it('the same seed draws the same documents; another seed, others', () => {
    const again = sample(validDraft(iface, CONTEXT), 20261123, 200);
    expect(again).toEqual(valid.slice(0, 200));
    expect(sample(invalidDraft(iface, CONTEXT), 20261123, 200)).toEqual(invalid.slice(0, 200));
    expect(sample(validDraft(iface, CONTEXT), 99, 200)).not.toEqual(valid.slice(0, 200));
  });

  it('draws every shape §2.1 allows: E.164 of 8 to 15 digits, date-times with 0 to 9 fraction digits, Z and odd offsets', () => {
    const strings = valid.flatMap((doc) => leaves(doc));
    const phones = strings.filter(([path]) => /e164$/.test(path)).map(([, value]) => value.length - 1);
    expect(new Set(phones)).toEqual(new Set([8, 9, 10, 11, 12, 13, 14, 15]));
    const times = strings.filter(([path]) => /_at$/.test(path)).map(([, value]) => value);
    const fractions = new Set(times.map((time) => /\.(\d+)/.exec(time)?.[1]?.length ?? 0));
    expect(fractions).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(times.some((time) => time.endsWith('Z'))).toBe(true);
    expect(times.some((time) => time.endsWith('+05:45'))).toBe(true);
    expect(times.some((time) => /-\d\d:\d\d$/.test(time))).toBe(true);
    expect(times.some((time) => /-02-29T/.test(time))).toBe(true);
  });

  it('draws text in every Unicode plane, empty strings, and event_ids up to exactly 120 characters', () => {
    const text = valid
      .flatMap((doc) => leaves(doc))
      .filter(
        ([path]) =>
          !/event_id|_at$|e164$|language|callback_url|channel|direction|author|outcome|intent|^event$/.test(path),
      )
      .map(([, value]) => value);
    const planes = new Set(text.flatMap((value) => [...value].map((char) => (char.codePointAt(0) ?? 0) >> 16)));
    expect([...planes].sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, plane) => plane));
    expect(text).toContain('');
    const ids = valid.map((doc) => String(doc.event_id));
    expect(Math.max(...ids.map((id) => [...id].length))).toBe(MAX_EVENT_ID_LENGTH);
    // Counted in characters: an id of 120 characters outside the BMP is longer than 120 in UTF-16 units.
    expect(ids.some((id) => [...id].length === MAX_EVENT_ID_LENGTH && id.length > MAX_EVENT_ID_LENGTH)).toBe(true);
    expect(ids.every((id) => id.startsWith(FRESH))).toBe(true);
  });

  it('draws every enumeration value, and every optional field both present and absent', () => {
    const values = (path: string) =>
      new Set(
        valid
          .flatMap((doc) => leaves(doc))
          .filter(([at]) => at === path)
          .map(([, value]) => value),
      );
    const enums: [string, readonly string[]][] =
      iface === 'B'
        ? [
            ['event', EVENT_TYPES],
            ['channel', EVENT_CHANNELS],
            ['direction', DIRECTIONS],
            ['author', AUTHORS],
            ['outcome', OUTCOMES],
          ]
        : [
            ['origin.channel', ORIGIN_CHANNELS],
            ['brief.intent', BRIEF_INTENTS],
          ];
    for (const [path, allowed] of enums) expect([...values(path)].sort(), path).toEqual([...allowed].sort());
    const optional =
      iface === 'B'
        ? [
            'lead_id',
            'provider_job_id',
            'channel',
            'from_number_e164',
            'direction',
            'author',
            'text',
            'occurred_at',
            'attempts',
            'scheduled_at',
            'service',
            'notes',
            'branch_code',
          ]
        : [
            'city',
            'contact.email',
            'contact.language',
            'origin',
            'origin.channel',
            'origin.source',
            'origin.campaign',
            'origin.captured_at',
            'brief',
            'brief.intent',
            'brief.notes',
          ];
    for (const path of optional) {
      const present = valid.filter((doc) => valueAt(doc, path) !== undefined).length;
      expect(present, path).toBeGreaterThan(0);
      expect(present, path).toBeLessThan(DRAWS);
    }
  });
});

describe('event_ids', () => {
  it('an event_id made one over the limit is 121 characters, whatever its tail', () => {
    for (const tail of ['', 'abc', '😀𝄞', 'x'.repeat(200)]) {
      expect([...eventIdFor(FRESH, { tail, length: 'over' })].length).toBe(MAX_EVENT_ID_LENGTH + 1);
      expect([...eventIdFor(FRESH, { tail, length: 'limit' })].length).toBe(MAX_EVENT_ID_LENGTH);
      expect(eventIdFor(FRESH, { tail, length: 'natural' }).startsWith(FRESH)).toBe(true);
    }
  });
});

/** Every string in a document, with its dotted path. */
function leaves(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, path === '' ? key : `${path}.${key}`));
}

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined),
      doc,
    );
}
