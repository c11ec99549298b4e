/**
 * The one shell quoting of cai: the command lines it prints (curl, reproductions, copy commands, its own
 * invocation). Pure string work, no imports: every module may use it.
 */

/** POSIX shell quoting: a word of safe characters as it is, anything else in single quotes (they keep every byte but NUL). */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
