/**
 * `--repro-dir` used again: the second run's folder holds its own reproductions only. A script of a check that
 * failed before and passes now would read as a failure of this run; the user's own files stay.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-repro-reuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cai conformance run --repro-dir, used again', () => {
  it('removes the reproductions the previous run wrote there, even when nothing fails now; keeps the rest', async () => {
    const repro = join(dir, 'repro');
    const run = (...extra: string[]) =>
      runCli([
        'conformance',
        'run',
        '--mock',
        '--interface',
        'B',
        '--only',
        'B-DEDUP-001',
        '--repro-dir',
        repro,
        ...extra,
      ]);
    const broken = await run('--break', 'no-dedupe');
    expect(broken.code, broken.stdout + broken.stderr).toBe(1);
    expect(existsSync(join(repro, 'B-DEDUP-001.sh'))).toBe(true);
    writeFileSync(join(repro, 'notes.txt'), 'mine');

    const fixed = await run();
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(existsSync(join(repro, 'B-DEDUP-001.sh'))).toBe(false);
    expect(existsSync(join(repro, 'B-DEDUP-001-1.body'))).toBe(false);
    expect(existsSync(join(repro, 'B-DEDUP-001.body'))).toBe(false);
    expect(readFileSync(join(repro, 'notes.txt'), 'utf8')).toBe('mine');
  }, 60_000);
});
