/**
 * The layers of src/ (docs/architecture.md): every import, static or lazy, goes down to a lower layer or stays in its
 * own part, so no part of the house leans on one above it and no two parts use each other. Read from the code's
 * import lines as text, as a reader of the tree would; a new import that runs back up fails here with its line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const SRC = join(ROOT, 'src');

/**
 * Each part of src/ and its layer, highest first; a part is a folder, a sub-folder named apart, or a file at the
 * top. The longest name that holds a file is its part; a file at the top not named here is of the ground (0).
 */
const LAYERS: Record<string, number> = {
  main: 10,
  index: 10,
  program: 9,
  commands: 8,
  conformance: 7,
  report: 7,
  send: 7,
  load: 7,
  inspector: 7,
  mock: 6,
  doctor: 5,
  output: 5,
  config: 4,
  secrets: 4,
  http: 4,
  // The executable model judges signatures; the signing code reads the spec's constants.
  'spec/model': 3,
  signing: 2,
  version: 2,
  spec: 1,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function partOf(file: string): string {
  const name = relative(SRC, file).replace(/\.(ts|js)$/, '');
  const parts = name.split('/');
  for (let length = parts.length; length > 0; length--) {
    const prefix = parts.slice(0, length).join('/');
    if (prefix in LAYERS) return prefix;
  }
  return parts.length === 1 ? '' : (parts[0] ?? '');
}

const layerOf = (part: string): number => LAYERS[part] ?? 0;

/** The relative modules a file imports: `from '…'`, `import('…')`, `export … from '…'`. */
function importsOf(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)];
  return specifiers.map((match) => match[1] ?? '');
}

/** The circles of imports between files (type imports too: a reader follows them), each as its files in order. */
function circlesOf(sources: ReadonlyMap<string, string>): string[][] {
  const importedFiles = (file: string): string[] =>
    importsOf(sources.get(file) ?? '')
      .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
      .filter((target) => sources.has(target));
  const circles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    path.push(file);
    for (const next of importedFiles(file)) {
      const at = path.indexOf(next);
      if (at >= 0) circles.push(path.slice(at).map((each) => relative(ROOT, each)));
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of sources.keys()) if (!done.has(file)) visit(file);
  return circles;
}

describe('the layers of src/', () => {
  const files = sourceFiles(SRC);

  it('every part of src/ has a layer (a new folder is placed on purpose)', () => {
    const unplaced = [...new Set(files.map(partOf))].filter((part) => part !== '' && !(part in LAYERS));
    expect(unplaced).toEqual([]);
  });

  it('every import goes down a layer or stays in its own part', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = partOf(file);
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(SRC)) continue;
        const to = partOf(target);
        if (to === from) continue;
        if (layerOf(to) >= layerOf(from))
          upward.push(`${relative(ROOT, file)} (${from || 'top'}, ${layerOf(from)}) -> ${specifier} (${to || 'top'})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no file imports itself back, through any number of others', () => {
    expect(circlesOf(new Map(files.map((file) => [file, readFileSync(file, 'utf8')])))).toEqual([]);
  });

  it('sees a circle of imports', () => {
    const sources = new Map([
      [join(SRC, 'spec', 'a.ts'), "import { b } from './b.js';"],
      [join(SRC, 'spec', 'b.ts'), "import type { C } from './c.js';"],
      [join(SRC, 'spec', 'c.ts'), "import type { A } from './a.js';"],
      [join(SRC, 'spec', 'd.ts'), "import { a } from './a.js';"],
    ]);
    expect(circlesOf(sources)).toEqual([['src/spec/a.ts', 'src/spec/b.ts', 'src/spec/c.ts']]);
  });

  it('sees an import that runs back up', () => {
    const output = join(SRC, 'output', 'curl.ts');
    const send = resolve(dirname(output), '../send/dry-run.js');
    expect(importsOf("import type { DryRunRequest } from '../send/dry-run.js';")).toEqual(['../send/dry-run.js']);
    expect(layerOf(partOf(send))).toBeGreaterThan(layerOf(partOf(output)));
  });
});
