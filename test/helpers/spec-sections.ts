import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/**
 * The citable sections of the spec: `## N.` headings (§N), `### N.M` headings (§N.M), and the numbered rules
 * at the start of a line inside a section (§5.5, §6.1, §9.2). Read from the spec itself — in CI `shared/` is a
 * sibling of the repository clone — and from the committed copy when that path is missing.
 */
export const SPEC_PATHS = [join(ROOT, '..', 'shared', 'interface-spec-v1.0.md'), '/work/shared/interface-spec-v1.0.md'];
export const COMMITTED_SECTIONS = join(ROOT, 'test', 'fixtures', 'conformance', 'spec-sections.json');

export function parseSpecSections(markdown: string): string[] {
  const sections = new Set<string>();
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const top = /^## (\d+)\. /.exec(line);
    if (top) {
      current = top[1];
      sections.add(`§${current}`);
      continue;
    }
    const sub = /^### (\d+)\.(\d+) /.exec(line);
    if (sub) {
      sections.add(`§${sub[1]}.${sub[2]}`);
      continue;
    }
    const rule = /^(\d+)\. /.exec(line);
    if (rule && current) sections.add(`§${current}.${rule[1]}`);
  }
  return [...sections];
}

export function loadSpecSections(): { sections: Set<string>; source: string } {
  const spec = SPEC_PATHS.find((path) => existsSync(path));
  if (spec) return { sections: new Set(parseSpecSections(readFileSync(spec, 'utf8'))), source: spec };
  return {
    sections: new Set(JSON.parse(readFileSync(COMMITTED_SECTIONS, 'utf8')) as string[]),
    source: COMMITTED_SECTIONS,
  };
}
