/**
 * docs/limits.md is generated from src/bounds.ts (scripts/gen-limits.mjs). Here the same text is rendered from the
 * sources and compared with the committed page: a cap changed without regenerating the page fails, and the message
 * says which command regenerates it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as bounds from '../../src/bounds.js';
import { ROOT } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs script without type declarations (it is run by node, not compiled).
import { PAGE, REGENERATE, renderLimits } from '../../scripts/gen-limits.mjs';

const render = (input: typeof bounds): string => (renderLimits as (input: unknown) => string)(input);

describe(`${PAGE as string}`, () => {
  it('is what src/bounds.ts generates', () => {
    const committed = readFileSync(join(ROOT, PAGE as string), 'utf8');
    expect(
      committed === render(bounds),
      `${PAGE as string} is out of date: run '${REGENERATE as string}' and commit it`,
    ).toBe(true);
  });

  it('states every cap, in bytes', () => {
    const page = readFileSync(join(ROOT, PAGE as string), 'utf8');
    for (const cap of Object.values(bounds.INPUT_CAPS))
      expect(page, cap.what).toContain(`| ${bounds.formatCap(cap.bytes)} (${cap.bytes} bytes) |`);
    expect(page).toContain(`| ${bounds.formatCap(bounds.NETWORK_CAPS.responseBodyBytes)} |`);
  });

  it('changes when a cap changes (the comparison can fail)', () => {
    const changed = {
      ...bounds,
      INPUT_CAPS: { ...bounds.INPUT_CAPS, secret: { ...bounds.INPUT_CAPS.secret, bytes: 1 } },
    };
    expect(render(changed as typeof bounds)).not.toBe(render(bounds));
  });
});
