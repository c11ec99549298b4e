/**
 * How a reproduction script names this cai (src/io.ts invocationOf): by name only where any shell finds it (a global
 * install or a link on an absolute PATH entry), else the node binary and the script by their full paths.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { invocationOf } from '../../src/io.js';
import { shellQuote } from '../../src/shell.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-invocation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const script = join(dir, 'lib', 'cai.js');
mkdirSync(join(dir, 'lib'));
writeFileSync(script, '');
for (const bin of ['global-bin', join('project', 'node_modules', '.bin')]) {
  mkdirSync(join(dir, bin), { recursive: true });
  symlinkSync(script, join(dir, bin, 'cai'));
}
const full = `${shellQuote('/usr/bin/node')} ${shellQuote(script)}`;

it.each([
  ['a global bin on the PATH: by name', join(dir, 'global-bin'), 'cai'],
  ["a project's node_modules/.bin on the PATH: by full path", join(dir, 'project', 'node_modules', '.bin'), full],
  ['a relative PATH entry: by full path', 'global-bin', full],
  ['not on the PATH: by full path', '/usr/bin', full],
])('%s', (_name, path, expected) => {
  expect(invocationOf('/usr/bin/node', script, { PATH: path })).toBe(expected);
});

it('under npm (npx, npm run): by full path, whatever the PATH', () => {
  expect(invocationOf('/usr/bin/node', script, { PATH: join(dir, 'global-bin'), npm_command: 'exec' })).toBe(full);
});
