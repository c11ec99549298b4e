'use strict';
// Writes the V8 code cache of each chunk of dist/bundle that the commands run most in CI load (issue #17): it loads
// them through bin/cai.js's own loader (the cache only fits the exact script it came from), runs those commands in
// process with a silent Io, then asks V8 for each script's cache, which then holds every function these runs
// compiled, not only the top level. Run by scripts/build.mjs after bundling; bin/cai.js reads the caches.
const { createHmac } = require('node:crypto');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Readable, Writable } = require('node:stream');
const { loadChunk, chunks } = require('../bin/cai.js');

const BUNDLE = join(__dirname, '..', 'dist', 'bundle');

function silentIo(cwd, env) {
  const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  return { stdin: Readable.from([]), stdout: sink(), stderr: sink(), env, cwd, onInterrupt: () => () => {}, now: () => Date.now() };
}

async function warm() {
  const dir = mkdtempSync(join(tmpdir(), 'cai-code-cache-'));
  try {
    const secret = 'whsec_code_cache';
    const event = JSON.stringify({ event: 'conversation.message', event_id: 'evt_1', lead_id: 'lead_1', channel: 'whatsapp', direction: 'outbound', author: 'agent', text: 'Hello', occurred_at: '2026-11-22T13:00:00+00:00' });
    const body = join(dir, 'event.json');
    writeFileSync(body, event);
    const lines = join(dir, 'events.ndjson');
    writeFileSync(lines, `${event}\n${event.replace('+00:00', 'Z')}\n{"event":"conversation.message"}\n`);
    const timestamp = '1795352400';
    const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${event}`).digest('hex')}`;
    const { run } = loadChunk('cai.js');
    const env = { CAI_SECRET: secret, NO_COLOR: '1' };
    for (const argv of [
      ['--help'],
      ['sign', '--body', body],
      ['verify', '--body', body, '--timestamp', timestamp, '--signature', signature, '--now', timestamp],
      ['validate', 'event', body],
      ['validate', '--ndjson', lines],
    ]) {
      await run(argv, silentIo(dir, env));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

warm().then(() => {
  const target = join(BUNDLE, 'code-cache');
  mkdirSync(target, { recursive: true });
  for (const [name, { script }] of chunks) writeFileSync(join(target, `${name}.cache`), script.createCachedData());
});
