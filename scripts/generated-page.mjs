// The one writer of the generated docs pages (docs/conformance-checks.md, docs/limits.md): writes the page, or with
// `--check` exits 1 when the committed page differs from what the code generates.
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * @param {string} root the repository root, with a trailing slash
 * @param {string} page the page's path from the root
 * @param {string} text what the code generates
 * @param {{ regenerate: string, source: string }} how the command that regenerates it, and what it is generated from
 */
export function writeOrCheck(root, page, text, { regenerate, source }) {
  const path = `${root}${page}`;
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      // missing: differs
    }
    if (committed !== text) {
      process.stderr.write(`error: ${page} differs from ${source}\nhint: run '${regenerate}' and commit the result\n`);
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(path, text);
  process.stderr.write(`wrote ${page}\n`);
}
