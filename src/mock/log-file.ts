/**
 * A mock's log and its lock must be regular files: a FIFO's open blocks until a writer comes (and holds a thread of
 * the pool, so that no shutdown could finish), a device or a socket is no log. What is at a path is looked at before
 * it is opened (`stat`: a link to a regular file is fine), and opened with O_NONBLOCK, then checked
 * again on the descriptor, so that a file swapped in between cannot block either.
 */
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { errnoCode } from '../errors.js';

/** What a file that is not a regular one is, as a sentence names it; undefined for a regular file. */
export function notRegular(
  stats: Pick<Stats, 'isFile' | 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>,
): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** What is at `path` when it is not a regular file (a link judged by what it points to); undefined when absent or regular. */
export async function nonRegularAt(path: string): Promise<string | undefined> {
  try {
    return notRegular(await stat(path));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Thrown when a file opened turns out not to be a regular one. */
export class NotRegularFile extends Error {
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is not a regular file (${kind})`);
  }
}

/** Opens `path` with `flags` and O_NONBLOCK (a FIFO's open returns at once), and refuses what is not a regular file. */
export async function openRegular(path: string, flags: number, mode = 0o644): Promise<FileHandle> {
  const handle = await open(path, flags | constants.O_NONBLOCK, mode);
  try {
    const kind = notRegular(await handle.stat());
    if (kind !== undefined) throw new NotRegularFile(path, kind);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
