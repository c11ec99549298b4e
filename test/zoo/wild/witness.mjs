#!/usr/bin/env node
// Witnesses of the wild zoo: for each broken program, the requests that expose its fault, sent to it AND to the
// same program without the fault; the fault is shown when the correct one answers as the spec says and the broken
// one does not. No cai code is used: the requests, the signatures and the judgement are written here.
//
//   node test/zoo/wild/witness.mjs --all            every witness, exit 0 when each fault is shown
//   node test/zoo/wild/witness.mjs NAME [NAME...]    some (NAME: a fault, e.g. dedupe-race or wild-b-dedupe-race)
//   node test/zoo/wild/witness.mjs --list           the witnesses' names
//   node test/zoo/wild/witness.mjs --correct [ID]   every probe against the correct variants (self-check)
//
// For Interface A the witness is the platform: it sends jobs and listens for the events itself.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  A_EVENTS_SECRET,
  A_FAULTS,
  A_JOBS_SECRET,
  A_PROVIDER,
  A_SOURCE,
  B_FAULTS,
  B_PROVIDER,
  B_SECRET,
  catalogue,
} from './catalogue.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LIMIT = 262144;

// ---- programs ----------------------------------------------------------------------------------------------

function start(command, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = [];
    const waiters = [];
    let buffer = '';
    let stderr = '';
    let url = null;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      buffer += d;
      let i;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (url === null) {
          url = line.trim();
          resolve(program);
        } else {
          lines.push(line);
          for (const w of [...waiters]) w();
        }
      }
    });
    child.on('exit', (code) => {
      if (url === null) reject(new Error(`${command.join(' ')} exited ${code} before its URL: ${stderr.trim()}`));
    });
    const program = {
      get url() {
        return url;
      },
      lines,
      stderr: () => stderr,
      // resolves true once a line matching `test` was printed, false after `ms`
      waitLine(test, ms) {
        return new Promise((res) => {
          const check = () => {
            if (lines.some(test)) {
              done(true);
              return true;
            }
            return false;
          };
          const done = (v) => {
            clearTimeout(timer);
            waiters.splice(waiters.indexOf(check), 1);
            res(v);
          };
          waiters.push(check);
          const timer = setTimeout(() => done(false), ms);
          check();
        });
      },
      stop() {
        return new Promise((res) => {
          if (child.exitCode !== null || child.signalCode !== null) return res();
          child.once('exit', () => res());
          child.kill('SIGTERM');
        });
      },
    };
  });
}

// ---- HTTP -----------------------------------------------------------------------------------------------------

function request(
  url,
  {
    method = 'POST',
    headers = {},
    body = Buffer.alloc(0),
    chunked = false,
    localAddress,
    splitAt,
    splitDelay = 100,
  } = {},
) {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (!chunked && !Object.keys(h).some((k) => k.toLowerCase() === 'content-length'))
      h['Content-Length'] = String(body.length);
    const req = http.request(url, { method, headers: h, agent: false, localAddress });
    req.on('response', (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => {
        const raw = Buffer.concat(parts);
        let json;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({
          status: res.statusCode,
          headers: res.headers,
          raw,
          text: raw.toString('utf8'),
          json,
          at: Date.now(),
        });
      });
    });
    req.on('error', (e) =>
      resolve({ status: 0, error: e.code ?? e.message, headers: {}, raw: Buffer.alloc(0), text: '', at: Date.now() }),
    );
    if (splitAt !== undefined) {
      req.write(body.subarray(0, splitAt));
      setTimeout(() => req.end(body.subarray(splitAt)), splitDelay);
    } else if (chunked && body.length > 1) {
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else req.end(body);
  });
}

// Raw requests on one kept-alive connection: sends each after the answer to the previous one.
function onOneConnection(url, rawRequests) {
  return new Promise((resolve) => {
    const u = new URL(url);
    const socket = net.connect(Number(u.port), u.hostname);
    const answers = [];
    let buffer = Buffer.alloc(0);
    let index = 0;
    const finish = () => {
      socket.destroy();
      resolve(answers);
    };
    const sendNext = () => {
      if (index >= rawRequests.length) return finish();
      socket.write(rawRequests[index++]);
    };
    const parse = () => {
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const [statusLine, ...headerLines] = head.split('\r\n');
        const headers = {};
        for (const l of headerLines) {
          const c = l.indexOf(':');
          headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
        }
        let body;
        if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
          const parts = [];
          let at = end + 4;
          for (;;) {
            const eol = buffer.indexOf('\r\n', at);
            if (eol < 0) return;
            const n = parseInt(buffer.subarray(at, eol).toString('latin1'), 16);
            if (buffer.length < eol + 2 + n + 2) return;
            if (n === 0) {
              at = eol + 4;
              break;
            }
            parts.push(buffer.subarray(eol + 2, eol + 2 + n));
            at = eol + 2 + n + 2;
          }
          body = Buffer.concat(parts).toString('utf8');
          buffer = buffer.subarray(at);
        } else {
          const length = Number(headers['content-length'] ?? 0);
          if (buffer.length < end + 4 + length) return;
          body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
          buffer = buffer.subarray(end + 4 + length);
        }
        const closes = /close/i.test(headers.connection ?? '') || statusLine.startsWith('HTTP/1.0');
        answers.push({ status: Number(statusLine.split(' ')[1]), headers, text: body, closes });
        if (closes) return finish();
        sendNext();
      }
    };
    socket.on('connect', sendNext);
    socket.on('data', (d) => {
      buffer = Buffer.concat([buffer, d]);
      parse();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    setTimeout(finish, 5000);
  });
}

// A program prints its lines before it answers, but its stdout pipe may be read after the answer arrives.
const settle = () => new Promise((r) => setTimeout(r, 300));
const sign = (secret, ts, body) =>
  'sha256=' +
  crypto
    .createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${ts}.`), body]))
    .digest('hex');
const now = () => Math.floor(Date.now() / 1000);
const rand = () => crypto.randomBytes(5).toString('hex');
const mediaType = (r) =>
  String(r.headers?.['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
const isDuplicate = (r) =>
  r.status === 202 && mediaType(r) === 'application/json' && r.json?.ok === true && r.json?.duplicate === true;
const isNew = (r) => r.status >= 200 && r.status < 300 && !(r.json && r.json.duplicate === true);
const show = (r) => {
  if (r.status === 0) return `no answer (${r.error})`;
  const type = r.headers['content-type'] ? ` [${r.headers['content-type']}]` : '';
  const text = r.text.length > 70 ? r.text.slice(0, 67) + '...' : r.text;
  return `${r.status}${type} ${text}`.trim();
};

// ---- Interface B ------------------------------------------------------------------------------------------------

const message = (id, extra = {}) => ({
  event: 'conversation.message',
  event_id: id,
  lead_id: 'lead-4711',
  provider_job_id: 'pj-81',
  channel: 'whatsapp',
  from_number_e164: '+14155552671',
  direction: 'outbound',
  author: 'agent',
  text: 'Olá! Tem disponibilidade amanhã?',
  occurred_at: new Date().toISOString(),
  ...extra,
});

// Waits a 429's Retry-After (seconds or HTTP-date) asks for; null when it has none.
function retryAfterMs(r) {
  const v = r.headers['retry-after'];
  if (typeof v !== 'string') return null;
  if (/^[0-9]+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now()) + 10;
}

// A signed B request. A 429 is honoured (retried after its Retry-After, signed afresh) unless raw429.
// skew: seconds added to the time of each attempt for its timestamp; ts: a literal timestamp.
async function postB(
  url,
  doc,
  { ts, skew = 0, secret = B_SECRET, provider = B_PROVIDER, signature, headers = {}, raw429 = false, ...rest } = {},
) {
  const body = Buffer.isBuffer(doc) ? doc : Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc));
  for (let attempt = 0; ; attempt += 1) {
    const stamp = ts ?? String(now() + skew);
    const h = {
      'Content-Type': 'application/json',
      'X-CAI-Timestamp': stamp,
      'X-CAI-Signature': signature ?? sign(secret, stamp, body),
      ...headers,
    };
    if (provider !== null) h['X-CAI-Provider'] = provider;
    const r = await request(url, { headers: h, body, ...rest });
    if (r.status !== 429 || raw429 || attempt >= 8) return r;
    await new Promise((res) => setTimeout(res, retryAfterMs(r) ?? 1000));
  }
}

function rawB(url, doc, { ts = String(now()), provider = B_PROVIDER } = {}) {
  const u = new URL(url);
  const body = Buffer.from(JSON.stringify(doc));
  const head =
    `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
    `X-CAI-Provider: ${provider}\r\nX-CAI-Timestamp: ${ts}\r\nX-CAI-Signature: ${sign(B_SECRET, ts, body)}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

// A valid message whose compact JSON is exactly `size` bytes.
function messageOfSize(id, size) {
  const doc = message(id, { text: '' });
  const base = Buffer.byteLength(JSON.stringify(doc));
  doc.text = 'a'.repeat(size - base);
  return Buffer.from(JSON.stringify(doc));
}

// Each B witness: extra args for both programs, and a probe returning { ok: spec-conforming?, saw }.
const B_WITNESSES = {
  'content-type-exact': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`), {
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    return { ok: isNew(r), saw: `a new event with Content-Type application/json; charset=utf-8: ${show(r)}` };
  },
  'chunked-411': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`), { chunked: true });
    return { ok: isNew(r), saw: `a new event with a chunked body: ${show(r)}` };
  },
  'envelope-fields-per-type': async (t) => {
    const doc = {
      event: 'job.closed',
      event_id: `w-${rand()}`,
      lead_id: 'lead-4711',
      provider_job_id: 'pj-81',
      channel: 'sms',
      outcome: 'no_answer',
      attempts: 3,
      occurred_at: new Date().toISOString(),
    };
    const r = await postB(t.url, doc);
    return { ok: isNew(r), saw: `job.closed carrying provider_job_id and channel (§2.4 envelope): ${show(r)}` };
  },
  'no-drain-on-401': async (t) => {
    const stale = String(now() - 1000);
    const [first, second] = await onOneConnection(t.url, [
      rawB(t.url, message(`w-${rand()}`), { ts: stale }),
      rawB(t.url, message(`w-${rand()}`)),
    ]);
    // a receiver that closes the connection after the 401 (and says so) is safe too
    const ok =
      first?.status === 401 && ((second && second.status >= 200 && second.status < 300) || (first.closes && !second));
    return {
      ok,
      saw: `on one connection, a stale request then a valid one: ${first?.status ?? 'none'}, then ${second ? second.status : first?.closes ? 'closed by the receiver' : 'no answer'}`,
    };
  },
  'date-time-whole-hour-offsets': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { occurred_at: '2024-05-01T10:15:00+05:45' }));
    return { ok: isNew(r), saw: `occurred_at 2024-05-01T10:15:00+05:45: ${show(r)}` };
  },
  'size-at-limit-refused': async (t) => {
    const body = messageOfSize(`w-${rand()}`, LIMIT);
    const r = await postB(t.url, body);
    return { ok: isNew(r), saw: `a valid body of exactly ${body.length} bytes (256 KB): ${show(r)}` };
  },
  'dedupe-by-type': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    const b = await postB(t.url, {
      event: 'job.closed',
      event_id: id,
      lead_id: 'lead-4711',
      outcome: 'no_answer',
      attempts: 1,
    });
    return {
      ok: isNew(a) && isDuplicate(b),
      saw: `a message, then job.closed with its event_id: ${show(a)}, then ${show(b)}`,
    };
  },
  'dedupe-per-connection': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    const b = await postB(t.url, message(id)); // agent: false, so a new connection
    return {
      ok: isNew(a) && isDuplicate(b),
      saw: `the same event twice, each on its own connection: ${show(a)}, then ${show(b)}`,
    };
  },
  'dedupe-forgets-after-100': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    for (let i = 0; i < 100; i += 1) await postB(t.url, message(`w-${rand()}-${i}`));
    const b = await postB(t.url, message(id));
    return { ok: isNew(a) && isDuplicate(b), saw: `an event, 100 others, then the first again: ${show(b)}` };
  },
  'dedupe-forgets-after-7s': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    await new Promise((resolve) => setTimeout(resolve, 7_500));
    const b = await postB(t.url, message(id));
    return { ok: isNew(a) && isDuplicate(b), saw: `an event, then the same 7.5 s later: ${show(b)}` };
  },
  'dedupe-race': async (t) => {
    const id = `w-${rand()}`;
    const doc = message(id);
    const answers = await Promise.all(Array.from({ length: 8 }, () => postB(t.url, doc)));
    const fresh = answers.filter(isNew).length;
    const dup = answers.filter(isDuplicate).length;
    await settle();
    const recorded = t.lines.filter((l) => l === `recorded ${JSON.stringify(id)}`).length;
    return {
      ok: fresh === 1 && dup === 7 && recorded === 1,
      saw: `8 concurrent copies of one new event: ${fresh} answered new, ${dup} duplicate, recorded ${recorded} time(s)`,
    };
  },
  'dedupe-raw-id': async (t) => {
    const id = `w${rand()}`;
    const plain = `{"event":"conversation.message","event_id":"${id}","text":"hi"}`;
    const escaped = `{"event":"conversation.message","event_id":"\\u0077${id.slice(1)}","text":"hi"}`;
    const a = await postB(t.url, plain);
    const b = await postB(t.url, escaped);
    return {
      ok: isNew(a) && isDuplicate(b),
      saw: `"event_id":"${id}", then the same id spelt "\\u0077${id.slice(1)}": ${show(a)}, then ${show(b)}`,
    };
  },
  'dedupe-first-64': async (t) => {
    const prefix = (rand() + 'x'.repeat(64)).slice(0, 64);
    const a = await postB(t.url, message(`${prefix}-first`));
    const b = await postB(t.url, message(`${prefix}-second`));
    return { ok: isNew(a) && isNew(b), saw: `two ids sharing their first 64 characters: ${show(a)}, then ${show(b)}` };
  },
  'dedupe-url-decoded': async (t) => {
    const base = `w-${rand()}`;
    const a = await postB(t.url, message(`${base}/1`));
    const b = await postB(t.url, message(`${base}%2F1`));
    return { ok: isNew(a) && isNew(b), saw: `"${base}/1", then "${base}%2F1": ${show(a)}, then ${show(b)}` };
  },
  'dedupe-uuid-column': async (t) => {
    const id = crypto.randomUUID();
    const a = await postB(t.url, message(id));
    const b = await postB(t.url, message(id.toUpperCase()));
    return { ok: isNew(a) && isNew(b), saw: `"${id}", then the same in capitals: ${show(a)}, then ${show(b)}` };
  },
  'duplicate-before-auth': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    const b = await postB(t.url, message(id), { secret: 'not-the-secret' });
    return {
      ok: isNew(a) && b.status === 401,
      saw: `an accepted event, then its repeat signed with a wrong secret: ${show(b)}`,
    };
  },
  'provider-optional': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`), { provider: null });
    return { ok: r.status === 401, saw: `a signed event without X-CAI-Provider: ${show(r)}` };
  },
  'timestamp-int-parse': async (t) => {
    const ts = String(now()).replace(/^(\d)/, '$1_');
    const r = await postB(t.url, message(`w-${rand()}`), { ts });
    return { ok: r.status === 401, saw: `X-CAI-Timestamp "${ts}", signed over it: ${show(r)}` };
  },
  'origin-x-forwarded-for': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`), {
      localAddress: '127.0.0.2',
      headers: { 'X-Forwarded-For': '127.0.0.1' },
    });
    return { ok: r.status === 401, saw: `from 127.0.0.2 (unregistered) with X-Forwarded-For: 127.0.0.1: ${show(r)}` };
  },
  'empty-previous-secret': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`), { secret: '' });
    return { ok: r.status === 401, saw: `an event signed with the empty secret: ${show(r)}` };
  },
  'window-reads-last-timestamp': async (t) => {
    const stale = String(now() - 1000);
    const fresh = String(now());
    const r = await postB(t.url, message(`w-${rand()}`), { ts: stale, headers: { 'X-CAI-Timestamp': [stale, fresh] } });
    return {
      ok: r.status === 401,
      saw: `an event signed 1000 s ago, sent with a second X-CAI-Timestamp line of now: ${show(r)}`,
    };
  },
  'non-object-500': async (t) => {
    const r = await postB(t.url, '[]');
    return { ok: r.status === 400, saw: `a signed body [] : ${show(r)}` };
  },
  'utf8-replaced': async (t) => {
    const text = JSON.stringify(message(`w-${rand()}`));
    const cut = text.indexOf('"event_id":"') + '"event_id":"'.length;
    const body = Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from([0xe9]), Buffer.from(text.slice(cut))]);
    const r = await postB(t.url, body);
    return { ok: r.status === 400, saw: `a signed message with the byte E9 (not UTF-8) in its event_id: ${show(r)}` };
  },
  'deep-nesting-500': async (t) => {
    const text = JSON.stringify(message(`w-${rand()}`));
    const r = await postB(t.url, `${text.slice(0, -1)},"x_deep":${'['.repeat(2000)}${']'.repeat(2000)}}`);
    return { ok: r.status < 500, saw: `a signed message with a field nested 2,000 deep: ${show(r)}` };
  },
  'unpaired-surrogate-500': async (t) => {
    const text = JSON.stringify(message(`w-${rand()}`));
    const r = await postB(t.url, `${text.slice(0, -1)},"x_note":"a\\ud800b"}`);
    return { ok: r.status < 500, saw: `a signed message with a field "a\\ud800b": ${show(r)}` };
  },
  'bad-utf8-500': async (t) => {
    const body = Buffer.concat([
      Buffer.from('{"event":"conversation.message","event_id":"w-'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const r = await postB(t.url, body);
    return { ok: r.status === 400, saw: `a signed body with the bytes FF FE (not UTF-8): ${show(r)}` };
  },
  'date-time-offset-optional': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { occurred_at: '2024-05-01T10:00:00' }));
    return { ok: r.status === 400, saw: `occurred_at 2024-05-01T10:00:00 (no offset): ${show(r)}` };
  },
  'date-calendar-unchecked': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { occurred_at: '2026-02-30T10:00:00+01:00' }));
    return { ok: r.status === 400, saw: `occurred_at 2026-02-30T10:00:00+01:00 (no such day): ${show(r)}` };
  },
  'duplicate-before-schema': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id));
    const b = await postB(t.url, message(id, { event: 'conversation.typing' }));
    return {
      ok: isNew(a) && b.status === 400,
      saw: `an accepted event, then its id with event "conversation.typing": ${show(b)}`,
    };
  },
  'e164-strips-formatting': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { from_number_e164: '+1 415-555-2671' }));
    return { ok: r.status === 400, saw: `from_number_e164 "+1 415-555-2671": ${show(r)}` };
  },
  'raw-decode': async (t) => {
    const r = await postB(t.url, `${JSON.stringify(message(`w-${rand()}`))} and more`);
    return { ok: r.status === 400, saw: `a signed message followed by " and more": ${show(r)}` };
  },
  'date-time-unanchored': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { occurred_at: '2026-11-22T13:00:00+01:00 CET' }));
    return { ok: r.status === 400, saw: `occurred_at "2026-11-22T13:00:00+01:00 CET": ${show(r)}` };
  },
  'lead-id-strip-crash': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { lead_id: 4711 }));
    return { ok: r.status === 400, saw: `a signed message with "lead_id": 4711: ${show(r)}` };
  },
  'size-truncates': async (t) => {
    const body = messageOfSize(`w-${rand()}`, LIMIT + 40_000);
    const r = await postB(t.url, body);
    return { ok: r.status === 413, saw: `a correctly signed body of ${body.length} bytes: ${show(r)}` };
  },
  'size-of-compact-json': async (t) => {
    const compact = messageOfSize(`w-${rand()}`, 200_000);
    const body = Buffer.concat([Buffer.from('{' + ' '.repeat(80_000)), compact.subarray(1)]);
    const r = await postB(t.url, body);
    return {
      ok: r.status === 413,
      saw: `a ${body.length}-byte body (80 000 spaces; ${compact.length} bytes compact): ${show(r)}`,
    };
  },
  'negative-cache': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id, { channel: 'telegram' }));
    const b = await postB(t.url, message(id));
    return {
      ok: a.status === 400 && isNew(b),
      saw: `an invalid event (channel "telegram"), then its id valid: ${show(a)}, then ${show(b)}`,
    };
  },
  'records-before-window': async (t) => {
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id), { skew: -400 });
    const b = await postB(t.url, message(id));
    return {
      ok: a.status === 401 && isNew(b),
      saw: `a signed event 400 s old, then the same fresh: ${show(a)}, then ${show(b)}`,
    };
  },
  'duplicate-200': async (t) => {
    const id = `w-${rand()}`;
    await postB(t.url, message(id));
    const b = await postB(t.url, message(id));
    return { ok: isDuplicate(b), saw: `the repeat: ${show(b)}` };
  },
  'duplicate-text-plain': async (t) => {
    const id = `w-${rand()}`;
    await postB(t.url, message(id));
    const b = await postB(t.url, message(id));
    return { ok: isDuplicate(b), saw: `the repeat: ${show(b)}` };
  },
  'same-body-for-both': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`));
    return { ok: isNew(r), saw: `a first-time event: ${show(r)}` };
  },
  'duplicate-ok-false': async (t) => {
    const id = `w-${rand()}`;
    await postB(t.url, message(id));
    const b = await postB(t.url, message(id));
    return { ok: isDuplicate(b), saw: `the repeat: ${show(b)}` };
  },
  'attempts-overflow-500': async (t) => {
    // §2.7 bounds attempts nowhere: past 2^63 - 1 it may be accepted or refused 400, never answered 5xx (§7)
    const doc = { event: 'job.closed', event_id: `w-${rand()}`, lead_id: 'lead-4711', outcome: 'no_answer' };
    const body = `${JSON.stringify(doc).slice(0, -1)},"attempts":9223372036854775808}`;
    const r = await postB(t.url, body);
    return { ok: isNew(r) || r.status === 400, saw: `job.closed with attempts 9223372036854775808: ${show(r)}` };
  },
  'content-length-chars': async (t) => {
    // on one connection, a new event whose event_id is not ASCII, then another: each answer framed by its
    // Content-Length in bytes, a body labelled JSON being JSON
    const [first, second] = await onOneConnection(t.url, [
      rawB(t.url, message(`w-${rand()}-é€😀`)),
      rawB(t.url, message(`w-${rand()}`)),
    ]);
    let json = true;
    if (first && first.text !== '' && /json/i.test(first.headers['content-type'] ?? ''))
      try {
        JSON.parse(first.text);
      } catch {
        json = false;
      }
    return {
      ok: first !== undefined && first.status >= 200 && first.status < 300 && json,
      saw: `on one connection, an event_id ending in é€😀, then another event: ${first ? `${first.status} ${JSON.stringify(first.text)}` : 'no answer'}${json ? '' : ' (labelled JSON, not JSON: cut short)'}, then ${second ? second.status : 'no answer'}`,
    };
  },
  'dedupe-ts-window': async (t) => {
    // §5.4, §5.5: any timestamp within 300 s of now is valid. The first is signed one second before a multiple of
    // 600 s, its retry on it: another bucket for every width that divides 600 s (60, 300, 600), at any time of day.
    // Within 40 s of the middle between two multiples there is none close enough to now: it waits that out.
    const nearest = () => Math.round(now() / 600) * 600;
    while (Math.abs(nearest() - now()) > 280) await new Promise((r) => setTimeout(r, 1000));
    const boundary = nearest();
    const id = `w-${rand()}`;
    const a = await postB(t.url, message(id), { ts: String(boundary - 1) });
    const b = await postB(t.url, message(id), { ts: String(boundary) });
    return {
      ok: isNew(a) && isDuplicate(b),
      saw: `an event signed at ${boundary - 1}, then its retry signed at ${boundary} (now ${now()}): ${show(a)}, then ${show(b)}`,
    };
  },
  'empty-lead-400': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { lead_id: '' }));
    return { ok: isNew(r), saw: `lead_id "" (a lead it does not know, §6.3): ${show(r)}` };
  },
  'e164-unicode-digits': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { from_number_e164: '+١٢٣٤٥٦٧٨٩٠' }));
    return { ok: r.status === 400, saw: `from_number_e164 "+١٢٣٤٥٦٧٨٩٠" (Arabic-Indic digits): ${show(r)}` };
  },
  'empty-text-400': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { text: '' }));
    return { ok: isNew(r), saw: `text "": ${show(r)}` };
  },
  'scheduled-past-400': async (t) => {
    const doc = {
      event: 'appointment.cancelled',
      event_id: `w-${rand()}`,
      lead_id: 'lead-4711',
      branch_code: 'madrid-centro',
      scheduled_at: '2024-05-01T10:00:00+02:00',
      occurred_at: new Date().toISOString(),
    };
    const r = await postB(t.url, doc);
    return { ok: isNew(r), saw: `appointment.cancelled scheduled_at 2024-05-01T10:00:00+02:00: ${show(r)}` };
  },
  'attempts-zero-400': async (t) => {
    const doc = {
      event: 'job.closed',
      event_id: `w-${rand()}`,
      lead_id: 'lead-4711',
      outcome: 'opted_out',
      attempts: 0,
    };
    const r = await postB(t.url, doc);
    return { ok: isNew(r), saw: `job.closed with attempts 0: ${show(r)}` };
  },
  'offset-range-unchecked': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { occurred_at: '2024-05-01T10:00:00+25:00' }));
    return { ok: r.status === 400, saw: `occurred_at 2024-05-01T10:00:00+25:00: ${show(r)}` };
  },
  'job-id-number': async (t) => {
    const r = await postB(t.url, message(`w-${rand()}`, { provider_job_id: 81 }));
    return { ok: r.status === 400, saw: `provider_job_id 81 (a number): ${show(r)}` };
  },
  'appointment-fields-number': async (t) => {
    const doc = {
      event: 'appointment.booked',
      event_id: `w-${rand()}`,
      lead_id: 'lead-4711',
      branch_code: 28001,
      scheduled_at: '2030-05-01T10:00:00+02:00',
    };
    const r = await postB(t.url, doc);
    return { ok: r.status === 400, saw: `appointment.booked with branch_code 28001 (a number): ${show(r)}` };
  },
  '429-no-retry-after': {
    args: ['--rate-every', '5'],
    faultOnly: true, // it needs a receiver with a cap
    probe: async (t) => {
      const answers = [];
      for (let i = 0; i < 5; i += 1) answers.push(await postB(t.url, message(`w-${rand()}`), { raw429: true }));
      const capped = answers.filter((r) => r.status === 429);
      const ok =
        capped.length > 0 &&
        capped.every((r) => typeof r.headers['retry-after'] === 'string' && r.headers['retry-after'] !== '');
      return {
        ok,
        saw: `5 requests: ${answers.map((r) => r.status).join(', ')}; Retry-After on the 429: ${capped.map((r) => r.headers['retry-after'] ?? 'absent').join(', ') || 'no 429'}`,
      };
    },
  },
};

// ---- Interface A ------------------------------------------------------------------------------------------------

// The platform's side: a listener for the events a provider sends back; `script(n, req)` answers the nth request.
function listen(script = () => ({ status: 202, body: '{"ok":true}' })) {
  return new Promise((resolve) => {
    const received = [];
    const waiters = [];
    const server = http.createServer((req, res) => {
      const parts = [];
      req.on('data', (d) => parts.push(d));
      req.on('end', () => {
        const raw = Buffer.concat(parts);
        let doc;
        try {
          doc = JSON.parse(raw.toString('utf8'));
        } catch {
          doc = undefined;
        }
        const ts = req.headers['x-cai-timestamp'];
        const item = {
          at: Date.now(),
          target: req.url,
          headers: req.headers,
          raw,
          doc,
          signatureOk: typeof ts === 'string' && req.headers['x-cai-signature'] === sign(A_EVENTS_SECRET, ts, raw),
        };
        received.push(item);
        const a = script(received.length, item) ?? { status: 202, body: '{"ok":true}' };
        if (a.reset) {
          // a network failure: the request read, the connection cut without a byte of answer
          req.socket.resetAndDestroy();
          for (const w of [...waiters]) w();
          return;
        }
        res.writeHead(a.status, { 'Content-Type': 'application/json', ...(a.headers ?? {}) });
        res.end(a.body ?? '');
        for (const w of [...waiters]) w();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/events`,
        received,
        // resolves once `test(received)` holds, or after `ms`
        until(test, ms) {
          return new Promise((res) => {
            const check = () => {
              if (test(received)) {
                done();
                return true;
              }
              return false;
            };
            const done = () => {
              clearTimeout(timer);
              waiters.splice(waiters.indexOf(check), 1);
              res(test(received));
            };
            waiters.push(check);
            const timer = setTimeout(done, ms);
            check();
          });
        },
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

const ENDINGS = ['appointment.booked', 'job.closed'];
const ended = (events) => events.some((e) => ENDINGS.includes(e.doc?.event));

function job(id, callbackUrl, extra = {}) {
  return {
    lead_id: `lead-${rand()}`,
    event_id: id,
    branch_code: 'LIS-01',
    city: 'Lisboa',
    contact: { name: 'Ana Sousa', phone_e164: '+351912345678', email: 'ana@example.com', language: 'pt-PT' },
    origin: {
      channel: 'landing_form',
      source: 'https://example.com/marcacao',
      campaign: 'spring',
      captured_at: new Date().toISOString(),
    },
    brief: { intent: 'book_appointment', notes: 'Quer marcar uma consulta.' },
    callback_url: callbackUrl,
    ...extra,
  };
}

function postA(endpoint, doc, { ts, skew = 0, secret = A_JOBS_SECRET, source = A_SOURCE, headers = {}, ...rest } = {}) {
  ts ??= String(now() + skew);
  const body = Buffer.isBuffer(doc) ? doc : Buffer.from(JSON.stringify(doc));
  const h = {
    'Content-Type': 'application/json',
    'X-CAI-Timestamp': ts,
    'X-CAI-Signature': sign(secret, ts, body),
    ...headers,
  };
  if (source !== null) h['X-CAI-Source'] = source;
  return request(`${endpoint}/contact-jobs`, { headers: h, body, ...rest });
}

const isAck = (r) =>
  r.status === 202 &&
  mediaType(r) === 'application/json' &&
  typeof r.json?.provider_job_id === 'string' &&
  typeof r.json?.assigned_number_e164 === 'string' &&
  /^\+[1-9][0-9]{1,14}$/.test(r.json.assigned_number_e164);
const is4xx = (r) => r.status >= 400 && r.status < 500;
// the lines a program printed for one job, once its stdout has caught up with its answers
const jobLines = async (t, id) => {
  await settle();
  return t.lines.filter((l) => l.startsWith(`job ${JSON.stringify(id)} `)).length;
};

// A conversation for one job: the job, its acknowledgment, and every event received until the ending.
async function conversation(t, extra = {}, script, post = {}) {
  const l = await listen(script);
  try {
    const j = job(`w-${rand()}`, l.url, extra);
    const ack = await postA(t.url, j, post);
    await l.until(ended, 20000);
    return { job: j, ack, events: l.received };
  } finally {
    await l.close();
  }
}

const FAST = ['--pace', '50', '--base-delay', '100'];

const A_WITNESSES = {
  'ack-text-plain': async (t) => {
    const r = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events'));
    return { ok: isAck(r), saw: `a valid job: ${show(r)}` };
  },
  'ack-job-id-number': async (t) => {
    const r = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events'));
    return { ok: isAck(r), saw: `a valid job: ${show(r)}` };
  },
  'language-strict': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    j.contact.language = 'zh-Hant-TW';
    const r = await postA(t.url, j);
    return { ok: isAck(r), saw: `contact.language "zh-Hant-TW": ${show(r)}` };
  },
  'channel-enum-b': async (t) => {
    const r = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events'));
    return { ok: isAck(r), saw: `origin.channel "landing_form": ${show(r)}` };
  },
  'body-string-concat': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    j.contact.name = 'João';
    const body = Buffer.from(JSON.stringify(j));
    const splitAt = body.indexOf(Buffer.from('ã')) + 1; // inside the two bytes of ã
    const r = await postA(t.url, body, { splitAt, splitDelay: 150 });
    return { ok: isAck(r), saw: `a valid job whose body arrives in two writes split inside "ã": ${show(r)}` };
  },
  'repeat-409': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    const a = await postA(t.url, j);
    const b = await postA(t.url, j);
    return {
      ok: isAck(a) && isAck(b) && a.json.provider_job_id === b.json.provider_job_id,
      saw: `a job twice: ${show(a)}, then ${show(b)}`,
    };
  },
  'repeat-reassigns-number': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    const a = await postA(t.url, j);
    const b = await postA(t.url, j);
    const same =
      isAck(a) &&
      isAck(b) &&
      a.json.provider_job_id === b.json.provider_job_id &&
      a.json.assigned_number_e164 === b.json.assigned_number_e164;
    return { ok: same, saw: `a job twice: ${a.text}, then ${b.text}` };
  },
  'dedupe-by-lead-and-id': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events', { lead_id: 'lead-one' });
    const a = await postA(t.url, j);
    const b = await postA(t.url, { ...j, lead_id: 'lead-two' });
    const n = await jobLines(t, j.event_id);
    return {
      ok: isAck(a) && isAck(b) && a.json.provider_job_id === b.json.provider_job_id && n === 1,
      saw: `a job, then its event_id with another lead_id: provider_job_id ${a.json?.provider_job_id} then ${b.json?.provider_job_id}; ${n} job(s) started`,
    };
  },
  'dedupe-race': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    const answers = await Promise.all(Array.from({ length: 6 }, () => postA(t.url, j)));
    const ids = new Set(answers.filter(isAck).map((r) => r.json.provider_job_id));
    const n = await jobLines(t, j.event_id);
    return {
      ok: answers.every(isAck) && ids.size === 1 && n === 1,
      saw: `6 concurrent copies of one new job: ${ids.size} provider_job_id(s), ${n} job(s) started`,
    };
  },
  'dedupe-on-lead': async (t) => {
    const a = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events', { lead_id: 'lead-same' }));
    const b = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events', { lead_id: 'lead-same' }));
    return {
      ok: isAck(a) && isAck(b) && a.json.provider_job_id !== b.json.provider_job_id,
      saw: `two jobs (two event_ids) for one lead: provider_job_id ${a.json?.provider_job_id}, then ${b.json?.provider_job_id}`,
    };
  },
  'dedupe-plain-object': async (t) => {
    const r = await postA(t.url, job('constructor', 'http://127.0.0.1:9/events'));
    return {
      ok: isAck(r) && (await jobLines(t, 'constructor')) === 1,
      saw: `a new job with event_id "constructor": ${show(r)}`,
    };
  },
  'source-optional': async (t) => {
    const r = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events'), { source: null });
    return { ok: is4xx(r), saw: `a signed job without X-CAI-Source: ${show(r)}` };
  },
  'repeat-before-auth': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    const a = await postA(t.url, j);
    const b = await postA(t.url, j, { secret: 'not-the-secret' });
    return { ok: isAck(a) && is4xx(b), saw: `a job, then its repeat signed with a wrong secret: ${show(b)}` };
  },
  'contact-null-500': async (t) => {
    const r = await postA(t.url, job(`w-${rand()}`, 'http://127.0.0.1:9/events', { contact: null }));
    return { ok: is4xx(r), saw: `"contact": null: ${show(r)}` };
  },
  'callback-url-optional': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    delete j.callback_url;
    const r = await postA(t.url, j);
    return { ok: is4xx(r), saw: `a job without callback_url: ${show(r)}` };
  },
  'intent-unchecked': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    j.brief.intent = 'buy_now';
    const r = await postA(t.url, j);
    return { ok: is4xx(r), saw: `brief.intent "buy_now": ${show(r)}` };
  },
  'date-time-date-parse': async (t) => {
    const j = job(`w-${rand()}`, 'http://127.0.0.1:9/events');
    j.origin.captured_at = '2024-05-01';
    const r = await postA(t.url, j);
    return { ok: is4xx(r), saw: `origin.captured_at "2024-05-01": ${show(r)}` };
  },
  'reserve-not-released': {
    args: FAST,
    probe: async (t) => {
      const l = await listen();
      try {
        const j = job(`w-${rand()}`, l.url);
        const a = await postA(t.url, { ...j, brief: { intent: 'buy_now' } });
        const b = await postA(t.url, j);
        const started = await t.waitLine((line) => line.startsWith(`job ${JSON.stringify(j.event_id)} `), 1500);
        const events = (await l.until((ev) => ev.length > 0, 2000)) ? l.received.length : 0;
        return {
          ok: is4xx(a) && isAck(b) && started && events > 0,
          saw: `an invalid job (intent "buy_now"), then the valid one with its event_id: ${a.status}, then ${b.status}; job started: ${started}; events: ${events}`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'stale-job-recorded': {
    args: FAST,
    probe: async (t) => {
      const l = await listen();
      try {
        const j = job(`w-${rand()}`, l.url);
        const a = await postA(t.url, j, { skew: -400 });
        const b = await postA(t.url, j);
        const started = await t.waitLine((line) => line.startsWith(`job ${JSON.stringify(j.event_id)} `), 1500);
        const events = (await l.until((ev) => ev.length > 0, 2000)) ? l.received.length : 0;
        return {
          ok: is4xx(a) && isAck(b) && started && events > 0,
          saw: `a job signed 400 s ago, then the same fresh: ${a.status}, then ${b.status}; job started: ${started}; events: ${events}`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'callback-lead-truncated-64': {
    args: FAST,
    probe: async (t) => {
      const lead = `lead-${'0123456789'.repeat(8)}-ü`;
      const c = await conversation(t, { lead_id: lead });
      const bad = c.events.filter((e) => e.doc?.lead_id !== lead);
      return {
        ok: c.events.length > 0 && bad.length === 0,
        saw: `a job with an ${[...lead].length}-character lead_id: ${c.events.length} event(s), ${bad.length} with another lead_id (${bad[0]?.doc?.lead_id?.length ?? '-'} chars)`,
      };
    },
  },
  'callback-lead-numeric': {
    args: FAST,
    probe: async (t) => {
      const lead = '000417009007199254740993';
      const c = await conversation(t, { lead_id: lead });
      const bad = c.events.filter((e) => e.doc?.lead_id !== lead);
      return {
        ok: c.events.length > 0 && bad.length === 0,
        saw: `a job with lead_id "${lead}": ${c.events.length} event(s), ${bad.length} with another lead_id (${JSON.stringify(bad[0]?.doc?.lead_id ?? '-')})`,
      };
    },
  },
  'callback-job-id-mismatch': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t);
      const want = c.ack.json?.provider_job_id;
      const seen = [...new Set(c.events.map((e) => e.doc?.provider_job_id))];
      return {
        ok: c.events.length > 0 && seen.length === 1 && seen[0] === want,
        saw: `acknowledged ${want}; the events carry ${seen.join(', ')}`,
      };
    },
  },
  'callback-timestamp-ms': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t);
      const stamps = c.events.map((e) => e.headers['x-cai-timestamp']);
      const ok = c.events.length > 0 && stamps.every((s) => /^[0-9]+$/.test(s) && Math.abs(Number(s) - now()) <= 300);
      return {
        ok,
        saw: `the events' X-CAI-Timestamp: ${[...new Set(stamps)].slice(0, 2).join(', ')}${stamps.length > 2 ? ', ...' : ''} (now ${now()})`,
      };
    },
  },
  'callback-timestamp-from-job': {
    args: FAST,
    probe: async (t) => {
      // A job signed 240 s before it is sent (inside §5.5's window): its events must carry the time they are sent.
      const ts = String(now() - 240);
      const c = await conversation(t, {}, undefined, { ts });
      const stamps = c.events.map((e) => e.headers['x-cai-timestamp']);
      return {
        ok: c.events.length > 0 && stamps.every((s) => s !== ts),
        saw: `a job signed at ${ts}: its events' X-CAI-Timestamp ${[...new Set(stamps)].slice(0, 2).join(', ')} (now ${now()})`,
      };
    },
  },
  'callback-signs-without-newline': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t);
      const good = c.events.filter((e) => e.signatureOk).length;
      return {
        ok: c.events.length > 0 && good === c.events.length,
        saw: `${good} of ${c.events.length} event(s) verify over their raw body with the events secret`,
      };
    },
  },
  'callback-event-id-per-lead': {
    args: FAST,
    probe: async (t) => {
      const l = await listen();
      try {
        const lead = `lead-${rand()}`;
        await postA(t.url, job(`w-${rand()}`, l.url, { lead_id: lead }));
        await l.until((ev) => ev.filter((e) => ENDINGS.includes(e.doc?.event)).length >= 1, 20000);
        await postA(t.url, job(`w-${rand()}`, l.url, { lead_id: lead }));
        await l.until((ev) => ev.filter((e) => ENDINGS.includes(e.doc?.event)).length >= 2, 20000);
        const ids = l.received.map((e) => e.doc?.event_id);
        const distinct = new Set(ids).size;
        return {
          ok: ids.length >= 4 && distinct === ids.length,
          saw: `two jobs for one lead: ${ids.length} events, ${distinct} distinct event_ids (${ids.slice(0, 4).join(', ')}...)`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'callback-event-id-from-job-id': {
    args: FAST,
    probe: async (t) => {
      const l = await listen();
      try {
        const id = `w-${rand()}-` + 'j'.repeat(107); // 120 characters, as long as a B event_id may be
        await postA(t.url, job(id, l.url));
        await l.until(ended, 20000);
        const lengths = l.received.map((e) => [...String(e.doc?.event_id)].length);
        return {
          ok: lengths.length > 0 && lengths.every((n) => n >= 1 && n <= 120),
          saw: `a job whose event_id has ${id.length} characters: event_id lengths ${lengths.join(', ')}`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'callback-no-content-type': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t);
      const types = [...new Set(c.events.map((e) => e.headers['content-type'] ?? 'absent'))];
      return {
        ok: c.events.length > 0 && types.every((v) => v.split(';')[0].trim() === 'application/json'),
        saw: `the events' Content-Type: ${types.join(', ')}`,
      };
    },
  },
  'callback-retry-fixed-delay': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t, {}, (n) => (n <= 5 ? { status: 503, body: '{"error":"busy"}' } : undefined));
      const first = c.events.filter((e) => e.doc?.event_id === c.events[0]?.doc?.event_id).map((e) => e.at);
      const gaps = first.slice(1).map((at, i) => at - first[i]);
      const ok = gaps.length >= 5 && gaps[4] >= 3 * gaps[0];
      return { ok, saw: `the first event answered 503 five times: waits ${gaps.join(', ')} ms` };
    },
  },
  'callback-retry-after-seconds-only': {
    args: FAST,
    probe: async (t) => {
      let until = 0;
      const c = await conversation(t, {}, (n) => {
        if (n !== 1) return undefined;
        until = (Math.floor(Date.now() / 1000) + 3) * 1000;
        return {
          status: 429,
          headers: { 'Retry-After': new Date(until).toUTCString() },
          body: '{"error":"slow down"}',
        };
      });
      const retry = c.events[1];
      const ok = retry !== undefined && retry.doc?.event_id === c.events[0].doc?.event_id && retry.at >= until - 5;
      return {
        ok,
        saw: `429 with Retry-After ${new Date(until).toUTCString()}: retried ${retry ? `${retry.at - c.events[0].at} ms later, ${retry.at >= until - 5 ? 'after' : 'before'} that date` : 'never'}`,
      };
    },
  },
  'callback-retry-new-occurred-at': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t, {}, (n) => (n === 1 ? { status: 503, body: '' } : undefined));
      const [a, b] = c.events;
      const ok = a && b && a.doc?.event_id === b.doc?.event_id && a.raw.equals(b.raw);
      return {
        ok,
        saw: `the first event answered 503, then retried: same event_id ${a?.doc?.event_id === b?.doc?.event_id}, same bytes ${a && b ? a.raw.equals(b.raw) : false} (occurred_at ${a?.doc?.occurred_at} / ${b?.doc?.occurred_at})`,
      };
    },
  },
  'callback-retry-gateway-only': {
    args: FAST,
    probe: async (t) => {
      // the first request answered 502, the second 500 (both a 5xx, §7: retried with backoff), the rest 202
      const answers = [502, 500];
      const c = await conversation(t, {}, (n) =>
        n <= answers.length ? { status: answers[n - 1], body: '' } : undefined,
      );
      const first = c.events.filter((e) => e.doc?.event_id === c.events[0]?.doc?.event_id).length;
      return {
        ok: first === 3 && ended(c.events),
        saw: `the first event answered 502, then 500: sent ${first} time(s) in all (${c.events.length} requests, ${ended(c.events) ? 'an ending' : 'no ending'})`,
      };
    },
  },
  'callback-only-202-success': {
    args: FAST,
    probe: async (t) => {
      // the first three requests answered 200, 201 and 204 (§6.5: any 2xx means accepted), the rest 202
      const answers = [
        { status: 200, body: '{"ok":true}' },
        { status: 201, body: '{"ok":true}' },
        { status: 204, body: '' },
      ];
      const c = await conversation(t, {}, (n) => answers[n - 1]);
      const ids = c.events.map((e) => e.doc?.event_id);
      const resent = ids.length - new Set(ids).size;
      const statuses = c.events.map((_, i) => answers[i]?.status ?? 202);
      return {
        ok: ids.length > 0 && resent === 0 && ended(c.events),
        saw: `requests answered ${statuses.join(', ')}: ${resent} sent again (event_ids ${ids.map((id) => String(id).slice(-6)).join(', ')})`,
      };
    },
  },
  'callback-abandon-after-retry': {
    args: FAST,
    probe: async (t) => {
      // the first request answered 503 (§7: retried), the rest 202: the conversation goes on to its ending
      const c = await conversation(t, {}, (n) => (n === 1 ? { status: 503, body: '{"error":"busy"}' } : undefined));
      const types = c.events.map((e) => e.doc?.event);
      return {
        ok: ended(c.events),
        saw: `the first event answered 503, then 202: ${c.events.length} requests (${types.join(', ')}), ${ended(c.events) ? 'an ending' : 'no ending'}`,
      };
    },
  },
  'callback-closed-attempts-string': {
    args: FAST,
    probe: async (t) => {
      const c = await conversation(t, { brief: { intent: 'pricing_information', notes: 'Quanto custa?' } });
      const closed = c.events.filter((e) => e.doc?.event === 'job.closed');
      const wrong = closed.filter((e) => !Number.isInteger(e.doc.attempts));
      return {
        ok: ended(c.events) && wrong.length === 0,
        saw: `a job with brief.intent pricing_information: ${c.events.map((e) => e.doc?.event).join(', ')}${closed.length ? `; job.closed attempts ${closed.map((e) => JSON.stringify(e.doc.attempts)).join(', ')}` : ''}`,
      };
    },
  },
  'callback-signs-once': {
    args: FAST,
    probe: async (t) => {
      // the first event answered 503 five times (waits from 100 ms, doubling: the last retry over a second later)
      const c = await conversation(t, {}, (n) => (n <= 5 ? { status: 503, body: '{"error":"busy"}' } : undefined));
      const first = c.events.filter((e) => e.doc?.event_id === c.events[0]?.doc?.event_id);
      const [a, z] = [first[0], first.at(-1)];
      const late = a !== undefined && z !== undefined && z.at - a.at >= 1000;
      const fresh = late && z.headers['x-cai-timestamp'] !== a.headers['x-cai-timestamp'] && z.signatureOk;
      return {
        ok: late && fresh,
        saw: `the first event answered 503 five times: its last attempt ${z && a ? z.at - a.at : '?'} ms after the first, X-CAI-Timestamp ${a?.headers['x-cai-timestamp']} then ${z?.headers['x-cai-timestamp']}`,
      };
    },
  },
  'callback-breaker-after-refusal': {
    args: FAST,
    probe: async (t) => {
      // two jobs to one callback host: the first job's first event answered 400 (final for that event, §7), then
      // the second job is sent; its conversation must come as any other's
      const l = await listen((n) => (n === 1 ? { status: 400, body: '{"error":"invalid"}' } : undefined));
      try {
        const one = job(`w-${rand()}`, l.url);
        await postA(t.url, one);
        await l.until((r) => r.length >= 1, 5000);
        const two = job(`w-${rand()}`, l.url);
        await postA(t.url, two);
        const ofTwo = (r) => r.filter((e) => e.doc?.lead_id === two.lead_id);
        await l.until((r) => ended(ofTwo(r)), 5000);
        const events = ofTwo(l.received);
        return {
          ok: ended(events),
          saw: `a job whose first event was answered 400, then a second job: ${events.length} event(s) for the second${ended(events) ? ', an ending' : ''}`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'callback-drops-query': {
    args: FAST,
    probe: async (t) => {
      const l = await listen();
      try {
        const target = '/events?tenant=wild&route=a%2Fb';
        const ack = await postA(t.url, job(`w-${rand()}`, `${l.url}?tenant=wild&route=a%2Fb`));
        await l.until(ended, 20000);
        const elsewhere = l.received.filter((e) => e.target !== target);
        return {
          ok: isAck(ack) && l.received.length > 0 && elsewhere.length === 0,
          saw: `a job whose callback_url ends ${target}: ${l.received.length} event(s), ${elsewhere.length} posted to ${elsewhere[0]?.target ?? '-'}`,
        };
      } finally {
        await l.close();
      }
    },
  },
  'callback-no-retry-network': {
    args: FAST,
    probe: async (t) => {
      // the first request cut with no answer (a reset connection: §8, retried), the rest 202
      const c = await conversation(t, {}, (n) => (n === 1 ? { reset: true } : undefined));
      const first = c.events.filter((e) => e.doc?.event_id === c.events[0]?.doc?.event_id).length;
      return {
        ok: first >= 2 && ended(c.events),
        saw: `the first event's connection reset: sent ${first} time(s) in all (${c.events.length} requests, ${ended(c.events) ? 'an ending' : 'no ending'})`,
      };
    },
  },
};

// ---- self-checks of the correct variants -----------------------------------------------------------------------
// Not witnesses: more of what the spec asks of any receiver, run by --correct against every correct entry of the
// catalogue together with every witness probe (which a correct receiver must pass too).

const idf = () => `s-${rand()}`;
async function expectEach(t, cases, send, judge) {
  const wrong = [];
  for (const [label, doc, opts] of cases) {
    const r = await send(t, doc, opts);
    if (!judge(r)) wrong.push(`${label}: ${show(r)}`);
  }
  return { ok: wrong.length === 0, saw: wrong.length ? wrong.join('; ') : `${cases.length} cases as the spec says` };
}

const B_SELF = {
  'valid-documents': async (t) => {
    const at = '2024-05-01T10:00:00Z';
    const appointment = (event) => ({
      event,
      event_id: idf(),
      lead_id: 'lead-1',
      branch_code: 'LIS-01',
      scheduled_at: '2024-06-01T09:30:00.123456+01:00',
      service: 'consulta',
      notes: 'n',
      occurred_at: at,
    });
    const cases = [
      ['only event and event_id', { event: 'conversation.message', event_id: idf() }],
      ['every envelope field', message(idf())],
      ...['appointment.booked', 'appointment.rescheduled', 'appointment.cancelled'].map((e) => [e, appointment(e)]),
      ['appointment.cancelled, required only', { event: 'appointment.cancelled', event_id: idf() }],
      ...['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out'].map((o) => [
        `job.closed ${o}`,
        {
          event: 'job.closed',
          event_id: idf(),
          lead_id: 'lead-1',
          outcome: o,
          attempts: 0,
          occurred_at: '2024-05-01T23:59:59,5-09:30',
        },
      ]),
      ...['whatsapp', 'webchat', 'sms', 'phone', 'email'].map((c) => [`channel ${c}`, message(idf(), { channel: c })]),
      ['inbound contact', message(idf(), { direction: 'inbound', author: 'contact' })],
      ['human author', message(idf(), { author: 'human' })],
      ['unknown fields, nested too', { ...message(idf()), x_new: { a: [1, { b: null }], c: 'ü' }, metadata: null }],
      ['an unknown lead_id', message(idf(), { lead_id: 'never-seen-lead-ß' })],
      ['event_id of 120 emoji', message('😀'.repeat(118) + rand().slice(0, 2))],
      ['event_id of one character', message(String.fromCodePoint(0x4e00 + crypto.randomInt(20000)))],
      ['event_id with spaces and escapes', message(` ${rand()} \t"\\/ `)],
      ['text in many scripts', message(idf(), { text: 'مرحبا こんにちは Привет שלום 😀 \u0000 \u2028' })],
      ['E.164 of 15 digits', message(idf(), { from_number_e164: '+123456789012345' })],
      ['E.164 of 2 digits', message(idf(), { from_number_e164: '+12' })],
      ['offsets and fractions', message(idf(), { occurred_at: '2024-02-29T00:00:00.000000001+14:00' })],
      ['pretty body with CRLF', Buffer.from(JSON.stringify(message(idf()), null, 2).replace(/\n/g, '\r\n'))],
      [
        '\\u escapes everywhere',
        Buffer.from(
          JSON.stringify(message(idf(), { text: 'ação ✓' })).replace(
            /[\u007f-\uffff]/g,
            (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
          ),
        ),
      ],
    ];
    return expectEach(t, cases, (tt, doc, o) => postB(tt.url, doc, o), isNew);
  },
  'invalid-documents': async (t) => {
    const m = (extra) => message(idf(), extra);
    const cases = [
      ['not JSON', 'event=conversation.message'],
      ['empty body', ''],
      ['JSON null', 'null'],
      ['a string', '"conversation.message"'],
      ['NaN', `{"event":"conversation.message","event_id":"${idf()}","x":NaN}`],
      ['no event', { event_id: idf() }],
      ['no event_id', { event: 'conversation.message' }],
      ['unknown type', m({ event: 'conversation.Message' })],
      ['event_id empty', m({ event_id: '' })],
      ['event_id of 121 characters', m({ event_id: 'x'.repeat(121) })],
      ['event_id a number', m({ event_id: 42 })],
      ['channel', m({ channel: 'WhatsApp' })],
      ['direction', m({ direction: 'in' })],
      ['author', m({ author: 'bot' })],
      ['outcome', { event: 'job.closed', event_id: idf(), outcome: 'no-answer' }],
      ['attempts 1.5', { event: 'job.closed', event_id: idf(), attempts: 1.5 }],
      ['attempts "3"', { event: 'job.closed', event_id: idf(), attempts: '3' }],
      ['occurred_at without offset', m({ occurred_at: '2024-05-01T10:00:00' })],
      ['occurred_at 30 February', m({ occurred_at: '2024-02-30T10:00:00Z' })],
      ['occurred_at a date', m({ occurred_at: '2024-05-01' })],
      ['scheduled_at', { event: 'appointment.booked', event_id: idf(), scheduled_at: 'tomorrow' }],
      ['E.164 without +', m({ from_number_e164: '14155552671' })],
      ['E.164 of 16 digits', m({ from_number_e164: '+1234567890123456' })],
      ['text a number', m({ text: 5 })],
      ['lead_id an object', m({ lead_id: { id: 1 } })],
    ];
    return expectEach(
      t,
      cases,
      (tt, doc, o) => postB(tt.url, doc, o),
      (r) => r.status === 400,
    );
  },
  authentication: async (t) => {
    const send = (tt, doc, o) => postB(tt.url, doc, o);
    const bad = [
      ['no signature', message(idf()), { signature: '' }],
      ['upper-case hex', message(idf()), { signature: sign(B_SECRET, String(now()), Buffer.from('x')).toUpperCase() }],
      ['wrong secret', message(idf()), { secret: 'nope' }],
      ['301 s old', message(idf()), { skew: -301 }],
      ['301 s ahead', message(idf()), { skew: 301 }],
      ['malformed timestamp', message(idf()), { ts: 'yesterday' }],
      ['milliseconds', message(idf()), { ts: String(Date.now()) }],
      ['unknown provider', message(idf()), { provider: 'someone-else' }],
      ['provider in another case', message(idf()), { provider: B_PROVIDER.toUpperCase() }],
      ['unregistered origin', message(idf()), { localAddress: '127.0.0.3' }],
    ];
    const first = await expectEach(t, bad, send, (r) => r.status === 401);
    const good = [
      ['290 s old', message(idf()), { skew: -290 }],
      ['290 s ahead', message(idf()), { skew: 290 }],
    ];
    const second = await expectEach(t, good, send, isNew);
    return { ok: first.ok && second.ok, saw: `${first.saw}; ${second.saw}` };
  },
  'refused-leaves-no-trace': async (t) => {
    const id = idf();
    const steps = [
      ['wrong signature', await postB(t.url, message(id), { secret: 'nope' }), (r) => r.status === 401],
      ['invalid', await postB(t.url, message(id, { author: 'robot' })), (r) => r.status === 400],
      ['oversize, sized', await postB(t.url, messageOfSize(id, LIMIT + 1)), (r) => r.status === 413],
      [
        'oversize, chunked',
        await postB(t.url, messageOfSize(id, LIMIT + 100_000), { chunked: true }),
        (r) => r.status === 413,
      ],
      ['valid', await postB(t.url, message(id)), isNew],
      [
        'repeat, another body',
        await postB(t.url, { event: 'job.closed', event_id: id, outcome: 'opted_out' }),
        isDuplicate,
      ],
    ];
    const wrong = steps.filter(([, r, judge]) => !judge(r)).map(([label, r]) => `${label}: ${show(r)}`);
    await settle();
    const recorded = t.lines.filter((l) => l === `recorded ${JSON.stringify(id)}`).length;
    return {
      ok: wrong.length === 0 && recorded === 1,
      saw: wrong.length
        ? wrong.join('; ')
        : `401, 400, 413, 413, then new, then duplicate; recorded ${recorded} time(s)`,
    };
  },
};

const A_SELF = {
  'valid-jobs': async (t) => {
    const cb = 'http://127.0.0.1:9/events';
    const required = {
      lead_id: 'L-1',
      event_id: idf(),
      branch_code: 'LIS-01',
      contact: { name: 'Ana', phone_e164: '+351912345678' },
      callback_url: cb,
    };
    const cases = [
      ['required fields only', required],
      ['every optional field', job(idf(), cb)],
      [
        'unknown fields anywhere',
        { ...job(idf(), cb), x_new: [1, { a: null }], contact: { ...job('x', cb).contact, x_pref: 'sms' } },
      ],
      ...['landing_form', 'contact_form', 'webchat', 'whatsapp_button', 'phone', 'referral'].map((c) => [
        `channel ${c}`,
        job(idf(), cb, { origin: { channel: c } }),
      ]),
      ...['book_appointment', 'pricing_information', 'service_information', 'reschedule', 'follow_up', 'other'].map(
        (i) => [`intent ${i}`, job(idf(), cb, { brief: { intent: i } })],
      ),
      ...[
        'en',
        'pt-BR',
        'zh-Hant-TW',
        'es-419',
        'sr-Latn-RS',
        'de-CH-1996',
        'en-US-u-ca-gregory',
        'x-private',
        'i-klingon',
        'EN-gb',
      ].map((l) => {
        const j = job(idf(), cb);
        j.contact.language = l;
        return [`language ${l}`, j];
      }),
      [
        'captured_at with offset and fraction',
        job(idf(), cb, { origin: { captured_at: '2024-05-01T10:00:00.5-03:00' } }),
      ],
      ['text in many scripts', job(idf(), cb, { contact: { name: 'محمد 李 Ёж 😀', phone_e164: '+861012345678' } })],
      ['a long event_id', job('j'.repeat(300) + rand(), cb)],
    ];
    return expectEach(t, cases, (tt, doc, o) => postA(tt.url, doc, o), isAck);
  },
  'invalid-jobs': async (t) => {
    const cb = 'http://127.0.0.1:9/events';
    const without = (field) => {
      const j = job(idf(), cb);
      delete j[field];
      return j;
    };
    const contact = (patch) => job(idf(), cb, { contact: { name: 'Ana', phone_e164: '+351912345678', ...patch } });
    const cases = [
      ['not JSON', Buffer.from('lead_id=1')],
      ['an array', Buffer.from('[]')],
      ...['lead_id', 'event_id', 'branch_code', 'contact', 'callback_url'].map((f) => [`no ${f}`, without(f)]),
      ['no contact.name', job(idf(), cb, { contact: { phone_e164: '+351912345678' } })],
      ['no contact.phone_e164', job(idf(), cb, { contact: { name: 'Ana' } })],
      ['phone not E.164', contact({ phone_e164: '912 345 678' })],
      ['language not BCP 47', contact({ language: 'en_US' })],
      ['channel of Interface B', job(idf(), cb, { origin: { channel: 'sms' } })],
      ['intent', job(idf(), cb, { brief: { intent: 'buy' } })],
      ['captured_at without offset', job(idf(), cb, { origin: { captured_at: '2024-05-01T10:00:00' } })],
      ['callback_url not a URL', job(idf(), 'events please')],
      ['lead_id a number', job(idf(), cb, { lead_id: 7 })],
      ['origin a string', job(idf(), cb, { origin: 'web' })],
    ];
    return expectEach(t, cases, (tt, doc, o) => postA(tt.url, doc, o), is4xx);
  },
  authentication: async (t) => {
    const cb = 'http://127.0.0.1:9/events';
    const cases = [
      ['no X-CAI-Source', job(idf(), cb), { source: null }],
      ['another source', job(idf(), cb), { source: 'someone-else' }],
      ['signed with the events secret (§5.1)', job(idf(), cb), { secret: A_EVENTS_SECRET }],
      ['wrong secret', job(idf(), cb), { secret: 'nope' }],
      ['301 s old', job(idf(), cb), { skew: -301 }],
      ['301 s ahead', job(idf(), cb), { skew: 301 }],
      ['malformed timestamp', job(idf(), cb), { ts: '1.5e9' }],
      ['no signature', job(idf(), cb), { headers: { 'X-CAI-Signature': '' } }],
    ];
    return expectEach(t, cases, (tt, doc, o) => postA(tt.url, doc, o), is4xx);
  },
  'events-a-platform-accepts': async (t) => {
    // the events of one conversation, replayed to this zoo's correct B receiver set up as that platform
    const c = await conversation(t);
    const platform = await start(['python3', 'test/zoo/wild/receiver_b.py', '--provider', A_PROVIDER], {
      CAI_SECRET: A_EVENTS_SECRET,
    });
    try {
      const wrong = [];
      for (const e of c.events) {
        const headers = {};
        for (const k of ['content-type', 'x-cai-provider', 'x-cai-timestamp', 'x-cai-signature'])
          if (e.headers[k] !== undefined) headers[k] = e.headers[k];
        const r = await request(platform.url, { headers, body: e.raw });
        if (!isNew(r)) wrong.push(`${e.doc?.event}: ${show(r)}`);
      }
      const kinds = c.events.map((e) => e.doc?.event).join(', ');
      return {
        ok: isAck(c.ack) && c.events.length > 0 && ended(c.events) && wrong.length === 0,
        saw: wrong.length ? wrong.join('; ') : `${kinds}: each accepted`,
      };
    } finally {
      await platform.stop();
    }
  },
  'one-conversation-per-job': async (t) => {
    const l = await listen();
    try {
      const j = job(idf(), l.url);
      const a = await postA(t.url, j);
      const b = await postA(t.url, j);
      await l.until(ended, 20000);
      await new Promise((r) => setTimeout(r, 1500));
      const endings = l.received.filter((e) => ENDINGS.includes(e.doc?.event)).length;
      const jobs = new Set(l.received.map((e) => e.doc?.provider_job_id));
      return {
        ok:
          isAck(a) && isAck(b) && a.json.provider_job_id === b.json.provider_job_id && endings === 1 && jobs.size === 1,
        saw: `a job twice: ${endings} ending(s), provider_job_ids ${[...jobs].join(', ')}`,
      };
    } finally {
      await l.close();
    }
  },
};

async function checkCorrect(only) {
  let failed = 0;
  let total = 0;
  for (const entry of catalogue.filter((e) => e.kind === 'correct' && (!only.length || only.includes(e.id)))) {
    const probes = entry.interface === 'B' ? { ...B_WITNESSES, ...B_SELF } : { ...A_WITNESSES, ...A_SELF };
    const wrong = [];
    for (const [name, w] of Object.entries(probes)) {
      if (typeof w !== 'function' && w.faultOnly) continue;
      const probe = typeof w === 'function' ? w : w.probe;
      const program = await start(entry.command, entry.env);
      try {
        const r = await probe(program);
        total += 1;
        if (r.ok !== true) wrong.push(`${name}: ${r.saw}`);
      } catch (e) {
        wrong.push(`${name}: witness error ${e.stack ?? e}`);
      } finally {
        await program.stop();
      }
    }
    failed += wrong.length;
    console.log(`${wrong.length ? '✗' : '✓'} ${entry.id} (${entry.relation}: ${entry.description})`);
    for (const w of wrong) console.log(`    ${w}`);
  }
  console.log(`\n${total - failed} of ${total} checks of the correct variants passed`);
  return failed === 0 ? 0 : 1;
}

// ---- running ------------------------------------------------------------------------------------------------------

function witnesses() {
  const all = [];
  for (const [name, w] of Object.entries(B_WITNESSES))
    all.push({ iface: 'B', name, ...(typeof w === 'function' ? { probe: w, args: [] } : w) });
  for (const [name, w] of Object.entries(A_WITNESSES))
    all.push({ iface: 'A', name, ...(typeof w === 'function' ? { probe: w, args: [] } : w) });
  return all;
}

async function runOne(w) {
  const entry = catalogue.find((e) => e.id === `wild-${w.iface.toLowerCase()}-${w.name}`);
  if (!entry) throw new Error(`no catalogue entry for ${w.name}`);
  const i = entry.command.indexOf('--fault');
  const correctCommand = [...entry.command.slice(0, i), ...entry.command.slice(i + 2), ...w.args];
  const brokenCommand = [...entry.command, ...w.args];
  const results = {};
  for (const [which, command] of [
    ['correct', correctCommand],
    ['broken', brokenCommand],
  ]) {
    const program = await start(command, entry.env);
    try {
      results[which] = await w.probe(program);
    } catch (e) {
      results[which] = { ok: null, saw: `witness error: ${e.stack ?? e}` };
    } finally {
      await program.stop();
    }
  }
  const shown = results.correct.ok === true && results.broken.ok === false;
  return { entry, shown, ...results };
}

async function consistency() {
  // receiver_b.py's own table and the catalogue's copy agree; every fault has a witness and vice versa.
  const problems = [];
  const listed = await new Promise((resolve) => {
    const child = spawn('python3', ['test/zoo/wild/receiver_b.py', '--list-faults'], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', () => resolve(JSON.parse(out)));
  });
  if (JSON.stringify(listed) !== JSON.stringify(B_FAULTS))
    problems.push('receiver_b.py --list-faults differs from catalogue.mjs B_FAULTS');
  const names = new Set([...B_FAULTS.map((f) => `B:${f.name}`), ...A_FAULTS.map((f) => `A:${f.name}`)]);
  const witnessed = new Set(witnesses().map((w) => `${w.iface}:${w.name}`));
  for (const n of names) if (!witnessed.has(n)) problems.push(`no witness for ${n}`);
  for (const n of witnessed) if (!names.has(n)) problems.push(`a witness for an unknown fault ${n}`);
  return problems;
}

async function main() {
  const args = process.argv.slice(2);
  const all = witnesses();
  if (args.includes('--correct')) return checkCorrect(args.filter((a) => !a.startsWith('--')));
  if (args.includes('--list')) {
    for (const w of all) console.log(`wild-${w.iface.toLowerCase()}-${w.name}`);
    return 0;
  }
  let chosen;
  if (args.includes('--all')) chosen = all;
  else {
    const wanted = args.filter((a) => !a.startsWith('--'));
    if (wanted.length === 0) {
      console.error('error: name a fault or pass --all\nhint: node test/zoo/wild/witness.mjs --list');
      return 2;
    }
    chosen = [];
    for (const name of wanted) {
      const found = all.filter((w) => w.name === name || `wild-${w.iface.toLowerCase()}-${w.name}` === name);
      if (found.length === 0) {
        console.error(`error: no witness named ${name}\nhint: node test/zoo/wild/witness.mjs --list`);
        return 2;
      }
      chosen.push(...found);
    }
  }
  let failed = 0;
  if (args.includes('--all')) {
    const problems = await consistency();
    for (const p of problems) console.log(`✗ catalogue: ${p}`);
    failed += problems.length;
  }
  for (const w of chosen) {
    const r = await runOne(w);
    const head = `${r.shown ? '✓' : '✗'} ${r.entry.id} (${r.entry.relation} ${r.entry.clause})`;
    console.log(`${head}\n    broken:  ${r.broken.saw}\n    correct: ${r.correct.saw}`);
    if (!r.shown) {
      failed += 1;
      console.log(
        `    NOT SHOWN: correct ${r.correct.ok ? 'conforms' : 'does not conform'}, broken ${r.broken.ok === false ? 'does not conform' : 'conforms'}`,
      );
    }
  }
  console.log(`\n${chosen.length - failed} of ${chosen.length} faults shown${failed ? `; ${failed} problem(s)` : ''}`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`error: ${e.stack ?? e}`);
    process.exit(4);
  },
);
