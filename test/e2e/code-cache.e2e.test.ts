/**
 * The V8 code caches the build writes (scripts/code-cache.cjs, read by bin/cai.js): a function compiled from one keeps
 * the name of the script it was made from, which a `--debug` stack trace shows. The build names its scripts by their
 * place in the package, so no cache carries a path of the machine that built it, and each still fits its chunk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, spawnCli } from '../helpers/cli.js';

const CACHES = join(ROOT, 'dist', 'bundle', 'code-cache');

it('no code cache holds the path the build ran in', () => {
  const caches = readdirSync(CACHES).filter((name) => name.endsWith('.cache'));
  expect(caches.length).toBeGreaterThan(1);
  const carrying = caches.filter((name) => readFileSync(join(CACHES, name)).includes(join(ROOT, 'dist')));
  expect(carrying).toEqual([]);
});

it('the caches still fit: cai.js is compiled from its cache, and a --debug trace names the package file', async () => {
  const loader = createRequire(import.meta.url)(join(ROOT, 'bin', 'cai.js')) as {
    loadChunk: (name: string) => unknown;
    chunks: Map<string, { script: { cachedDataRejected?: boolean } }>;
  };
  loader.loadChunk('cai.js');
  expect(loader.chunks.get('cai.js')?.script.cachedDataRejected).toBe(false);
  const result = await spawnCli(['sign', '--body', join(ROOT, 'no-such-file.json'), '--debug'], {
    env: { CAI_SECRET: 'whsec_x' },
  });
  expect(result.code).toBe(2);
  expect(result.stderr).not.toContain(`${join(ROOT, 'dist', 'bundle', 'cai.js')}:`);
});
