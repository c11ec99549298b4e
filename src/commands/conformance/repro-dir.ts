/**
 * The directory of a run's reproductions (./repro.ts): made private (0700, as mkdtemp makes one: the evidence of
 * a run is the user's alone), and for `--repro-dir` made and checked before the run, so that a path cai cannot
 * write into is a usage error at once, not failures left without their reproduction.
 *
 * A directory used again holds only the reproductions of the run that used it last: each file a run writes there is
 * listed first in REPRO_LIST, and the next run there removes the files listed (and the folders they leave empty)
 * before it starts. A script of a check that failed once and passes now would otherwise stay beside the new ones,
 * reading as a failure of this run. Nothing else in the directory is touched: only what cai itself listed.
 */
import { lstatSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { appendFile, mkdtemp, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { errnoCode, usageError } from '../../errors.js';
import { makeDirs, whyNotWritten } from '../common/report-files.js';
import type { CommandContext } from '../common/runner.js';

const HINT = 'pass a directory cai can write into (it is created if missing), or leave the option out for a new one';

/** The list of the files the last run wrote into a directory of reproductions, one path (relative to it) a line. */
export const REPRO_LIST = '.cai-reproductions';
const LIST_HEAD =
  '# The files cai conformance run wrote here for its reproductions: the next run into this folder removes them.\n';

/** `--repro-dir DIR`: made if missing, then it must be a directory cai can create files in; a previous run's reproductions removed. */
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
  removePreviousReproductions(full);
}

/**
 * Removes the files REPRO_LIST names in `dir`, the folders they leave empty, and the list. A line that leads out of
 * `dir` (absolute, `..`) is ignored: the list is a file anyone who can write there may edit. Synchronous, so that a
 * run's reproducer (made when the run starts) has it done before its first file; a few files at most a check.
 */
export function removePreviousReproductions(dir: string): void {
  let listed: string;
  try {
    listed = readFileSync(join(dir, REPRO_LIST), 'utf8');
  } catch {
    return;
  }
  const folders = new Set<string>();
  for (const line of listed.split('\n')) {
    const path = normalize(line);
    if (line === '' || line.startsWith('#') || isAbsolute(path) || path === '.' || path.split(sep).includes('..'))
      continue;
    const full = join(dir, path);
    try {
      if (lstatSync(full).isDirectory()) continue;
      unlinkSync(full);
    } catch {
      continue;
    }
    for (let folder = dirname(full); folder !== dir && folder.startsWith(dir + sep); folder = dirname(folder))
      folders.add(folder);
  }
  // The deepest first; a folder that holds anything else stays.
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(folder);
    } catch {}
  }
  try {
    unlinkSync(join(dir, REPRO_LIST));
  } catch {}
}

/** Writes one file of a run's reproductions into `dir` (or a folder in it), listed in REPRO_LIST before it is written. */
export async function writeReproFile(
  dir: string,
  path: string,
  data: string | Buffer,
  options?: { mode: number },
): Promise<void> {
  const list = join(dir, REPRO_LIST);
  const entry = `${relative(dir, path)}\n`;
  // Appended, never written at a position: the files of a run are written at once, and each line is one write.
  await appendFile(list, LIST_HEAD + entry, { flag: 'ax', mode: 0o600 }).catch((error: unknown) => {
    if (errnoCode(error) !== 'EEXIST') throw error;
    return appendFile(list, entry);
  });
  await writeFile(path, data, options);
}
