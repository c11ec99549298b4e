#!/usr/bin/env node
// Builds cai (issue #17):
// 1. dist/ by tsc: the library (`import … from 'cai-toolkit'`: dist/index.js and its .d.ts) and every module as is;
// 2. dist/bundle/: the CLI as one minified CommonJS entry (cai.js) whose start-up chunk holds what every command needs
//    to start (main, program, commander, output, errors, config lookup), with lazy chunks for each command's code.
//    bin/cai.js loads dist/bundle/cai.js. Node pays for every file it resolves, reads and compiles, so `cai sign`
//    loading a handful of files instead of 25 (tsc's output plus commander's own) is most of the gain; CommonJS
//    rather than ESM spares the ESM loader's own start (about 6 ms of `node -e 0`'s 80).
// 3. dist/bundle/code-cache/: V8's code cache of the chunks that sign, verify, --help, validate and a conformance run
//    load (scripts/code-cache.cjs), which bin/cai.js hands to V8 so that they are not compiled again at each start-up.
// The bundle inlines its dependencies (commander, zod, undici, chalk, ora, cli-table3): it reads nothing from
// node_modules at run time; the library still imports them, so they stay runtime dependencies.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'rolldown';
import { fastValidatorSource } from './fast-validators.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// `prepare` runs after `npm ci`, and again when `npx cai-toolkit` first runs in the clone: npx links the clone into
// its cache as a package and prepares it (npm_command is `exec`). That second build has nothing new to make, and
// deleting dist/ under commands already running from it broke them: it builds only when there is no build yet.
if (
  process.argv.includes('--prepare') &&
  process.env.npm_command === 'exec' &&
  existsSync(new URL('../dist/bundle/cai.js', import.meta.url))
)
  process.exit(0);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

/**
 * src/spec/fast-validate.generated.ts, from the zod schemas as they are now: src/spec/json-schema.ts is bundled on
 * its own (zod included) into a temporary module, whose JSON Schemas ajv compiles (scripts/fast-validators.mjs).
 */
async function generateFastValidators() {
  const dir = mkdtempSync(join(tmpdir(), 'cai-build-'));
  try {
    const entry = join(dir, 'entry.ts');
    const spec = (name) => JSON.stringify(join(ROOT, 'src', 'spec', name));
    writeFileSync(
      entry,
      `export { jsonSchemaFor } from ${spec('json-schema.ts')};\nexport { EVENT_TYPES } from ${spec('constants.ts')};\n`,
    );
    const file = join(dir, 'json-schema.mjs');
    await build({ input: entry, cwd: ROOT, platform: 'node', logLevel: 'warn', output: { file, format: 'esm' } });
    const { jsonSchemaFor, EVENT_TYPES: eventTypes } = await import(pathToFileURL(file).href);
    const target = new URL('../src/spec/fast-validate.generated.ts', import.meta.url);
    const source = fastValidatorSource(jsonSchemaFor, eventTypes);
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // not generated yet
    }
    if (current !== source) writeFileSync(target, source);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
await generateFastValidators();
// The Artillery processor of `cai load export`, bundled from src/load/artillery-processor.ts (scripts/build-processor.mjs).
{
  const { bundleProcessor, generatedModule } = await import('./build-processor.mjs');
  const target = new URL('../src/load/artillery-processor.generated.ts', import.meta.url);
  const source = generatedModule(await bundleProcessor());
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // not generated yet
  }
  if (current !== source) writeFileSync(target, source);
}

const tsc = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.build.json'],
  { cwd: ROOT, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

/**
 * The start-up chunk, cai.js: main and the program, with what they import statically (commander, output, errors,
 * config lookup, the list of commands of src/commands/common/registry.ts). `cai --help` needs no more; each command's
 * registration (src/commands/<command>/command.ts: flags, help) is a chunk of its own, loaded when its word is typed,
 * and its action another, loaded when it runs. So node built-ins that only some commands use (crypto for signing,
 * readline, child_process) stay out of every start-up: loading one costs more than a small file.
 */
const STARTUP = /\/src\/(main|program)\.ts$/;

/**
 * commander requires node:child_process at load time, for executable subcommands, which cai does not use; loading
 * it costs about 3 ms of every start-up (it pulls in net, dgram and more). This stand-in loads it on first use.
 */
const LAZY_CHILD_PROCESS = '\0lazy-child-process';
const lazyChildProcess = {
  name: 'cai-lazy-child-process',
  resolveId(source, importer) {
    if (
      (source === 'node:child_process' || source === 'child_process') &&
      importer?.includes('/node_modules/commander/')
    )
      return LAZY_CHILD_PROCESS;
    return null;
  },
  load(id) {
    if (id !== LAZY_CHILD_PROCESS) return null;
    return `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
let loaded;
const real = () => (loaded ??= require('node:child_process'));
export default new Proxy({}, { get: (_, key) => real()[key], has: (_, key) => key in real() });`;
  },
};

/**
 * undici as the bundle has it: the two dispatchers cai uses (src/http/client.ts imports `Agent` and `ProxyAgent`),
 * from their own modules. undici's index also loads fetch, WebSocket, its caches and mocks, which cai never uses:
 * about a third of a conformance run's start-up (0.50 CPU-s to 0.37 with the code cache below). The library (dist/)
 * keeps undici's public entry; the bundle freezes the version it was built with, so its inner paths are safe here.
 * What the index does to every dispatcher is done too: ProxyAgent opens its tunnel with Dispatcher#connect.
 */
const UNDICI_DISPATCHERS = '\0undici-dispatchers';
const undiciDispatchers = {
  name: 'cai-undici-dispatchers',
  resolveId: (source) => (source === 'undici' ? UNDICI_DISPATCHERS : null),
  load(id) {
    if (id !== UNDICI_DISPATCHERS) return null;
    const path = (inner) => JSON.stringify(createRequire(import.meta.url).resolve(`undici/lib/${inner}.js`));
    return `import Agent from ${path('dispatcher/agent')};
import ProxyAgent from ${path('dispatcher/proxy-agent')};
import Dispatcher from ${path('dispatcher/dispatcher')};
import api from ${path('api/index')};
Object.assign(Dispatcher.prototype, api);
export { Agent, ProxyAgent };`;
  },
};

/**
 * The inspector page's script is in files of its own (src/inspector/browser/*.js), read by script.ts beside
 * itself: in the bundle their text is inlined instead (nothing is read from disk at run time), and for the library
 * (dist/, by tsc, which copies no .js) they are copied beside the built module.
 */
const INSPECTOR_ASSETS = ['lists.js', 'inspector.js'];
const inlineInspectorScript = {
  name: 'cai-inline-inspector-script',
  transform(code, id) {
    if (!id.endsWith('/src/inspector/browser/script.ts')) return null;
    let text = code;
    for (const name of INSPECTOR_ASSETS) {
      const read = `readFileSync(new URL('./${name}', import.meta.url), 'utf8')`;
      if (!text.includes(read)) throw new Error(`${id} no longer reads its asset as ${read}: update scripts/build.mjs`);
      text = text.replace(
        read,
        JSON.stringify(readFileSync(new URL(`../src/inspector/browser/${name}`, import.meta.url), 'utf8')),
      );
    }
    return text;
  },
};
for (const name of INSPECTOR_ASSETS)
  copyFileSync(
    new URL(`../src/inspector/browser/${name}`, import.meta.url),
    new URL(`../dist/inspector/browser/${name}`, import.meta.url),
  );

const bundled = await build({
  input: { cai: 'src/main.ts' },
  platform: 'node',
  cwd: ROOT,
  preserveEntrySignatures: 'allow-extension',
  logLevel: 'warn',
  // A module imported both statically and lazily stays where the static import puts it: expected here, not news.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  transform: { define: { __CAI_VERSION__: JSON.stringify(manifest.version) } },
  plugins: [lazyChildProcess, undiciDispatchers, inlineInspectorScript],
  output: {
    dir: 'dist/bundle',
    format: 'cjs',
    // import('node:fs/promises') and the like as require: the bundle never starts the ESM loader.
    dynamicImportInCjs: false,
    minify: !process.env.CAI_NO_MINIFY,
    chunkFileNames: '[name]-[hash].js',
    codeSplitting: {
      groups: [
        { name: 'cai', test: STARTUP, includeDependenciesRecursively: true },
        // zod in a chunk of its own, by name: the tests check which commands load it (test/e2e/ops.e2e.test.ts).
        { name: 'zod', test: /\/node_modules\/zod\// },
      ],
    },
  },
});
// The chunks are CommonJS in a package whose type is module.
writeFileSync(new URL('../dist/bundle/package.json', import.meta.url), '{\n  "type": "commonjs"\n}\n');
// Which source modules each chunk holds: test/e2e/startup-modules.e2e.test.ts names the modules a command loads.
const modules = Object.fromEntries(
  bundled.output
    .filter((item) => item.type === 'chunk')
    .map((chunk) => [
      chunk.fileName,
      chunk.moduleIds
        .map((id) => relative(ROOT, id))
        .filter((id) => !id.startsWith('\0'))
        .sort(),
    ]),
);
writeFileSync(new URL('../dist/bundle/modules.json', import.meta.url), `${JSON.stringify(modules, null, 1)}\n`);

const cache = spawnSync(process.execPath, [fileURLToPath(new URL('./code-cache.cjs', import.meta.url))], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (cache.status !== 0) process.exit(cache.status ?? 1);
