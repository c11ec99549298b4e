/**
 * The benches (`npm run bench`) run against the build, outside the tests: a module moved in src/ left one importing a
 * file that no longer exists, and only the bench's own run said so. Every module a bench names in dist/ exists, with
 * every name it imports from it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BENCH = join(ROOT, 'bench');
const benches = readdirSync(BENCH).filter((file) => /\.(m?js)$/.test(file));

/** `import { a, b as c } from '../dist/x.js'`: the module and the names. */
function staticImports(source: string): { module: string; names: string[] }[] {
  return [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\.\/dist\/([^']+)'/g)].map((match) => ({
    module: match[2] as string,
    names: (match[1] as string)
      .split(',')
      .map((name) => name.trim().split(/\s+as\s+/)[0] as string)
      .filter((name) => name !== ''),
  }));
}

/** `join(DIST, 'x.js')`: modules loaded at run time, often inside a child's script. */
function dynamicModules(source: string): string[] {
  return [...source.matchAll(/join\(DIST,\s*'([^']+)'\)/g)].map((match) => match[1] as string);
}

describe('the benches import what the build has', () => {
  it('finds the benches and what they import', () => {
    const all = benches.flatMap((file) => staticImports(readFileSync(join(BENCH, file), 'utf8')));
    expect(all.length).toBeGreaterThan(3);
  });

  for (const file of benches) {
    const source = readFileSync(join(BENCH, file), 'utf8');
    const imports = staticImports(source);
    const modules = dynamicModules(source);
    if (imports.length === 0 && modules.length === 0) continue;
    it(`${file}: every dist module exists with the names it imports`, async () => {
      for (const { module, names } of imports) {
        const path = join(ROOT, 'dist', module);
        expect(existsSync(path), `${file} imports ../dist/${module}`).toBe(true);
        const loaded = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
        for (const name of names) expect(loaded[name], `${file}: ${name} from ../dist/${module}`).toBeDefined();
      }
      for (const module of modules)
        expect(existsSync(join(ROOT, 'dist', module)), `${file} loads dist/${module}`).toBe(true);
    });
  }
});
