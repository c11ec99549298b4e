/**
 * The examples of docs/*.md marked `<!-- example -->` run as shown: each page in its own empty directory (with
 * `fixtures` and `examples` linked to this checkout's, so the pages can name fixture files and run the library
 * examples), `cai` being this checkout's
 * bin/cai.js. The rules are those of the README walk-through (test/docs/walkthrough.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { compare, runWalkthrough, walkthroughSteps } from './walkthrough.js';

const root = mkdtempSync(join(tmpdir(), 'cai-doc-examples-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const binDir = join(root, 'bin');
mkdirSync(binDir);
// A link to the script, as a global install makes one: cai names itself `cai` in the commands it prints.
symlinkSync(BIN, join(binDir, 'cai'));

const pages = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => ({ name, steps: walkthroughSteps(readFileSync(join(ROOT, 'docs', name), 'utf8')) }))
  .filter((page) => page.steps.length > 0);

describe('the examples in docs/ run as shown', () => {
  it('there are examples to run', () => {
    expect(pages.map((page) => page.name)).toEqual(expect.arrayContaining(['signing.md', 'records.md']));
  });

  it.concurrent.each(pages.map((page) => [page.name, page] as const))('docs/%s', async (name, page) => {
    const cwd = join(root, name, 'work');
    mkdirSync(cwd, { recursive: true });
    symlinkSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'));
    symlinkSync(join(ROOT, 'examples'), join(cwd, 'examples'));
    const results = await runWalkthrough(page.steps, {
      binDir,
      cwd,
      outDir: join(root, name, 'out'),
      // A bound on a hang, not a verdict on speed: in CI, beside the conformance suite, the slowest page took over 90 s.
      timeoutMs: 240_000,
    });
    expect(compare(results, `docs/${name}`)).toEqual([]);
  });
});
