#!/usr/bin/env node
// The package.json that `npm pack` and `npm publish` put in the tarball has no install-time script.
//
// `prepare` builds dist/ after `npm ci` in a clone, and must stay in the repository for that. In the tarball it has
// nothing to build (dist/ is shipped built), and npm 11 warns about it on every install ("install scripts not yet
// covered by allowScripts"). npm reads the manifest once before `prepack` and packs the files as they are after it,
// so: `prepack` builds, then writes package.json without the lifecycle scripts (the original kept aside), and
// `postpack` puts the original back. npm runs `postpack` from the manifest it read first, so it still runs.
//
//   node scripts/pack-manifest.mjs prepack    build (skipped with CAI_PACK_PREBUILT=1: dist/ is already built),
//                                             then strip
//   node scripts/pack-manifest.mjs postpack   restore
//
// `npm pack --ignore-scripts` runs neither, so it packs `prepare` too: pack without it. A pack that failed between
// the two leaves the original in .package.json.orig; the next `prepack` restores it first.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Scripts npm runs on install or pack; none of them has anything to do in an installed package. */
export const LIFECYCLE_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'prepare',
  'prepack',
  'postpack',
  'prepublish',
  'prepublishOnly',
];

const MANIFEST = 'package.json';
const ORIGINAL = '.package.json.orig';

/** The manifest's text without the lifecycle scripts, same layout otherwise. */
export function strippedManifest(text) {
  const manifest = JSON.parse(text);
  for (const name of LIFECYCLE_SCRIPTS) delete manifest.scripts?.[name];
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function restore() {
  if (existsSync(ORIGINAL)) renameSync(ORIGINAL, MANIFEST);
}

function prepack() {
  restore();
  if (process.env.CAI_PACK_PREBUILT !== '1') {
    const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const text = readFileSync(MANIFEST, 'utf8');
  writeFileSync(ORIGINAL, text);
  writeFileSync(MANIFEST, strippedManifest(text));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const step = process.argv[2];
  if (step === 'prepack') prepack();
  else if (step === 'postpack') restore();
  else {
    process.stderr.write(`pack-manifest: unknown step ${step} (prepack or postpack)\n`);
    process.exit(2);
  }
}
