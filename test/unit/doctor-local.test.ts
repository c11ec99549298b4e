/** The checks of this machine (src/doctor/local.ts): the Node.js version against package.json's engines, a temporary directory that cannot be written. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkNode, checkTempDir, MIN_NODE_VERSION, versionAtLeast } from '../../src/doctor/local.js';

describe('cai doctor: this machine', () => {
  it('the minimum Node.js version is package.json engines.node', () => {
    const engines = (
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    expect(`>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`).toBe(engines);
  });

  it('compares versions part by part', () => {
    expect(versionAtLeast('v20.19.0', '20.19.0')).toBe(true);
    expect(versionAtLeast('v22.1.0', '20.19.0')).toBe(true);
    expect(versionAtLeast('v20.9.0', '20.19.0')).toBe(false);
    expect(checkNode('v18.20.4')).toEqual({
      id: 'node',
      verdict: 'fail',
      message: 'Node.js 18.20.4 is too old: cai needs 20.19.0 or later',
      hint: 'install Node.js 20.19 or later (nodejs.org, or nvm install 20)',
    });
  });

  it('a temporary directory that cannot be written fails, naming why', () => {
    const result = checkTempDir('/nonexistent-cai-doctor-dir');
    expect(result).toMatchObject({
      id: 'temp',
      verdict: 'fail',
      message: '/nonexistent-cai-doctor-dir is not writable (ENOENT): conformance runs cannot save their reproductions',
    });
  });
});
