/**
 * What a first-day user reads in the README and the walk-through holds for the tool they run: the walk-through's
 * secret is one `cai doctor` does not call short; a conformance run shown to its summary shows the stateful phase's
 * line after it (the excerpt rules of test/docs/walkthrough.ts let a page stop early, so the runs of the pages alone
 * do not catch a missing last line); `--generate` is described as what it is; and a page of the manual (shipped in
 * the npm package) that names a fixture the package leaves out says that it is in a clone only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHORT_SECRET_CHARACTERS } from '../../src/doctor/local.js';
import { ROOT } from '../helpers/cli.js';
import { walkthroughSteps } from './walkthrough.js';

const page = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const WALKTHROUGHS = ['README.md', 'docs/walkthrough.md'];

describe('the walk-throughs', () => {
  it.each(WALKTHROUGHS)('%s: every CAI_SECRET exported is long enough for cai doctor', (path) => {
    const secrets = [...page(path).matchAll(/export CAI_SECRET=(\S+)/g)].map((match) => match[1] as string);
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(secret.length).toBeGreaterThanOrEqual(SHORT_SECRET_CHARACTERS);
  });

  it.each(WALKTHROUGHS)('%s: a conformance run shown to its summary shows the stateful phase line after it', (path) => {
    const runs = walkthroughSteps(page(path)).filter(
      (step) => step.command?.includes('conformance run') && !step.command.includes('--no-generate'),
    );
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) {
      const summary = run.expected.findIndex((line) => /^\d+ passed, \d+ failed, \d+ skipped$/.test(line));
      if (summary < 0) continue;
      expect(run.expected.slice(summary), `${path}:${run.line}`).toEqual([
        run.expected[summary],
        '0 warnings',
        'stateful phase: seed … (the same seed draws the same conversations)',
      ]);
    }
  });

  it('docs/walkthrough.md: --generate N sizes the stateful phase, as docs/conformance.md says', () => {
    expect(page('docs/conformance.md')).toContain('| `--generate N` | the stateful phase sends about N requests');
    expect(page('docs/walkthrough.md')).toContain('`--generate N` sizes it to about N requests');
  });
});

describe('the manual names the fixtures the npm package leaves out as a clone’s', () => {
  const shipped = (JSON.parse(page('package.json')) as { files: string[] }).files;
  const inPackage = (path: string) =>
    shipped.some((entry) => path === entry || path.startsWith(`${entry}/`) || entry.startsWith(path));

  it.each(readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')))('docs/%s', (name) => {
    const text = page(join('docs', name));
    // `test/fixtures/…` is the test suite's, named for contributors.
    const missing = [...text.matchAll(/(?<![\w/])fixtures\/[\w.-]+/g)]
      .map((match) => match[0])
      .filter((path) => !inPackage(path));
    if (missing.length === 0 || name === 'install.md') return;
    expect(text, `docs/${name} names ${missing.join(', ')}`).toContain('(install.md#from-a-tarball)');
  });
});
