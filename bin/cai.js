#!/usr/bin/env node
'use strict';
// cai's entry (issue #17). The CLI is one CommonJS bundle in chunks (dist/bundle, scripts/build.mjs): CommonJS because
// Node's ESM loader costs about 6 ms of every start-up before the first line of cai runs. Each chunk is compiled
// here with the V8 code cache the build wrote next to it (dist/bundle/code-cache), as `v8-compile-cache` does: V8
// checks that a cache fits (its version, flags and the source) and compiles from source otherwise, so a missing
// or stale cache costs speed, never behaviour. bin/package.json makes this file CommonJS.
const { readFileSync } = require('node:fs');
const { createRequire, wrap } = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

const BUNDLE = join(__dirname, '..', 'dist', 'bundle');
const requireBuiltin = createRequire(join(BUNDLE, 'cai.js'));
/** Every chunk loaded, by file name: its exports and its compiled script (the build writes the caches from them). */
const chunks = new Map();
/**
 * The name a chunk's script carries in stack traces. Functions compiled from the code cache keep the name of the
 * script the cache was made from, so the build names its scripts by their place in the package, not by a path of
 * the build's machine (scripts/code-cache.cjs).
 */
let scriptNameOf = (name) => join(BUNDLE, name);

/** The chunks require one another as `./name.js` (all in dist/bundle) and node's built-ins by name. */
function requireFromChunk(id) {
  return id.startsWith('./') ? loadChunk(id.slice(2)) : requireBuiltin(id);
}

function loadChunk(name) {
  const known = chunks.get(name);
  if (known !== undefined) return known.module.exports;
  const filename = join(BUNDLE, name);
  const source = readFileSync(filename, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(join(BUNDLE, 'code-cache', `${name}.cache`));
  } catch {
    // no cache for this chunk: compiled from source
  }
  const script = new Script(wrap(source), { filename: scriptNameOf(name), cachedData });
  const chunk = { module: { exports: {} }, script };
  // Registered before it runs, as require does, so that chunks requiring each other get the partial exports.
  chunks.set(name, chunk);
  script
    .runInThisContext()
    .call(chunk.module.exports, chunk.module.exports, requireFromChunk, chunk.module, filename, BUNDLE);
  return chunk.module.exports;
}

if (require.main === module) loadChunk('cai.js').main();
else
  module.exports = {
    loadChunk,
    chunks,
    nameScripts: (nameOf) => {
      scriptNameOf = nameOf;
    },
  };
