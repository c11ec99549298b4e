/**
 * The README stays short (issue #12: at most 20 000 bytes, the rest in docs/), and every relative link of the README
 * and docs/*.md points at a file that exists and, with a `#fragment`, at a heading of that file (GitHub's anchors).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const README_LIMIT = 20_000;

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('the pages', () => {
  it(`README.md is at most ${README_LIMIT} bytes`, () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_LIMIT);
  });

  it('every docs page is linked from the docs index', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const unlinked = pages.filter(
      (page) =>
        page.startsWith('docs/') && page !== 'docs/README.md' && !index.includes(`](${page.slice('docs/'.length)})`),
    );
    expect(unlinked).toEqual([]);
  });

  it.each(pages)('%s: relative links and anchors resolve', (page) => {
    const broken: string[] = [];
    const text = prose(readFileSync(join(ROOT, page), 'utf8'));
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path = '', fragment] = target.split('#');
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(ROOT, file)}`);
        continue;
      }
      if (fragment && !anchorsOf(readFileSync(file, 'utf8')).has(fragment))
        broken.push(`${target}: no heading #${fragment} in ${relative(ROOT, file)}`);
    }
    expect(broken).toEqual([]);
  });

  it("every fixture, example or schema the pages name in their text ships with the package (or is named as the repository's)", () => {
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const shipped = (path: string) => files.some((entry) => path === entry || path.startsWith(`${entry}/`));
    const missing: string[] = [];
    for (const page of pages) {
      for (const match of prose(readFileSync(join(ROOT, page), 'utf8')).matchAll(
        /`((?:fixtures|examples|schemas)\/[^`\s]*)`/g,
      )) {
        const path = match[1] as string;
        // A folder named as the repository's (`fixtures/`, where the runnable examples of records.md read from).
        if (path.endsWith('/')) continue;
        if (!shipped(path)) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
    expect(readFileSync(join(ROOT, 'docs/README.md'), 'utf8')).toContain('https://github.com/cai-toolkit/cai');
  });

  it('anchors follow GitHub', () => {
    expect([
      ...anchorsOf(
        '# `cai config`\n## Deliberate faults (`--break`)\n## Five-minute walk-through\n## A\n## A\n```\n# not a heading\n```\n',
      ),
    ]).toEqual(['cai-config', 'deliberate-faults---break', 'five-minute-walk-through', 'a', 'a-1']);
  });
});
