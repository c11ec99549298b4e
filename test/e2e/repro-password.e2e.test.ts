/**
 * A reproduction of a run against a URL with a password, through the built binary: the directory and the script are
 * the user's alone (0700), and the script holds no password: it reads it from the variable it names.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, spawnProcess } from '../helpers/cli.js';
import { startMockPlatform } from '../../src/mock/platform.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-repro-password-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_repro_password' };

describe('a reproduction against a URL with a password', () => {
  it('holds no password: the script reads it from CAI_URL_PASSWORD, in a private directory', async () => {
    const platform = await startMockPlatform({
      providerCode: 'acme',
      secrets: [env.CAI_SECRET],
      faults: ['no-dedupe'],
      keepRecords: false,
    });
    try {
      const to = platform.url.replace('http://', 'http://u:pwsecret123@');
      const run = ['conformance', 'run', '--interface', 'B', '--to', to, '--provider', 'acme', '--secret-env'];
      const result = await spawnCli([...run, 'CAI_SECRET', '--only', 'B-DEDUP-001', '--no-generate'], { env });
      expect(result.code).toBe(1);
      const reproDir = /bodies and repro scripts of the failing requests: (.+)\n/.exec(result.stderr)?.[1] as string;
      try {
        expect(statSync(reproDir).mode & 0o777).toBe(0o700);
        const script = join(reproDir, 'B-DEDUP-001.sh');
        expect(statSync(script).mode & 0o777).toBe(0o700);
        for (const file of readdirSync(reproDir))
          expect(readFileSync(join(reproDir, file), 'utf8'), file).not.toContain('pwsecret123');
        expect(readFileSync(script, 'utf8')).toContain(`--to http://u:"\${CAI_URL_PASSWORD}"@127.0.0.1:`);
        const sh = (extra: NodeJS.ProcessEnv) =>
          spawnProcess('sh', [script], { cwd: dir, env: { PATH: process.env.PATH, ...env, ...extra } });
        const without = await sh({});
        expect(without.code).toBe(2);
        expect(without.stderr).toBe(
          `set CAI_URL_PASSWORD to the password of ${platform.url.replace('http://', 'http://u:***@')}\n`,
        );
        expect((await sh({ CAI_URL_PASSWORD: 'pwsecret123' })).code).toBe(1);
      } finally {
        rmSync(reproDir, { recursive: true, force: true });
      }
    } finally {
      await platform.close();
    }
  }, 30_000);
});
