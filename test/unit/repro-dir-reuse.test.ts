/**
 * A directory of reproductions used again: the files a run wrote there are listed as it writes them
 * (REPRO_LIST), and the next run removes exactly those, with the folders they leave empty; the user's own files,
 * and whatever a list line names outside the directory, are left alone.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPRO_LIST, removePreviousReproductions, writeReproFile } from '../../src/commands/conformance/repro-dir.js';

const root = mkdtempSync(join(tmpdir(), 'cai-repro-dir-reuse-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a directory of reproductions used again', () => {
  it('lists each file as it is written, and the next run removes them and the folders they leave empty', async () => {
    const dir = mkdtempSync(join(root, 'run-'));
    mkdirSync(join(dir, 'accept'));
    mkdirSync(join(dir, 'reject-400'));
    await Promise.all([
      writeReproFile(dir, join(dir, 'B-DEDUP-001.sh'), '#!/bin/sh\n', { mode: 0o700 }),
      writeReproFile(dir, join(dir, 'B-DEDUP-001.body'), '{}'),
      writeReproFile(dir, join(dir, 'accept', 'attempt-1.http'), 'POST /'),
      writeReproFile(dir, join(dir, 'accept', 'timeline.txt'), 'scenario accept\n'),
      writeReproFile(dir, join(dir, 'reject-400', 'attempt-1.body'), '{}'),
    ]);
    expect(statSync(join(dir, 'B-DEDUP-001.sh')).mode & 0o777).toBe(0o700);
    const listed = readFileSync(join(dir, REPRO_LIST), 'utf8').split('\n');
    expect(listed.filter((line) => line !== '' && !line.startsWith('#')).sort()).toEqual([
      'B-DEDUP-001.body',
      'B-DEDUP-001.sh',
      join('accept', 'attempt-1.http'),
      join('accept', 'timeline.txt'),
      join('reject-400', 'attempt-1.body'),
    ]);
    // The user's own files, beside them and inside a stage's folder.
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    writeFileSync(join(dir, 'reject-400', 'mine.txt'), 'mine');

    removePreviousReproductions(dir);
    expect(existsSync(join(dir, 'B-DEDUP-001.sh'))).toBe(false);
    expect(existsSync(join(dir, 'B-DEDUP-001.body'))).toBe(false);
    expect(existsSync(join(dir, 'accept'))).toBe(false);
    expect(existsSync(join(dir, 'reject-400', 'attempt-1.body'))).toBe(false);
    expect(existsSync(join(dir, REPRO_LIST))).toBe(false);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(dir, 'reject-400', 'mine.txt'), 'utf8')).toBe('mine');
  });

  it('ignores a list line that leads out of the directory or names a folder; a directory without a list is left as it is', () => {
    const dir = mkdtempSync(join(root, 'run-'));
    const outside = join(root, `outside-${Date.now()}.txt`);
    writeFileSync(outside, 'not cai');
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'folder', 'kept.txt'), 'kept');
    writeFileSync(
      join(dir, REPRO_LIST),
      ['# a comment', outside, join('..', outside.slice(root.length + 1)), 'folder', 'missing.sh', ''].join('\n'),
    );
    removePreviousReproductions(dir);
    expect(readFileSync(outside, 'utf8')).toBe('not cai');
    expect(readFileSync(join(dir, 'folder', 'kept.txt'), 'utf8')).toBe('kept');
    expect(existsSync(join(dir, REPRO_LIST))).toBe(false);
    const bare = mkdtempSync(join(root, 'bare-'));
    writeFileSync(join(bare, 'B-DEDUP-001.sh'), 'the user wrote this');
    removePreviousReproductions(bare);
    expect(readFileSync(join(bare, 'B-DEDUP-001.sh'), 'utf8')).toBe('the user wrote this');
  });
});
