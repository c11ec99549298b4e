import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

describe('the library, imported by the package name (issue #7)', () => {
  it('examples/library.mjs signs, validates, sends to the reference platform and runs conformance against it', () => {
    const run = spawnSync(process.execPath, ['examples/library.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual(['verify: ok', 'valid: true', 'send: accepted 1 attempt(s)', 'again: duplicate']);
    expect(lines[4]).toMatch(/^conformance: true \{"passed":\d+,"failed":0,/);
    expect(run.status).toBe(0);
  });

  it('the package entry exports the building blocks the CLI uses', async () => {
    const names = spawnSync(process.execPath, ['--input-type=module', '-e', "import('cai-toolkit').then((m) => console.log(Object.keys(m).sort().join(' ')))"], {
      cwd: ROOT,
      encoding: 'utf8',
    }).stdout.split(' ').map((name) => name.trim());
    for (const name of ['sign', 'verify', 'verifyRequest', 'validateDocument', 'sendJob', 'sendEvent', 'startMockPlatform', 'startMockProvider', 'runConformance', 'schemas']) {
      expect(names).toContain(name);
    }
  });
});
