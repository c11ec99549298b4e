/**
 * Every count of conformance checks the pages show is generated from the catalogue (scripts/gen-counts.mjs): here
 * the counts are rendered from the sources and compared with the committed README.md and docs/*.md, so a check
 * added or removed without `npm run docs` fails, with the command that fixes it. No count is written by hand: a
 * number of checks in the text is inside count markers, and a run's count line in a code block follows the run's
 * command (or a `<!-- counts: … -->` marker) that the generator reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksFor, planRun } from '../../src/conformance/catalogue.js';
import { planFor } from '../../src/conformance/run-receiver.js';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { REGENERATE, countKeys, pagesOf, selectionOf, withCounts } from '../../scripts/gen-counts.mjs';

type Catalogue = { checksFor: typeof checksFor; planFor: typeof planFor; planRun: typeof planRun };
const catalogue: Catalogue = { checksFor, planFor, planRun };
const keysOf = countKeys as (catalogue: Catalogue) => Record<string, number>;
const render = withCounts as (
  page: string,
  text: string,
  keys: Record<string, number>,
  catalogue: Catalogue,
  loose?: string[],
) => string;
const pages = (pagesOf as (root: string) => string[])(ROOT.endsWith('/') ? ROOT : `${ROOT}/`);
const keys = keysOf(catalogue);
const key = (name: string): number => keys[name] ?? Number.NaN;

/** The text outside fenced code blocks and outside the count markers. */
function proseOutsideCounts(markdown: string): string {
  return markdown
    .replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '')
    .replace(/<!-- count:[\w-]+ -->.*?<!-- \/count -->/g, '');
}

describe('the counts of checks in the pages', () => {
  it.each(pages)('%s: as the catalogue generates them', (page) => {
    const committed = readFileSync(join(ROOT, page), 'utf8');
    expect(
      render(page, committed, keys, catalogue) === committed,
      `${page} has counts that differ from the catalogue: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });

  it('no count line of a run in a code block is written by hand: each follows its command or a counts marker', () => {
    const loose: string[] = [];
    for (const page of pages) render(page, readFileSync(join(ROOT, page), 'utf8'), keys, catalogue, loose);
    expect(loose).toEqual([]);
  });

  it('no number of checks is written by hand in the text', () => {
    // The generated catalogue page counts its own rows; 10 000 checks are a synthetic report's (benchmarks, limits);
    // `still running 8 of 24 checks (16 done)` is a snapshot of some run's wait line, no suite's size.
    const generated = new Set(['docs/conformance-checks.md']);
    const found = pages
      .filter((page) => !generated.has(page))
      .flatMap((page) =>
        [
          ...proseOutsideCounts(readFileSync(join(ROOT, page), 'utf8')).matchAll(
            /\b(\d[\d ]*) (?:[a-z`]+ )?checks\b(?! \(\d+ done\))/g,
          ),
        ].map((match) => `${page}: ${match[0]}`),
      )
      .filter((text) => !/\b10 000 checks\b/.test(text));
    expect(found).toEqual([]);
  });

  it("the numbers are the catalogue's", () => {
    expect(keys.B).toBe(checksFor('receiver', 'B').length);
    expect(keys.receivers).toBe(checksFor('receiver').length);
    expect(keys.senders).toBe(checksFor('sender').length);
    expect(key('default-B')).toBeLessThanOrEqual(key('B'));
    expect(key('run-B')).toBe(
      key('default-B') -
        planFor({ interface: 'B', selection: { only: [], skip: [], include: [] } }).planned.filter(
          (item) => item.skipReason,
        ).length,
    );
  });
});

describe('the generator', () => {
  const page = [
    'There are <!-- count:B -->1<!-- /count --> checks; progress (<!-- count:default-B -->`3/1 checks …`<!-- /count -->).',
    '',
    '```console',
    '$ cai conformance run --mock --interface B --break no-dedupe --only dedupe',
    '…',
    '1 passed, 4 failed, 0 skipped',
    '0 warnings',
    '$ cai conformance run --mock --interface B',
    '1 passed, 0 failed, 0 skipped',
    '0 warnings, 2 waived',
    '$ echo $?',
    '```',
    '',
    '<!-- counts: conformance run --interface B -->',
    '```',
    '1 passed, 3 failed, 2 skipped; 1 warning (5 checks)',
    '```',
  ].join('\n');

  it("sets the counts from the catalogue, keeping the example's failures, warnings and waivers", () => {
    const out = render('page.md', page, keys, catalogue).split('\n');
    const dedupe = (
      planFor({ interface: 'B', selection: { only: ['dedupe'], skip: [], include: [] } }) as { planned: unknown[] }
    ).planned.length;
    expect(out[0]).toBe(
      `There are <!-- count:B -->${keys.B}<!-- /count --> checks; progress (<!-- count:default-B -->\`3/${keys['default-B']} checks …\`<!-- /count -->).`,
    );
    expect(out[5]).toBe(`${dedupe - 4} passed, 4 failed, 0 skipped`);
    const skipped = key('default-B') - key('run-B');
    expect(out[8]).toBe(`${key('default-B') - skipped - 2} passed, 0 failed, ${skipped} skipped`);
    expect(out[15]).toBe(
      `${key('default-B') - 3 - skipped - 1} passed, 3 failed, ${skipped} skipped; 1 warning (${key('default-B')} checks)`,
    );
  });

  it('follows a check added to the catalogue (the comparison can fail)', () => {
    const first = checksFor('receiver', 'B')[0];
    if (!first) throw new Error('no B check');
    const extra = { ...first, id: 'B-EXTRA-001', optional: false };
    const grown: Catalogue = {
      ...catalogue,
      checksFor: ((role: 'receiver' | 'sender', iface?: 'A' | 'B') =>
        role === 'receiver' && iface === 'B'
          ? [...checksFor(role, iface), extra]
          : checksFor(role, iface)) as typeof checksFor,
    };
    expect(keysOf(grown).B).toBe(key('B') + 1);
    const text = 'B has <!-- count:B -->0<!-- /count --> checks';
    expect(render('p.md', text, keysOf(grown), grown)).not.toBe(render('p.md', text, keys, catalogue));
  });

  it('reads the selection of a command line, flags in any form', () => {
    expect(
      selectionOf(
        "$ npx cai-toolkit conformance run --interface A --only 'dedupe,auth' --skip=A-AUTH-001 --generate 5",
      ),
    ).toEqual({
      interface: 'A',
      role: 'receiver',
      selection: { only: ['dedupe', 'auth'], skip: ['A-AUTH-001'], include: ['generate'] },
    });
    expect(selectionOf('$ cai send-event --to x')).toBeUndefined();
  });

  it('names a count line no selection explains, and an unknown count', () => {
    const loose: string[] = [];
    render('p.md', '```\n3 passed, 0 failed, 0 skipped\n```', keys, catalogue, loose);
    expect(loose).toEqual(['p.md:2: 3 passed, 0 failed, 0 skipped']);
    expect(() => render('p.md', '<!-- count:nope -->1<!-- /count -->', keys, catalogue)).toThrow(/no count named nope/);
  });
});
