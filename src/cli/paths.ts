import { fileURLToPath } from 'node:url';

/** A file shipped with the package (`fixtures/…`), resolved from the built module's location. */
export function packageFile(relativePath: string): string {
  // dist/cli/paths.js → package root is two levels up.
  return fileURLToPath(new URL(`../../${relativePath}`, import.meta.url));
}

export const DEFAULT_SIGNATURE_EXAMPLE = 'fixtures/signature-example.json';
