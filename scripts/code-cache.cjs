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
const { loadChunk, chunks, nameScripts } = require('../bin/cai.js');

// A stack trace through a cached function names the package's file, never this machine's path.
nameScripts((name) => `cai-toolkit/dist/bundle/${name}`);

const BUNDLE = join(__dirname, '..', 'dist', 'bundle');

function silentIo(cwd, env, collected = []) {
  const sink = (into) => new Writable({ write: (chunk, _encoding, done) => (into.push(String(chunk)), done()) });
  return {
    stdin: Readable.from([]),
    stdout: sink(collected),
    stderr: sink([]),
    env,
    cwd,
    onInterrupt: () => () => {},
    now: () => Date.now(),
  };
}

/** What `cai <argv>` prints on stdout, run in process. */
async function printed(run, argv, cwd, env) {
  const collected = [];
  await run(argv, silentIo(cwd, env, collected));
  return collected.join('');
}

async function warm() {
  const dir = mkdtempSync(join(tmpdir(), 'cai-code-cache-'));
  try {
    const secret = 'whsec_code_cache';
    const event = JSON.stringify({
      event: 'conversation.message',
      event_id: 'evt_1',
      lead_id: 'lead_1',
      channel: 'whatsapp',
      direction: 'outbound',
      author: 'agent',
      text: 'Hello',
      occurred_at: '2026-11-22T13:00:00+00:00',
    });
    const body = join(dir, 'event.json');
    writeFileSync(body, event);
    const timestamp = '1795352400';
    const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${event}`).digest('hex')}`;
    const { run } = loadChunk('cai.js');
    const env = { CAI_SECRET: secret, NO_COLOR: '1' };
    // Every kind of document, valid and broken in the usual ways, so that the code validation runs for each (the
    // fast validators, zod's issues and their messages) is in the cache, not only the top level.
    const samples = [];
    for (const type of [
      'conversation.message',
      'appointment.booked',
      'appointment.rescheduled',
      'appointment.cancelled',
      'job.closed',
    ]) {
      const sample = JSON.parse(await printed(run, ['sample', 'event', type], dir, env));
      samples.push(
        sample,
        { ...sample, from_number_e164: '0612345678' },
        { ...sample, occurred_at: 'yesterday' },
        { ...sample, event_id: '' },
        { ...sample, channel: 'fax', lead_id: 4 },
      );
      const { lead_id: _lead, ...withoutLead } = sample;
      samples.push(withoutLead);
    }
    for (const kind of ['job', 'ack', 'duplicate-ack'])
      samples.push(JSON.parse(await printed(run, ['sample', kind], dir, env)));
    samples.push(
      { event: 'conversation.message' },
      { event: 'no.such.type', event_id: 'x' },
      { contact: {} },
      [],
      'text',
    );
    const lines = join(dir, 'documents.ndjson');
    writeFileSync(lines, `${samples.map((sample) => JSON.stringify(sample)).join('\n')}\n{not json\n`);
    for (const argv of [
      ['--help'],
      ['sign', '--body', body],
      ['verify', '--body', body, '--timestamp', timestamp, '--signature', signature, '--now', timestamp],
      ['validate', 'event', body],
      ['validate', '--ndjson', lines],
      ['validate', '--ndjson', '--strict', lines],
      // A conformance run of each interface against its mock, a few checks each: the test suites and the scripts a
      // run writes start cai this way hundreds of times, and its chunks (undici's dispatcher, the catalogue) are large.
      ...['A', 'B'].map((iface) => [
        ...'--json conformance run --mock --no-generate --interface'.split(' '),
        iface,
        '--only',
        `${iface}-SIG-001,${iface}-ACCEPT-001`,
      ]),
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
