/**
 * Writing the report files the commands write beside their output (`cai report --html`; the conformance reports,
 * commands/conformance/report.ts). The renderers are pure; this only writes, and turns a file that cannot be written into
 * the usage error of exit 2.
 */
import { appendFile, mkdir, open, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { emptyPath, whyNotWritten } from '../../input.js';
import { errnoCode, usageError } from '../../errors.js';
import { maskSecrets } from '../../secrets/mask.js';
import type { CommandContext } from './runner.js';

// The commands' writers take it from here, with the rest of what they write with; it lives beside whyUnreadable.
export { whyNotWritten };

/** `cai 0.2.0` for the pages' generator line; read only when a page is written. */
export async function generator(): Promise<string> {
  const { versionInfo } = await import('../../version.js');
  return `cai ${versionInfo().version}`;
}

export async function writeOrFail(
  path: string,
  content: string,
  what: string,
  { io }: CommandContext,
  append = false,
): Promise<void> {
  if (path === '') throw emptyOutputPath(what);
  const full = fullPath(path, io.cwd);
  // Every report file, as every line printed: secrets and URL passwords masked (src/secrets/mask.ts).
  const masked = maskSecrets(content);
  try {
    await (append ? appendFile(full, masked) : writeFile(full, masked));
  } catch (error) {
    throw unwritable(path, what, full, error);
  }
}

/**
 * Before a long run, so that its results are never lost to a bad path: the file can be created or appended to (a
 * file that did not exist is removed again), it is not a directory. The same usage error as writeOrFail's.
 */
export async function checkWritable(path: string, what: string, { io }: CommandContext): Promise<void> {
  if (path === '') throw emptyOutputPath(what);
  const full = fullPath(path, io.cwd);
  const found = await stat(full).catch(() => undefined);
  // A device such as /dev/null takes anything; a FIFO is not opened (that would wait for a reader).
  if (found && !found.isFile() && !found.isDirectory()) return;
  try {
    await (await open(full, 'a')).close();
    if (!found) await unlink(full);
  } catch (error) {
    throw unwritable(path, what, full, error);
  }
}

/** An empty path names no file: resolved, it would be the working directory ('it is a directory'). */
export const emptyOutputPath = (what: string) => emptyPath(what, 'give the path of a file to write');

const fullPath = (path: string, cwd: string) => (isAbsolute(path) ? path : resolve(cwd, path));

function unwritable(path: string, what: string, full: string, error: unknown) {
  return usageError(
    'unwritable_file',
    `cannot write the ${what} to ${path}: ${whyNotWritten(error, full)}`,
    'check that the directory exists and is writable',
    error,
  );
}

/**
 * `mkdir -p` one level at a time: Node's recursive mkdir never settles on some paths (`/proc/x`), this one ends
 * with the first level that cannot be made. An existing path is left as it is (the caller checks it). Private
 * (0700, as mkdtemp makes one) unless `mode` says otherwise.
 */
export async function makeDirs(dir: string, mode = 0o700): Promise<void> {
  try {
    await mkdir(dir, { mode });
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return;
    if (errnoCode(error) !== 'ENOENT' || dirname(dir) === dir) throw error;
    await makeDirs(dirname(dir), mode);
    await mkdir(dir, { mode }).catch((again: unknown) => {
      if (errnoCode(again) !== 'EEXIST') throw again;
    });
  }
}

/**
 * A page (`cai report --html FILE`, `cai load --html FILE`, `cai conformance coverage --html FILE`), rendered with
 * the generator line and written as the reports above; `what` names it in the messages.
 */
export async function writeReportPage(
  path: string,
  render: (generator: string) => string,
  context: CommandContext,
  what = 'HTML report',
): Promise<void> {
  await writeOrFail(path, render(await generator()), what, context);
  context.output.info(`${what} written to ${path}`);
}
