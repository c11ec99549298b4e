/**
 * The options, of any command, that name a file: those it writes (the report files, a batch's results) and those it
 * reads. A command line whose written file is one it reads, or another it writes, is refused (same-file.ts); the
 * runner asks it only of a command line that names a file to write, so that the others load nothing more.
 */
export const WRITTEN_FILE_FLAGS: ReadonlySet<string> = new Set(['--html', '--junit', '--summary', '--output']);

export const READ_FILE_FLAGS: ReadonlySet<string> = new Set([
  '--body',
  '--request',
  '--ndjson',
  '--resume',
  '--waivers',
  '--rerun-failed',
  '--log',
  '--catalog',
  '--config',
  '--example',
  '--secret-file',
  '--other-secret-file',
  '--test-secret-file',
  '--tls-key',
  '--tls-cert',
  '--ca',
]);

/** Pairs that name one file by design: a batch's results resumed from and written again (docs/sending.md). */
export const ONE_FILE_BY_DESIGN: ReadonlySet<string> = new Set(['--resume --output', '--output --resume']);
