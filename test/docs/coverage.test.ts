/**
 * The clause coverage: every `must` clause of the spec has a check or a stated reason why none can judge it from
 * outside; every clause a check names exists; and docs/conformance-coverage.md is what the code generates.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, SENDER_CATALOGUE } from '../../src/conformance/catalogue.js';
import { clauseRoleOf, coverage } from '../../src/conformance/coverage.js';
import { coverageLine, renderCoverageMarkdown } from '../../src/conformance/reporters/coverage.js';
import { CLAUSES, clauseById } from '../../src/spec/clauses.js';
import { ROOT } from '../helpers/cli.js';
import { loadSpecSections } from '../helpers/spec-sections.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { PAGE, REGENERATE, renderCoveragePage } from '../../scripts/gen-coverage.mjs';

const render = (): string =>
  (renderCoveragePage as (input: unknown) => string)({
    matrixOf: (role: string) => coverage({ roles: [role as never] }),
    renderMarkdown: renderCoverageMarkdown,
    line: coverageLine,
    all: coverage(),
  });

describe('the clauses of the spec', () => {
  it('have unique ids in sections the spec has, and a reason wherever a check cannot judge them', () => {
    const { sections } = loadSpecSections();
    expect(new Set(CLAUSES.map((entry) => entry.id)).size).toBe(CLAUSES.length);
    for (const entry of CLAUSES) {
      expect(entry.id).toMatch(/^§[\d.]+-\d+$/);
      expect(sections.has(entry.section) || /^§\d+$/.test(entry.section), `${entry.id}: ${entry.section}`).toBe(true);
      expect(entry.roles.length, entry.id).toBeGreaterThan(0);
    }
  });

  it('every must clause has a check or a stated reason (a hole fails here)', () => {
    const holes = coverage().filter((entry) => entry.clause.level === 'must' && entry.status === 'uncovered');
    expect(holes.map((entry) => `${entry.clause.id}: ${entry.clause.text}`)).toEqual([]);
  });

  it('every clause a check names exists, and binds the role the check judges', () => {
    for (const check of [...CATALOGUE, ...SENDER_CATALOGUE]) {
      for (const id of check.clauses) {
        const found = clauseById(id);
        expect(found, `${check.id} names ${id}`).toBeDefined();
      }
    }
    const misplaced = [...CATALOGUE, ...SENDER_CATALOGUE].flatMap((check) =>
      check.clauses
        .filter((id) => !clauseById(id)?.roles.includes(clauseRoleOf(check)))
        .map((id) => `${check.id} ${id}`),
    );
    expect(misplaced).toEqual([]);
  });
});

describe(`${PAGE as string}`, () => {
  it('is what the clauses and the catalogue generate', () => {
    const committed = readFileSync(join(ROOT, PAGE as string), 'utf8');
    expect(
      committed === render(),
      `${PAGE as string} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });
});
