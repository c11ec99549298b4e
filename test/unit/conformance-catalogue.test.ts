import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CATALOGUE,
  checksFor,
  describeCatalogue,
  planChecks,
  SENDER_CATALOGUE,
} from '../../src/conformance/catalogue.js';
import type { CheckMeta } from '../../src/conformance/check.js';
import { SHARED_HINTS } from '../../src/commands/common/hints.js';
import { useWords } from '../../src/errors.js';
import { ROOT } from '../helpers/cli.js';
import { loadSpecSections } from '../helpers/spec-sections.js';

// The skip reasons name the options in the words of the interface in use: the CLI's here.
useWords(SHARED_HINTS);

/**
 * The catalogue as `cai conformance list --json` prints it, pinned: ids, order, titles, levels, sections, tags
 * and flags. A change here is a change users see (waivers, --only/--skip, CI greps); make it on purpose, in the
 * fixture, not as a side effect of reorganising the definitions.
 */
const PINNED = JSON.parse(
  readFileSync(join(ROOT, 'test', 'fixtures', 'conformance', 'catalogue.json'), 'utf8'),
) as CheckMeta[];

describe('the pinned catalogue', () => {
  it('lists the same ids in the same order', () => {
    expect(CATALOGUE.map((check) => check.id)).toEqual(PINNED.map((check) => check.id));
  });

  it('describes every check as before: title, level, sections, tags, flags', () => {
    expect(describeCatalogue()).toEqual(PINNED);
    // Interface A's list ends with the event sender's checks that judge the provider's callbacks.
    expect(describeCatalogue('receiver', 'A')).toEqual(
      PINNED.filter((check) => check.interface === 'A' || 'callbackStages' in check),
    );
  });
});

describe('the conformance catalogue', () => {
  it("has unique, well-formed ids, and former ids that are no check's own", () => {
    // A sender check that judges an Interface A provider's callbacks is in both lists, once in each.
    for (const list of [CATALOGUE, SENDER_CATALOGUE])
      expect(new Set(list.map((check) => check.id)).size).toBe(list.length);
    for (const check of [...CATALOGUE, ...SENDER_CATALOGUE]) {
      expect(check.id).toMatch(new RegExp(`^${check.interface}${check.role === 'sender' ? 'S' : ''}-[A-Z]+-\\d{3}$`));
      for (const alias of check.aliases ?? [])
        expect(
          CATALOGUE.some((other) => other.id === alias),
          alias,
        ).toBe(false);
    }
  });

  it('cites only sections that exist in the spec', () => {
    const { sections, source } = loadSpecSections();
    expect(sections.size, `sections parsed from ${source}`).toBeGreaterThan(30);
    for (const check of CATALOGUE) {
      expect(check.sections.length, check.id).toBeGreaterThan(0);
      for (const section of check.sections)
        expect(sections.has(section), `${check.id} cites ${section} (from ${source})`).toBe(true);
    }
  });

  it('gives every check a level, tags and a title', () => {
    for (const check of CATALOGUE) {
      expect(['must', 'should']).toContain(check.level);
      expect(check.tags.length, check.id).toBeGreaterThan(0);
      expect(check.title.length, check.id).toBeGreaterThan(10);
    }
    expect(new Set(CATALOGUE.map((check) => `${check.interface} ${check.title}`)).size).toBe(CATALOGUE.length);
  });

  it('covers what the issue asks of both receivers', () => {
    const tags = new Set(CATALOGUE.flatMap((check) => check.tags.map((tag) => `${check.interface}:${tag}`)));
    for (const wanted of ['acceptance', 'dedupe', 'concurrency', 'raw-body', 'auth', 'window', 'schema']) {
      expect(tags.has(`A:${wanted}`), `A:${wanted}`).toBe(true);
      expect(tags.has(`B:${wanted}`), `B:${wanted}`).toBe(true);
    }
    for (const wanted of ['B:size', 'B:rate-limit', 'B:origin', 'B:clock', 'B:lead', 'A:callback'])
      expect(tags.has(wanted), wanted).toBe(true);
  });

  it('lists as plain data', () => {
    const listed = describeCatalogue('receiver', 'B');
    expect(listed.every((check) => check.interface === 'B')).toBe(true);
    expect(JSON.parse(JSON.stringify(listed))).toEqual(listed);
  });
});

describe('planChecks', () => {
  const b = checksFor('receiver', 'B');
  const plan = (only: string[] = [], skip: string[] = [], include: string[] = []) =>
    planChecks(b, { only, skip, include });

  it('skips optional checks unless included, naming the flag', () => {
    const rate = plan().planned.find((item) => item.check.id === 'B-RATE-001');
    expect(rate?.skipReason).toBe('optional: run it with --include rate-limit');
    expect(
      plan([], [], ['rate-limit']).planned.find((item) => item.check.id === 'B-RATE-001')?.skipReason,
    ).toBeUndefined();
  });

  it('--only by id, tag or pattern; --skip reports as skipped', () => {
    expect(plan(['B-DEDUP-002']).planned.map((item) => item.check.id)).toEqual(['B-DEDUP-002']);
    expect(plan(['dedupe']).planned.every((item) => item.check.tags.includes('dedupe'))).toBe(true);
    expect(plan(['b-auth-01*']).planned.map((item) => item.check.id)).toContain('B-AUTH-010');
    expect(plan(['rate-limit']).planned[0]?.skipReason).toBeUndefined();
    const skipped = plan([], ['schema']).planned.filter((item) => item.check.tags.includes('schema'));
    expect(skipped.every((item) => item.skipReason === 'skipped with --skip')).toBe(true);
  });

  it('reports selectors that match nothing', () => {
    expect(plan(['B-NOPE-001'], ['callback']).unknownSelectors).toEqual(['B-NOPE-001', 'callback']);
  });

  it('matches a former id (an alias) as the check that replaced it', () => {
    const a = planChecks(
      CATALOGUE.filter((check) => check.interface === 'A' || check.role === 'sender'),
      { only: ['A-CB-002'], skip: [], include: [] },
    );
    expect(a.planned.map((item) => item.check.id)).toEqual(['BS-SIG-001', 'BS-SIG-002', 'BS-SIG-003']);
    expect(a.unknownSelectors).toEqual([]);
  });
});
