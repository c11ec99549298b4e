/** When a mock's log reaches the disk (`--fsync`, docs/mock-log.md): plain data, so the flags load without the log. */
export type FsyncMode = 'always' | 'everysec' | 'never';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'everysec', 'never'];
export const DEFAULT_FSYNC: FsyncMode = 'everysec';
