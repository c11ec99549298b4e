import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';

/** Like `cai … | head -c 1`: the reader closes the pipe after the first bytes. */
function runAndCloseEarly(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that goes away (| head)', () => {
  it('cai sample --count stops quietly', async () => {
    expect(await runAndCloseEarly(['sample', 'event', 'job.closed', '--count', '200000'])).toEqual({
      code: 0,
      stderr: '',
    });
  });

  it('cai validate --json stops quietly', async () => {
    const files = Array.from({ length: 300 }, () => 'fixtures/corpus/job/valid/full.json');
    expect(await runAndCloseEarly(['--json', 'validate', ...files])).toEqual({ code: 0, stderr: '' });
  });
});
