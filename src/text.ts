/**
 * Words about counts, shared by the domains and the terminal alike: plain functions, no imports, so any part of
 * the house may load it (a domain must not import src/output).
 */

/** `1 check`, `3 checks`: a count and its noun. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
