/**
 * A file a command writes must not be one it reads, nor another file it writes: `cai report --log ev.ndjson --html
 * ev.ndjson` would replace the log with the page, `--waivers w.json --html w.json` the waivers, `--junit r --html r`
 * the first report with the second. The clash is a usage error before anything is read, sent or written. Files
 * are compared as the system sees them (device and inode, so a link or another spelling of the path is the same
 * file), or by their resolved path when they do not exist yet; stdin and stdout (`-`), devices and FIFOs are no
 * files to lose. A file a running mock appends to (its log, held by `LOG.lock`) is never written by another command.
 */
import type { Command } from 'commander';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { usageError } from '../../errors.js';
import { ONE_FILE_BY_DESIGN, READ_FILE_FLAGS, WRITTEN_FILE_FLAGS } from './file-flags.js';

interface NamedFile {
  flag: string;
  path: string;
  /** What makes two of them the same file: `inode:DEV:INO`, or `path:FULL` for a file not there yet. */
  key: string;
  full: string;
}

/**
 * Refuses a command line whose written files clash (see above). `heldBy` names the process that holds a log's lock,
 * if any (the mock's LogLock); a written file so held is refused.
 */
export async function refuseSameFiles(
  command: Command,
  cwd: string,
  heldBy: (full: string) => Promise<string | undefined>,
): Promise<void> {
  const written = await filesOf(command, WRITTEN_FILE_FLAGS, cwd);
  if (written.length === 0) return;
  const read = await filesOf(command, READ_FILE_FLAGS, cwd);
  for (const [index, file] of written.entries()) {
    const other =
      read.find((input) => input.key === file.key && !ONE_FILE_BY_DESIGN.has(`${input.flag} ${file.flag}`)) ??
      written.slice(0, index).find((output) => output.key === file.key);
    const holder = other === undefined ? await heldBy(file.full) : undefined;
    const clash =
      other !== undefined
        ? `${file.flag} and ${other.flag} name the same file (${file.path}): writing it would ${read.includes(other) ? `destroy what ${other.flag} reads` : 'replace one file with the other'}`
        : holder !== undefined && `${file.flag} names ${file.path}, the log a running mock appends to (${holder})`;
    if (clash) throw usageError('same_file', clash, `give ${file.flag} a file of its own`);
  }
}

/** The files the options name, on the command and the groups above it (`--config`), each with what identifies it. */
async function filesOf(command: Command, flags: ReadonlySet<string>, cwd: string): Promise<NamedFile[]> {
  const named: { flag: string; path: string }[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) {
    for (const option of at.options) {
      if (option.long === undefined || !flags.has(option.long)) continue;
      const value: unknown = at.getOptionValue(option.attributeName());
      const paths = Array.isArray(value) ? value : [value];
      for (const path of paths) if (typeof path === 'string') named.push({ flag: option.long, path });
    }
  }
  const files = await Promise.all(named.map(async ({ flag, path }) => identify(flag, path, cwd)));
  return files.filter((file): file is NamedFile => file !== undefined);
}

async function identify(flag: string, path: string, cwd: string): Promise<NamedFile | undefined> {
  if (path === '' || path === '-') return undefined;
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  const found = await stat(full).catch(() => undefined);
  if (found === undefined) return { flag, path, key: `path:${full}`, full };
  if (!found.isFile()) return undefined;
  // The real path: a mock's lock sits beside the real path of its log.
  const real = await realpath(full).catch(() => full);
  return { flag, path, key: `inode:${found.dev}:${found.ino}`, full: real };
}
