import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * A sequencer that starts the named files first, in the order given (longest first, as a quiet 2-core machine times
 * them), then the rest in vitest's own order. A clean clone has no record of the files' durations, and vitest then
 * starts the largest files first: a long file begun last runs alone at the end while the other workers are idle.
 */
export function longestFirst(names: readonly string[]): typeof BaseSequencer {
  const rank = (file: TestSpecification) => {
    const index = names.indexOf(basename(file.moduleId).replace(/\.test\.ts$/, ''));
    return index === -1 ? names.length : index;
  };
  return class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const ordered = await super.sort(files);
      return ordered
        .map((file, place) => ({ file, place }))
        .sort((a, b) => rank(a.file) - rank(b.file) || a.place - b.place)
        .map(({ file }) => file);
    }
  };
}
