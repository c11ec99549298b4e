/**
 * The exit-code tables of README.md and docs/ci.md are generated from src/errors.ts (scripts/gen-exit-codes.mjs).
 * Here the same text is rendered from the sources and compared with the committed pages: a code added or reworded
 * without regenerating the pages fails, and the message says which command regenerates them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { EXIT_CODES } from '../../src/exit-codes.js';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { REGENERATE, TABLES, renderExitCodes, withExitCodes } from '../../scripts/gen-exit-codes.mjs';

type Codes = typeof EXIT_CODES;
const render = renderExitCodes as (codes: Codes, kind: string) => string;
const replace = withExitCodes as (page: string, text: string, table: string) => string;

describe('the exit-code tables', () => {
  it.each(TABLES as { page: string; kind: string }[])('$page is what src/errors.ts generates', ({ page, kind }) => {
    const committed = readFileSync(join(ROOT, page), 'utf8');
    expect(
      committed === replace(page, committed, render(EXIT_CODES, kind)),
      `${page} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });

  it('list every exit code cai returns, 130 for Ctrl-C included', () => {
    expect(EXIT_CODES.map((entry) => entry.code)).toEqual(Object.values(ExitCode));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const code of Object.values(ExitCode)) expect(readme).toMatch(new RegExp(`^\\| ${code} \\| `, 'm'));
  });

  it('change when a code changes (the comparison can fail)', () => {
    const changed = EXIT_CODES.map((entry) => (entry.code === 3 ? { ...entry, meaning: 'something else' } : entry));
    expect(render(changed, 'meaning')).not.toBe(render(EXIT_CODES, 'meaning'));
    expect(() => replace('page.md', 'no markers here', render(EXIT_CODES, 'meaning'))).toThrow(
      /has no <!-- exit-codes:start/,
    );
  });
});
