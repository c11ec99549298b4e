// The second floor of bench/mock-platform.bench.js: the least code that does the durable work of `cai mock
// platform` for a valid, signed, new event, and nothing else. It shows what that work costs on this machine apart
// from cai's own code: node:http, the body read whole, HMAC-SHA256 over timestamp + "." + body compared in
// constant time (§5.2, §5.5), JSON.parse, the compiled schema check cai uses (src/spec/fast-validate.generated.ts),
// a Map for dedupe (§6.1), one log line (the record head as JSON, then the body as received) written with group
// commit, then 202. By default each write is O_DSYNC (two in flight: the fastest this machine gave; each 202 once
// its record is on disk, as `--fsync always`); with `--fsync everysec`, each 202 once its record is written, and
// fdatasync every second. No window check, no bounds, no per-request output, no error answers beyond 401/400: a
// floor, not a receiver to copy.
// Usage: node bench/durable-receiver.mjs LOGFILE [--fsync everysec] (secret in BENCH_SECRET); prints its URL.
import { constants, fdatasync, openSync, write } from 'node:fs';
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { FAST_VALIDATORS } from '../dist/spec/fast-validate.generated.js';

const key = createSecretKey(process.env.BENCH_SECRET ?? '', 'utf8');
const everysec = process.argv[3] === '--fsync' && process.argv[4] === 'everysec';
const fd = openSync(
  process.argv[2],
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (everysec ? 0 : constants.O_DSYNC),
  0o644,
);
if (everysec) setInterval(() => fdatasync(fd, () => {}), 1000).unref();
const WRITES_IN_FLIGHT = everysec ? 1 : 2;
const seen = new Map();
let pending = [];
let waiters = [];
let inFlight = 0;

function startWrites() {
  while (inFlight < WRITES_IN_FLIGHT && pending.length > 0) {
    const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending);
    const batch = waiters;
    pending = [];
    waiters = [];
    inFlight += 1;
    // One write per batch: a short write of a few kilobytes does not happen on a local file system.
    write(fd, bytes, 0, bytes.length, null, (error) => {
      inFlight -= 1;
      for (const done of batch) done(error);
      startWrites();
    });
  }
}

function answer(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
}

const server = createServer((request, response) => {
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  request.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    const timestamp = request.headers['x-cai-timestamp'] ?? '';
    const signature = request.headers['x-cai-signature'] ?? '';
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    const received = Buffer.from(signature.slice(7), 'hex');
    if (received.length !== expected.length || !timingSafeEqual(received, expected))
      return answer(response, 401, '{"ok":false}');
    let document;
    try {
      document = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(response, 400, '{"ok":false}');
    }
    const valid = FAST_VALIDATORS[document?.event];
    if (valid === undefined || !valid(document)) return answer(response, 400, '{"ok":false}');
    if (seen.has(document.event_id)) return answer(response, 202, '{"ok":true,"duplicate":true}');
    seen.set(document.event_id, true);
    const head = JSON.stringify({
      v: 1,
      received_at: new Date().toISOString(),
      space: 'live',
      interface: 'B',
      kind: 'event',
      status: 202,
      verdict: 'accepted',
      provider_code: request.headers['x-cai-provider'],
      event_id: document.event_id,
      event: document.event,
      lead_id: document.lead_id,
      body_bytes: body.length,
      headers: {
        'x-cai-provider': request.headers['x-cai-provider'],
        'x-cai-timestamp': timestamp,
        'x-cai-signature': signature,
        'content-type': request.headers['content-type'],
      },
    });
    pending.push(Buffer.concat([Buffer.from(`${head.slice(0, -1)},"document":`), body, Buffer.from('}\n')]));
    waiters.push((error) => (error ? answer(response, 503, '{"ok":false}') : answer(response, 202, '{"ok":true}')));
    startWrites();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/events`));
