/**
 * docs/conformance-checks.md is generated from the catalogue (scripts/gen-check-catalogue.mjs). Here the same text
 * is rendered from the sources and compared with the committed page: a check added, renamed or re-levelled
 * without regenerating the page fails, and the message says which command regenerates it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCatalogue } from '../../src/conformance/catalogue.js';
import { PLATFORM_FAULTS, PROVIDER_FAULTS } from '../../src/mock/faults.js';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { PAGE, REGENERATE, renderCheckCatalogue } from '../../scripts/gen-check-catalogue.mjs';

const render = (checks: unknown[]): string =>
  (renderCheckCatalogue as (input: unknown) => string)({
    checks,
    senderChecks: describeCatalogue('sender'),
    platformFaults: PLATFORM_FAULTS,
    providerFaults: PROVIDER_FAULTS,
  });

describe(`${PAGE as string}`, () => {
  it('is what the catalogue generates', () => {
    const committed = readFileSync(join(ROOT, PAGE as string), 'utf8');
    const generated = render(describeCatalogue('receiver'));
    expect(
      committed === generated,
      `${PAGE as string} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });

  it('lists every check once, with its level, and the counts of each interface', () => {
    const page = readFileSync(join(ROOT, PAGE as string), 'utf8');
    const checks = describeCatalogue('receiver');
    for (const check of checks) {
      // A sender check judging an Interface A provider's callbacks is listed there, and again among the sender checks.
      const rows = page
        .split('\n')
        .filter(
          (line) =>
            line.startsWith(`| ${check.id} |`) &&
            (!check.callbackStages || line.includes(check.callbackStages[0] as string)),
        );
      expect(rows, check.id).toHaveLength(1);
      expect(rows[0]).toContain(`| ${check.level}`);
    }
    const sideOf = (check: (typeof checks)[number]) => (check.callbackStages ? 'A' : check.interface);
    const count = (iface: string, level?: string) =>
      checks.filter((check) => sideOf(check) === iface && (level === undefined || check.level === level)).length;
    expect(page).toContain(`| B | ${count('B')} | ${count('B', 'must')} |`);
    expect(page).toContain(`| A | ${count('A')} | ${count('A', 'must')} |`);
    for (const check of describeCatalogue('sender')) {
      expect(
        page.split('\n').filter((line) => line.startsWith(`| ${check.id} | ${check.level} |`)),
        check.id,
      ).toHaveLength(1);
    }
  });

  it('changes when the catalogue changes (the comparison can fail)', () => {
    const checks = describeCatalogue('receiver');
    const renamed = checks.map((check, index) =>
      index === 0 ? { ...check, title: `${check.title} (renamed)` } : check,
    );
    expect(render(renamed)).not.toBe(render(checks));
    expect(render(checks.slice(1))).not.toBe(render(checks));
  });
});
