/**
 * The directory of a run's reproductions (./repro.ts): made private (0700, as mkdtemp makes one: the evidence of
 * a run is the user's alone), and for `--repro-dir` made and checked before the run, so that a path cai cannot
 * write into is a usage error at once, not failures left without their reproduction.
 */
import { mkdtemp, rmdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errnoCode, usageError } from '../../errors.js';
import { makeDirs, whyNotWritten } from '../common/report-files.js';
import type { CommandContext } from '../common/runner.js';

const HINT = 'pass a directory cai can write into (it is created if missing), or leave the option out for a new one';

/** `--repro-dir DIR`: made if missing, then it must be a directory cai can create files in. */
export async function prepareReproDir(dir: string, { io }: CommandContext): Promise<void> {
  if (dir === '') throw usageError('bad_option', '--repro-dir is empty', HINT);
  const full = resolve(io.cwd, dir);
  const refuse = (why: string, error?: unknown) =>
    usageError('bad_option', `cannot save reproductions in --repro-dir ${dir}: ${why}`, HINT, error);
  try {
    await makeDirs(full);
  } catch (error) {
    throw refuse(`it cannot be created (${whyNotWritten(error, full)})`, error);
  }
  if (!(await stat(full)).isDirectory()) throw refuse('it is not a directory');
  try {
    await rmdir(await mkdtemp(join(full, '.cai-')));
  } catch (error) {
    throw refuse(
      errnoCode(error) === 'ENOENT' ? 'it is not writable' : whyNotWritten(error, join(full, '.cai')),
      error,
    );
  }
}
