#!/usr/bin/env node
// `npm run bundle`: cai as one file to carry, bundle/cai.mjs, which runs with `node cai.mjs …` from any folder, with
// no node_modules anywhere (docs/ci.md: committed beside a workflow). Everything is in it: every command, the parts
// the CLI loads lazily (fast-check for generated runs, the HTML reports, completion, the inspector's browser script,
// the worked signature example), and the dependencies. What dist/bundle splits into chunks for start-up speed is one
// file here: a command parses all of it (about 60 ms more at start-up than bin/cai.js, measured here), and runs only
// what it needs.
//
// `npm run bundle -- --sea` also writes bundle/cai, a single executable application (Node's SEA: this node binary
// with the bundle injected by postject), which runs where Node is not installed. It needs a node binary built with the
// SEA fuse (the official builds are) and is as large as that binary (about 100 MB): built on demand, never shipped.
//
// Needs the devDependencies (npm ci), not the build: it bundles src/ directly (src/spec/fast-validate.generated.ts,
// written by scripts/build.mjs, is committed).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const sea = args.includes('--sea');
// `--out DIR`: another folder than bundle/ (the tests build into a temporary one).
const OUT = args.includes('--out') ? resolve(args[args.indexOf('--out') + 1] ?? '') : join(ROOT, 'bundle');
/** The fuse Node's single executable applications flip in a copy of the node binary (Node's SEA documentation). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** The entry: src/main.ts's main(), as bin/cai.js calls it. */
const ENTRY = '\0cai-bundle-entry';
const entry = {
  name: 'cai-bundle-entry',
  resolveId: (source) => (source === ENTRY ? ENTRY : null),
  load: (id) =>
    id === ENTRY ? `import { main } from ${JSON.stringify(join(ROOT, 'src', 'main.ts'))};\nvoid main();\n` : null,
};

/**
 * Files the sources read beside themselves at run time, inlined as text: nothing is read from disk but what the
 * user names. Each replacement must find its text, so a change in the source fails the bundle instead of shipping a
 * file that reads a path that does not exist.
 */
const ASSETS = [
  // The inspector page's script, its two files (as scripts/build.mjs inlines them in dist/bundle).
  ...['lists.js', 'inspector.js'].map((name) => ({
    module: '/src/inspector/browser/script.ts',
    from: `readFileSync(new URL('./${name}', import.meta.url), 'utf8')`,
    to: () => JSON.stringify(readFileSync(join(ROOT, 'src', 'inspector', 'browser', name), 'utf8')),
  })),
  {
    // `cai sign --example` / `cai verify --example`: the worked example of §5.10 shipped as
    // fixtures/signature-example.json. Here it is read from the bundle itself, under the name the package gives it.
    module: '/src/commands/sign/example.ts',
    from: "const text = (await readFileInput(file, io, 'example')).toString('utf8');",
    to: () =>
      `const text = file === SHIPPED_EXAMPLE ? ${JSON.stringify(readFileSync(join(ROOT, 'fixtures', 'signature-example.json'), 'utf8'))} : (await readFileInput(file, io, 'example')).toString('utf8');`,
  },
  {
    module: '/src/signing/example.ts',
    from: "fileURLToPath(new URL('../../fixtures/signature-example.json', import.meta.url))",
    to: () => JSON.stringify('cai-toolkit/fixtures/signature-example.json (built in)'),
  },
];
const inlineAssets = {
  name: 'cai-inline-assets',
  transform(code, id) {
    const mine = ASSETS.filter((asset) => id.endsWith(asset.module));
    if (mine.length === 0) return null;
    let text = code;
    for (const asset of mine) {
      if (!text.includes(asset.from)) throw new Error(`${id} no longer has ${asset.from}: update scripts/bundle.mjs`);
      text = text.replace(asset.from, asset.to);
    }
    return text;
  },
};

/** No `import.meta.url` may remain: in one carried file it names the bundle's folder, where nothing else is. */
function checkNoFileLookups(file) {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/new URL\((["'`])\.{1,2}\/[^"'`]*\1,\s*import\.meta\.url\)/g)].map(
    (match) => match[0],
  );
  if (found.length > 0) throw new Error(`${file} still reads files beside itself: ${found.join(', ')}`);
}

async function bundle(format, file) {
  await build({
    input: ENTRY,
    platform: 'node',
    cwd: ROOT,
    logLevel: 'warn',
    transform: { define: { __CAI_VERSION__: JSON.stringify(manifest.version) } },
    plugins: [entry, inlineAssets],
    output: {
      file,
      format,
      // One file: every lazy import(), node's built-ins aside, inlined.
      codeSplitting: false,
      // In CommonJS (the executable's form), import('node:…') as require: Node 20's SEA has no ESM loader.
      ...(format === 'cjs' ? { dynamicImportInCjs: false } : {}),
      banner: format === 'esm' ? '#!/usr/bin/env node' : undefined,
      minify: true,
    },
  });
  checkNoFileLookups(file);
}

/** A path as the user would type it: relative to where the script runs when below it. */
const shown = (path) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path));

// Only the files this script writes are replaced: `--out` may name a folder that holds other things.
mkdirSync(OUT, { recursive: true });
for (const name of ['cai.mjs', 'cai', 'sea']) rmSync(join(OUT, name), { recursive: true, force: true });
const mjs = join(OUT, 'cai.mjs');
await bundle('esm', mjs);
chmodSync(mjs, 0o755);
console.log(`${shown(mjs)} (${Math.round(statSync(mjs).size / 1024)} KiB): run it with node, from any folder`);

if (sea) {
  // A node binary built without SEA support (some distributions' packages) has no fuse to flip: say so and stop.
  if (!readFileSync(process.execPath).includes(SEA_FUSE)) {
    console.error(
      `error: ${process.execPath} (Node ${process.version}) was built without single executable application support (no ${SEA_FUSE} in it)\nhint: run npm run bundle -- --sea with an official build of Node.js 20.19 or later, or carry bundle/cai.mjs and run it with node`,
    );
    process.exit(2);
  }
  // Node 20's single executable applications run one CommonJS script, whose require() knows only node's built-ins.
  const work = join(OUT, 'sea');
  mkdirSync(work);
  const cjs = join(work, 'cai.cjs');
  await bundle('cjs', cjs);
  const blob = join(work, 'cai.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(config, JSON.stringify({ main: cjs, output: blob, disableExperimentalSEAWarning: true }));
  const prepared = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
  if (prepared.status !== 0) {
    process.stderr.write(`${prepared.stdout}${prepared.stderr}`);
    process.exit(prepared.status ?? 1);
  }
  const binary = join(OUT, 'cai');
  copyFileSync(process.execPath, binary);
  chmodSync(binary, 0o755);
  // postject (a devDependency) writes the blob into the binary as a note and flips the fuse. Its stdout is chatter;
  // stderr keeps LIEF's harmless "Can't find string offset for section name" warnings out unless it fails.
  const postject = join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  const injected = spawnSync(process.execPath, [postject, binary, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], {
    encoding: 'utf8',
  });
  if (injected.status !== 0) {
    process.stderr.write(`${injected.stdout}${injected.stderr}`);
    process.exit(injected.status ?? 1);
  }
  rmSync(work, { recursive: true, force: true });
  console.log(
    `${shown(binary)} (${Math.round(statSync(binary).size / 1024 / 1024)} MiB): a single executable, no Node needed`,
  );
}
