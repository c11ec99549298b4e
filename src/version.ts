import { readFileSync } from 'node:fs';
import { SPEC_VERSION } from './spec/constants.js';

/** The package's version, written into the bundled CLI at build time (scripts/build.mjs); absent elsewhere. */
declare const __CAI_VERSION__: string | undefined;

/** What `cai --version` reports: the tool's version and the version of the interface spec it implements. */
export interface VersionInfo {
  version: string;
  spec: string;
}

/**
 * The tool's version has one source, the package's own package.json: the bundled CLI carries it from the build;
 * the library and the tests read it (shipped in every install, one level above `dist/`, as above `src/`), only
 * when asked for, so no other command pays for it at start-up.
 */
export function versionInfo(): VersionInfo {
  if (typeof __CAI_VERSION__ === 'string') return { version: __CAI_VERSION__, spec: SPEC_VERSION };
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return { version: manifest.version, spec: SPEC_VERSION };
}

/** One line: `0.2.0 (spec 1.0)`; the first word alone is the version, for scripts. */
export function formatVersion(info: VersionInfo): string {
  return `${info.version} (spec ${info.spec})`;
}
