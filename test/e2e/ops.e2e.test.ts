import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, spawnCli } from '../helpers/cli.js';

/**
 * Runs the built binary with a preload that reports every zod module read: the bundle's zod chunk, which
 * bin/cai.js reads with readFileSync (it loads the CommonJS chunks itself), or zod itself from node_modules.
 */
function spawnTracingZod(
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const hook = join(mkdtempSync(join(tmpdir(), 'cai-hook-')), 'hook.cjs');
  writeFileSync(
    hook,
    `const fs = require('node:fs');\nconst read = fs.readFileSync;\nfs.readFileSync = function (path, ...rest) {\n  if (/\\/node_modules\\/zod\\/|\\/zod-[^/]*\\.js$/.test(String(path))) process.stderr.write('zod-loaded\\n');\n  return read.call(this, path, ...rest);\n};\n`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', hook, BIN, ...argv], {
      cwd,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end('{"a":1}');
  });
}

describe('cai config (built binary)', () => {
  it('cai sign without a config file never loads zod; with one that applies, it does', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'cai-bare-'));
    const without = await spawnTracingZod(['sign', '--timestamp', '1700000000'], bare, {
      CAI_SECRET: 'secret-value-1',
    });
    expect(without.code).toBe(0);
    expect(without.stderr).not.toContain('zod-loaded');
    const configured = mkdtempSync(join(tmpdir(), 'cai-configured-'));
    writeFileSync(
      join(configured, 'cai.config.json'),
      JSON.stringify({ version: 1, environments: { test: { secrets: { events: { env: 'EVENTS' } } } } }),
    );
    const withConfig = await spawnTracingZod(['sign', '--interface', 'B', '--timestamp', '1700000000'], configured, {
      EVENTS: 'secret-value-1',
    });
    expect(withConfig.code).toBe(0);
    expect(withConfig.stdout).toBe(without.stdout);
    expect(withConfig.stderr).toContain('zod-loaded');
  });

  it('an invalid config file is one error line and one hint line, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cai-bad-'));
    writeFileSync(
      join(dir, 'cai.config.json'),
      '{"version": 1, "environments": {"test": {"events_url": "not a url"}}}',
    );
    const result = await spawnCli(['sign', '--interface', 'B'], { cwd: dir, env: { CAI_SECRET: 'x' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: ${join(dir, 'cai.config.json')} is invalid: environments.test.events_url: expected an absolute http(s) URL\nhint: see docs/operations.md, section 'cai config', for the shape, or run 'cai config init' in an empty directory for a starting file\n`,
    );
  });
});

describe('cai report and cai doctor (built binary)', () => {
  it('report: malformed lines are warnings with line numbers; the report is still printed, exit 0', async () => {
    const result = await spawnCli(['report', '--log', 'fixtures/logs/malformed.ndjson', '--format', 'csv'], {
      cwd: ROOT,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(
      'warning: fixtures/logs/malformed.ndjson line 2 skipped: a record cut short (a write that failed: a full disk, a crash): not valid JSON',
    );
    expect(result.stdout.split('\r\n')[2]?.startsWith('(total),1,1,0,60,60,1,1,')).toBe(true);
  });

  it('doctor: a closed local port is a failed check (exit 1), not a crash', async () => {
    const result = await spawnCli(['doctor', '--target', 'http://127.0.0.1:1/events'], { cwd: tmpdir() });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('  FAIL  tcp          cannot connect to 127.0.0.1 port 1 (ECONNREFUSED)');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('3 passed, 2 warnings, 1 failed, 3 skipped');
  });
});
