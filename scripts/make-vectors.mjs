#!/usr/bin/env node
// Regenerates fixtures/vectors.json. Every signature is computed by openssl (an independent implementation),
// never by cai: `printf '%s' "$timestamp.$body" | openssl dgst -sha256 -hmac "$secret"`.
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const T = 1768469400;
const exampleBody = JSON.parse(readFileSync(new URL('fixtures/signature-example.json', root), 'utf8')).body;

function openssl(secret, timestamp, body) {
  const input = Buffer.concat([Buffer.from(`${timestamp}.`), body]);
  const result = spawnSync('openssl', ['dgst', '-sha256', '-hmac', secret], { input });
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return 'sha256=' + result.stdout.toString().trim().split('= ').pop();
}

// A 262 144-byte JSON event (the §8 limit, 256 KiB): padding in `text`.
const largeHead = '{"event":"conversation.message","event_id":"evt_large_256k","lead_id":"lead_large","text":"';
const largeTail = '"}';
const large = largeHead + 'a'.repeat(262144 - largeHead.length - largeTail.length) + largeTail;
writeFileSync(new URL('fixtures/vectors/body-256k.json', root), large);

const S = 'whsec_cai_vectors_2026';
const cases = [
  [
    'basic-event',
    'The worked example body, signed and verified at its own timestamp.',
    S,
    T,
    Buffer.from(exampleBody),
    { now: T },
  ],
  ['empty-body', 'An empty body: the signed string is just "<timestamp>."', S, T, Buffer.alloc(0), { now: T }],
  [
    'non-ascii-utf8',
    'UTF-8 text beyond ASCII (accents, CJK, emoji) is signed as its UTF-8 bytes.',
    S,
    T,
    Buffer.from('{"event":"conversation.message","event_id":"evt_utf8","text":"¿Mañana a las 10? 予約 ✅ 🦷"}'),
    { now: T },
  ],
  [
    'crlf-body',
    'A pretty-printed body with CRLF line endings: the CR bytes are part of what is signed.',
    S,
    T,
    Buffer.from('{\r\n  "event": "job.closed",\r\n  "event_id": "evt_crlf",\r\n  "outcome": "no_answer"\r\n}'),
    { now: T },
  ],
  [
    'trailing-newline',
    'A body ending with a newline: the newline is signed too.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_nl","outcome":"opted_out"}\n'),
    { now: T },
  ],
  [
    'body-256k',
    'A 262 144-byte body, read from vectors/body-256k.json.',
    S,
    T,
    Buffer.from(large),
    { now: T, bodyFile: 'vectors/body-256k.json' },
  ],
  [
    'non-utf8-bytes',
    'Bytes that are not valid UTF-8 (given as body_base64): signed as raw bytes, never decoded.',
    S,
    T,
    Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
    { now: T, base64: true },
  ],
  [
    'long-secret',
    'A 200-character secret (longer than the SHA-256 block, so HMAC hashes the key first).',
    'k'.repeat(100) + 'K'.repeat(100),
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_long_secret"}'),
    { now: T },
  ],
  [
    'non-ascii-secret',
    'A secret with non-ASCII characters, used as its UTF-8 bytes.',
    'sécret-ñandú-秘密',
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_utf8_secret"}'),
    { now: T },
  ],
  [
    'inside-window-past',
    'Timestamp 299 s in the past: inside the 300 s window.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_299"}'),
    { now: T + 299 },
  ],
  [
    'inside-window-future',
    'Timestamp 299 s in the future: inside the 300 s window.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_m299"}'),
    { now: T - 299 },
  ],
  [
    'window-edge-past',
    'Timestamp exactly 300 s in the past: cai treats the window as inclusive (valid). §5.5 does not say; senders should not rely on the edge.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_300"}'),
    { now: T + 300 },
  ],
  [
    'window-edge-future',
    'Timestamp exactly 300 s in the future: inclusive, as above (valid).',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_m300"}'),
    { now: T - 300 },
  ],
  [
    'stale-timestamp',
    'A correct signature whose timestamp is 301 s old: outside the window.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_stale"}'),
    { now: T + 301, expected: { valid: false, reason: 'timestamp_too_old' } },
  ],
  [
    'future-timestamp',
    'A correct signature whose timestamp is 301 s ahead: outside the window.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_future"}'),
    { now: T - 301, expected: { valid: false, reason: 'timestamp_in_future' } },
  ],
  [
    'signature-of-other-body',
    'The signature of a different body: a mismatch.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_a"}'),
    {
      now: T,
      signOver: Buffer.from('{"event":"job.closed","event_id":"evt_b"}'),
      expected: { valid: false, reason: 'signature_mismatch' },
    },
  ],
  [
    'reserialised-body',
    'Signed over the minified JSON, sent pretty-printed: a mismatch (sign the raw bytes, §5.2).',
    S,
    T,
    Buffer.from('{\n  "event": "job.closed",\n  "event_id": "evt_pretty"\n}'),
    {
      now: T,
      signOver: Buffer.from('{"event":"job.closed","event_id":"evt_pretty"}'),
      expected: { valid: false, reason: 'signature_mismatch' },
    },
  ],
  [
    'uppercase-hex',
    'The right HMAC in uppercase hex: malformed (§5.3 wants lowercase).',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_upper"}'),
    {
      now: T,
      transform: (sig) => 'sha256=' + sig.slice(7).toUpperCase(),
      expected: { valid: false, reason: 'malformed_signature' },
    },
  ],
  [
    'missing-prefix',
    'The right HMAC without "sha256=": malformed.',
    S,
    T,
    Buffer.from('{"event":"job.closed","event_id":"evt_noprefix"}'),
    { now: T, transform: (sig) => sig.slice(7), expected: { valid: false, reason: 'malformed_signature' } },
  ],
  [
    'milliseconds-timestamp',
    'A 13-digit millisecond timestamp: malformed (§4 wants unix seconds).',
    S,
    T * 1000,
    Buffer.from('{"event":"job.closed","event_id":"evt_ms"}'),
    { now: T, expected: { valid: false, reason: 'malformed_timestamp' } },
  ],
];

const vectors = cases.map(([name, description, secret, timestamp, body, options]) => {
  const signature = (options.transform ?? ((s) => s))(openssl(secret, timestamp, options.signOver ?? body));
  const vector = { name, description, secret, timestamp: String(timestamp), now: options.now };
  if (options.bodyFile) vector.body_file = options.bodyFile;
  else if (options.base64) vector.body_base64 = body.toString('base64');
  else vector.body = body.toString('utf8');
  vector.signature = signature;
  vector.expected = options.expected ?? { valid: true, reason: 'ok' };
  return vector;
});

const document = {
  description:
    'Known-answer vectors for the CAI signature scheme (§5). Signatures computed with openssl dgst -sha256 -hmac over "<timestamp>.<body bytes>". ' +
    'The body is "body" (UTF-8 text), "body_base64" (raw bytes) or "body_file" (a path relative to this file). Verify at "now" (unix seconds) with a ±300 s window.',
  window_seconds: 300,
  vectors,
};
writeFileSync(new URL('fixtures/vectors.json', root), JSON.stringify(document, null, 2) + '\n');
console.log(`wrote ${vectors.length} vectors`);
