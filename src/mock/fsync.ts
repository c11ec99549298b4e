/**
 * When a mock's log reaches the disk (`--fsync`, docs/mock-log.md; like Redis's `appendfsync`), plain data so the
 * flags load without the log:
 * - `always`: a record is acknowledged once it is on disk (each write with O_DSYNC, records batched by group
 *   commit); nothing acknowledged is lost, even when the machine fails;
 * - `everysec`: once it is written to the file (write(2) returned), and the file is synced about once a second:
 *   an acknowledged record survives the mock being killed at any moment (it is in the kernel's page cache), and
 *   at most the last second of them is at risk if the machine itself fails;
 * - `never`: once it is written to the file; cai never syncs it (the kernel writes it back in its own time).
 */
export type FsyncMode = 'always' | 'everysec' | 'never';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'everysec', 'never'];
export const DEFAULT_FSYNC: FsyncMode = 'everysec';
