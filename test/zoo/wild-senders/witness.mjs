#!/usr/bin/env node
// The witnesses of the wild senders, without cai: a small receiver of its own (node:http on 127.0.0.1, port 0)
// answers each document's attempts from a script, records every attempt, and a judge written from the spec's sender
// relations (S1–S7) reads what the sender did. For each broken sender the same script is played to it and to the
// same program without its fault: the broken one must break the relation its catalogue entry names, the correct one
// nothing at all.
//
//   node witness.mjs --all               every fault (exit 0 when every one is shown)
//   node witness.mjs FAULT [FAULT...]    some of them (a name from the catalogue, e.g. retry-after-ms)
//   node witness.mjs --variants          every correct sender against 503, 429 (HTTP-date), a cut, then 202
//   node witness.mjs --check-catalogue   the catalogue matches both programs' FAULTS tables
//   options: --jobs N (witnesses at once, default 2), --verbose (every attempt)
import http from 'node:http';
import { spawn, execFileSync } from 'node:child_process';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { BROKEN, CORRECT, PYTHON_FAULTS } from './catalogue.mjs';
import { FAULTS as NODE_FAULTS } from './wild-sender.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..', '..');
const IDENTITY = { B: 'zoo-wild-provider', A: 'zoo-wild-platform' };
const SECRET = 'whsec_wild_' + randomBytes(12).toString('hex');

// ------------------------------------------------------------------ the scripts that show each fault
// An answer: a status; 'dup' (202 with the duplicate body, §2.13); '429:N' (Retry-After: N seconds); '429-date:N'
// (Retry-After: an HTTP-date N s ahead; '429-rfc850:N' and '429-asctime:N' in the obsolete forms); 'cut' (the connection closed once the request is read, no answer);
// 'slow:MS:ANSWER' (that answer after MS). Attempt k of a document gets script[k] (the last one repeats); `scripts`
// gives each document, in order of first arrival, its own. After a 2xx, a repeat gets the duplicate answer (B) or the
// same acknowledgment (A), as a receiver would (§6.1, §2.2).
export const WITNESSES = {
  'retries-after-200': { script: [200], retryFor: 4000 },
  'retries-on-duplicate': { script: ['dup'], retryFor: 3000 },
  'renames-on-duplicate': { script: ['dup'] },
  'retries-401-resigned': { script: [401] },
  'gives-up-after-second-5xx': { script: [503], retryFor: 5000 },
  'fixed-pace': { script: [503, 503, 503, 503, 503, 202] },
  'no-retry-on-cut': { script: ['cut', 202], retryFor: 5000 },
  'ignores-retry-after': { script: ['429:3', 202] },
  'retry-after-from-send': { script: ['slow:2000:429:3', 202] },
  'new-id-every-retry': { script: [503, 202] },
  'refreshes-occurred-at': { script: [503, 202] },
  'replays-signature': { script: ['429:5', 202] },
  'content-length-in-chars': { script: [202], retryFor: 2000 },
  'id-too-long': { script: [202] },
  'url-resolve-drops-path': { script: [202] },
  'hedges-slow-answer': { script: ['slow:1500:202'] },
  'id-from-lead-and-type': { script: [202] },
  'retry-after-ms': { script: ['429:2', 202] },
  'caps-retry-after': { script: ['429:3', 202] },
  'retry-after-first-only': { script: ['429:2', '429:2', 202] },
  'no-retry-on-429': { script: ['429:1', 202], retryFor: 5000 },
  'retries-413': { script: [413], retryFor: 3000 },
  // The first document spends 3.1 s on 503s (a 100 ms base); the second meets 503s only and must get its own 4 s.
  'shared-retry-clock': {
    scripts: [[503, 503, 503, 503, 503, 202], [503]],
    retryFor: 4000,
    args: ['--base-delay', '100'],
  },
  'cut-retried-without-backoff': { script: ['cut', 'cut', 'cut', 'cut', 'cut', 202] },
  'renames-after-cut': { script: ['cut', 202] },
  'id-from-clock-seconds': { script: [202] },
  'job-id-from-phone': { script: [202] },
  'rebuilds-job-on-retry': { script: ['429:2', 202] },
  'reorders-keys-on-retry': { script: [503, 202] },
  'signature-not-refreshed': { script: ['429:2', 202] },
  'ms-timestamp-on-retry': { script: [503, 202] },
  'signs-pretty-sends-compact': { script: [202], retryFor: 2000 },
  'form-content-type-on-retry': { script: [503, 202] },
  'content-type-twice': { script: [202] },
  'retries-listed-5xx': { script: [503, 501, 202] },
  'charset-latin1': { script: [202] },
  'query-on-url': { script: [202] },
};
const DEFAULT_RETRY_FOR = 15000;
const VARIANT_SCRIPT = [503, '429-date:2', 'cut', 202];

// ------------------------------------------------------------------ the receiver

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');
/** An HTTP-date (RFC 9110 §5.6.7) in its preferred form (IMF-fixdate) or one of the two obsolete ones. */
function httpDate(ms, form = 'imf') {
  const d = new Date(ms);
  const time = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
  if (form === 'rfc850')
    return `${DAYS[d.getUTCDay()]}, ${p2(d.getUTCDate())}-${MON[d.getUTCMonth()]}-${p2(d.getUTCFullYear() % 100)} ${time} GMT`;
  if (form === 'asctime')
    return `${DAYS[d.getUTCDay()].slice(0, 3)} ${MON[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
  return d.toUTCString();
}

function parseAnswer(token) {
  const t = String(token);
  const slow = /^slow:(\d+):(.+)$/.exec(t);
  if (slow) return { ...parseAnswer(slow[2]), delay: Number(slow[1]) };
  if (t === 'cut') return { cut: true, delay: 0 };
  if (t === 'dup') return { status: 202, dup: true, delay: 0 };
  const r = /^429(?:-(date|rfc850|asctime))?:(\d+)$/.exec(t);
  if (r)
    return { status: 429, retryAfter: Number(r[2]), date: r[1] ? (r[1] === 'date' ? 'imf' : r[1]) : null, delay: 0 };
  if (/^\d{3}$/.test(t)) return { status: Number(t), delay: 0 };
  throw new Error(`bad answer ${t}`);
}

function startReceiver(iface, witness) {
  const scripts = (witness.scripts ?? [witness.script]).map((s) => s.map(parseAnswer));
  const attempts = [];
  const deliveries = new Map(); // event_id → { index, attempts, accepted, ack }
  const base = `/w/${randomUUID().slice(0, 8)}`;
  const path = iface === 'B' ? `${base}/events` : `${base}/contact-jobs`;
  let conn = 0;
  const server = http.createServer((req, res) => {
    const receivedAt = Date.now();
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 1 << 20) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const a = {
        seq: attempts.length,
        conn: req.socket.wildConn,
        receivedAt,
        method: req.method,
        url: req.url,
        version: req.httpVersion,
        rawHeaders: req.rawHeaders,
        headers: req.headers,
        body,
        answer: null,
        answeredAt: null,
      };
      attempts.push(a);
      let doc = null;
      try {
        doc = JSON.parse(body.toString('utf8'));
      } catch {
        /* judged below */
      }
      const id = doc && typeof doc === 'object' && typeof doc.event_id === 'string' ? doc.event_id : null;
      a.doc = doc;
      a.eventId = id;
      let answer;
      let d = null;
      if (id === null) answer = { status: 400, delay: 0 };
      else {
        d = deliveries.get(id);
        if (!d) {
          d = { index: deliveries.size, count: 0, accepted: false };
          deliveries.set(id, d);
        }
        const script = scripts[Math.min(d.index, scripts.length - 1)];
        answer = d.accepted
          ? iface === 'B'
            ? { status: 202, dup: true, delay: 0 }
            : { status: 202, delay: 0 }
          : script[Math.min(d.count, script.length - 1)];
        d.count++;
      }
      const reply = () => {
        a.answeredAt = Date.now();
        a.answer = answer;
        if (answer.cut) {
          req.socket.destroy();
          return;
        }
        const s = answer.status;
        if (s >= 200 && s < 300 && d) d.accepted = true;
        const headers = { 'Content-Type': 'application/json' };
        let out = '';
        if (s === 204) out = null;
        else if (answer.dup) out = '{"ok":true,"duplicate":true}';
        else if (s >= 200 && s < 300) {
          if (iface === 'A') {
            d.ack ??= { provider_job_id: `pj-${randomUUID()}`, assigned_number_e164: '+5511930000000' };
            out = JSON.stringify(d.ack);
          } else out = '{"ok":true}';
        } else out = JSON.stringify({ error: `scripted ${s}` });
        if (s === 429) {
          const at = a.answeredAt + answer.retryAfter * 1000;
          headers['Retry-After'] = answer.date ? httpDate(at, answer.date) : String(answer.retryAfter);
          // The earliest moment a retry may come (§7): the date itself (whole seconds), or N s after this answer.
          a.notBefore = answer.date ? Math.floor(at / 1000) * 1000 : at;
        }
        if (out === null) {
          delete headers['Content-Type'];
          res.writeHead(s, headers);
          res.end();
        } else {
          res.writeHead(s, headers);
          res.end(out);
        }
      };
      if (answer.delay) setTimeout(reply, answer.delay);
      else reply();
    });
  });
  server.on('connection', (s) => {
    s.wildConn = ++conn;
  });
  // A body cut short by a wrong Content-Length leaves bytes that are no request: drop that connection.
  server.on('clientError', (_e, socket) => socket.destroy());
  return new Promise((resolveListen) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const url = iface === 'B' ? `http://127.0.0.1:${port}${path}` : `http://127.0.0.1:${port}${base}`;
      resolveListen({
        url,
        path,
        attempts,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

// ------------------------------------------------------------------ the judge (relations.md, senders S1–S7)

const EVENT_TYPES = [
  'conversation.message',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'job.closed',
];
const E164 = /^\+[1-9]\d{1,14}$/;
const DATETIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;
const BCP47 = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function documentProblems(iface, doc) {
  const p = [];
  if (!isObj(doc)) return ['the body is not a JSON object'];
  const str = (obj, k, req, re, what) => {
    if (!(k in obj)) {
      if (req) p.push(`${what ?? k} missing`);
      return;
    }
    if (typeof obj[k] !== 'string') {
      p.push(`${what ?? k} is not a string`);
      return;
    }
    if (re instanceof RegExp && !re.test(obj[k])) p.push(`${what ?? k} ${JSON.stringify(obj[k])} is malformed`);
    if (Array.isArray(re) && !re.includes(obj[k]))
      p.push(`${what ?? k} ${JSON.stringify(obj[k])} is not in its enumeration`);
  };
  if (typeof doc.event_id !== 'string' || [...doc.event_id].length < 1 || [...doc.event_id].length > 120)
    p.push('event_id is not a string of 1 to 120 characters (§8)');
  if (iface === 'B') {
    str(doc, 'event', true, EVENT_TYPES);
    for (const k of ['lead_id', 'provider_job_id', 'text', 'branch_code', 'service', 'notes']) str(doc, k, false);
    str(doc, 'channel', false, ['whatsapp', 'webchat', 'sms', 'phone', 'email']);
    str(doc, 'direction', false, ['inbound', 'outbound']);
    str(doc, 'author', false, ['agent', 'contact', 'human']);
    str(doc, 'outcome', false, ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out']);
    str(doc, 'from_number_e164', false, E164);
    str(doc, 'occurred_at', false, DATETIME);
    str(doc, 'scheduled_at', false, DATETIME);
    if ('attempts' in doc && !Number.isInteger(doc.attempts)) p.push('attempts is not an integer');
  } else {
    for (const k of ['lead_id', 'branch_code', 'callback_url']) str(doc, k, true);
    str(doc, 'city', false);
    if (!isObj(doc.contact)) p.push('contact missing');
    else {
      str(doc.contact, 'name', true, null, 'contact.name');
      str(doc.contact, 'phone_e164', true, E164, 'contact.phone_e164');
      str(doc.contact, 'email', false, null, 'contact.email');
      str(doc.contact, 'language', false, BCP47, 'contact.language');
    }
    if ('origin' in doc) {
      if (!isObj(doc.origin)) p.push('origin is not an object');
      else {
        str(
          doc.origin,
          'channel',
          false,
          ['landing_form', 'contact_form', 'webchat', 'whatsapp_button', 'phone', 'referral'],
          'origin.channel',
        );
        str(doc.origin, 'source', false, null, 'origin.source');
        str(doc.origin, 'campaign', false, null, 'origin.campaign');
        str(doc.origin, 'captured_at', false, DATETIME, 'origin.captured_at');
      }
    }
    if ('brief' in doc) {
      if (!isObj(doc.brief)) p.push('brief is not an object');
      else {
        str(
          doc.brief,
          'intent',
          false,
          ['book_appointment', 'pricing_information', 'service_information', 'reschedule', 'follow_up', 'other'],
          'brief.intent',
        );
        str(doc.brief, 'notes', false, null, 'brief.notes');
      }
    }
  }
  return p;
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a),
    kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}
const withoutId = (doc) => {
  const { event_id: _omit, ...rest } = doc;
  return rest;
};
const isFinal = (ans) =>
  ans && !ans.cut && ((ans.status >= 200 && ans.status < 300) || [400, 401, 413].includes(ans.status));
const isRetryable = (ans) => ans && (ans.cut || ans.status >= 500 || ans.status === 429);
const header = (a, name) => a.headers[name.toLowerCase()];

/** Fresh: a timestamp within this many seconds of the attempt's arrival was taken when it was sent (S5). */
const FRESH_S = 3;

export function judge(iface, attempts, { path, identity, secret, retryFor, exitAt }) {
  const v = [];
  const add = (relation, clause, what, a) =>
    v.push({
      relation,
      clause,
      what: a
        ? `attempt #${a.seq + 1}${a.eventId ? ` of ${JSON.stringify(a.eventId.length > 40 ? a.eventId.slice(0, 40) + '…' : a.eventId)}` : ''}: ${what}`
        : what,
    });
  for (const a of attempts) {
    // S7: every attempt
    if (a.method !== 'POST') add('S7', '§4', `method ${a.method}`, a);
    if (a.url !== path) add('S7', iface === 'B' ? '§4.2' : '§4.1', `posted to ${a.url}, not ${path}`, a);
    // Node keeps the first of several Content-Type fields in req.headers: the raw lines are counted (RFC 9110 §5.3).
    const types = a.rawHeaders.filter((_, i) => i % 2 === 1 && a.rawHeaders[i - 1].toLowerCase() === 'content-type');
    if (types.length > 1) add('S7', '§4', `${types.length} Content-Type fields: ${JSON.stringify(types)}`, a);
    const ct = (header(a, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (ct !== 'application/json')
      add('S7', '§2', `Content-Type ${JSON.stringify(header(a, 'content-type') ?? null)}`, a);
    // §2: the body is UTF-8, so a charset, if the sender names one, is UTF-8.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header(a, 'content-type') ?? '')?.[1];
    if (charset !== undefined && !['utf-8', 'utf8'].includes(charset.toLowerCase()))
      add('S7', '§2', `Content-Type names charset ${charset}, not UTF-8`, a);
    const idh = iface === 'B' ? 'x-cai-provider' : 'x-cai-source';
    if (header(a, idh) !== identity)
      add(
        'S7',
        iface === 'B' ? '§4.2' : '§4.1',
        `${idh} ${JSON.stringify(header(a, idh) ?? null)}, not ${JSON.stringify(identity)}`,
        a,
      );
    if (a.body.length > 262144) add('S7', '§8', `a body of ${a.body.length} bytes`, a);
    if (a.doc === null) add('S7', '§2', 'the body is not JSON', a);
    else for (const p of documentProblems(iface, a.doc)) add('S7', '§2', p, a);
    // S5: every attempt signed afresh
    const ts = header(a, 'x-cai-timestamp');
    const sig = header(a, 'x-cai-signature');
    const arrival = Math.floor(a.receivedAt / 1000);
    if (!/^\d+$/.test(ts ?? ''))
      add('S5', '§5.4', `X-CAI-Timestamp ${JSON.stringify(ts ?? null)} is not unix seconds`, a);
    else if (Math.abs(Number(ts) - arrival) > 300)
      add('S5', '§5.5', `X-CAI-Timestamp ${ts} is ${Number(ts) - arrival} s from its arrival, outside the window`, a);
    else if (Math.abs(Number(ts) - arrival) > FRESH_S)
      add('S5', '§5.5', `X-CAI-Timestamp ${ts} is ${arrival - Number(ts)} s old: not the time it was sent`, a);
    if (!/^sha256=[0-9a-f]{64}$/.test(sig ?? ''))
      add('S5', '§5.3', `X-CAI-Signature ${JSON.stringify(sig ?? null)} is not sha256= and 64 lowercase hex digits`, a);
    else if (ts !== undefined) {
      const want = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${ts}.`).update(a.body).digest('hex'));
      if (!timingSafeEqual(want, Buffer.from(sig)))
        add('S5', '§5.2', 'the signature does not verify over its timestamp and the raw body as received', a);
    }
  }
  // Deliveries: the attempts that carry one event_id (§6.1, §2.2).
  const byId = new Map();
  for (const a of attempts)
    if (a.eventId !== null) {
      if (!byId.has(a.eventId)) byId.set(a.eventId, []);
      byId.get(a.eventId).push(a);
    }
  for (const [, list] of byId) {
    list.sort((x, y) => x.receivedAt - y.receivedAt || x.seq - y.seq);
    for (let i = 1; i < list.length; i++) {
      const a = list[i];
      const prev = list[i - 1];
      const sameDoc = deepEqual(a.doc, prev.doc);
      const accepted = list
        .slice(0, i)
        .find(
          (p) =>
            p.answer &&
            !p.answer.cut &&
            p.answer.status >= 200 &&
            p.answer.status < 300 &&
            p.answeredAt <= a.receivedAt,
        );
      if (!sameDoc) {
        // S6: a different document under an id that was already accepted; S4: a retry that changed the document.
        if (accepted)
          add(
            'S6',
            '§6.1',
            `a different document under the event_id of one accepted ${a.receivedAt - accepted.answeredAt} ms before`,
            a,
          );
        else
          add(
            'S4',
            '§6.1',
            `a retry that carries another document than attempt #${prev.seq + 1} (${describeDiff(prev.doc, a.doc)})`,
            a,
          );
      } else if (!a.body.equals(prev.body))
        add(
          'S4',
          '§6.1',
          `a retry that carries the same document in other bytes than attempt #${prev.seq + 1} (same bytes is best)`,
          a,
        );
      if (!sameDoc) continue;
      const final = list.slice(0, i).find((p) => isFinal(p.answer) && p.answeredAt <= a.receivedAt);
      if (final)
        add(
          'S1',
          final.answer.status >= 400 ? '§7' : '§6.5',
          `sent again ${a.receivedAt - final.answeredAt} ms after attempt #${final.seq + 1} was answered ${final.answer.status}${final.answer.dup ? ' (the duplicate answer)' : ''}, a final answer`,
          a,
        );
      const open = list.slice(0, i).find((p) => p.answeredAt === null || p.answeredAt > a.receivedAt);
      if (open) add('S1', '§7', `sent while attempt #${open.seq + 1} was still waiting for its answer`, a);
      if (prev.answer && prev.answer.status === 429 && prev.notBefore && a.receivedAt < prev.notBefore - 100)
        add(
          'S3',
          '§7',
          `retried ${prev.notBefore - a.receivedAt} ms before the Retry-After of attempt #${prev.seq + 1} (${prev.answer.date ? 'an HTTP-date' : `${prev.answer.retryAfter} s`})`,
          a,
        );
    }
    // S2: waits that grow (the first five waits after a 5xx or a cut, read as cai's growth rule: the last two at
    // least twice the two shortest of the first three), and at least 50 ms between them all.
    const waits = [];
    for (let i = 0; i + 1 < list.length && waits.length < 5; i++) {
      const ans = list[i].answer;
      if (ans && (ans.cut || ans.status >= 500)) waits.push(list[i + 1].receivedAt - list[i].answeredAt);
      else if (waits.length) break;
    }
    if (waits.length === 5) {
      const lastTwo = waits[3] + waits[4];
      const shortest = [...waits.slice(0, 3)].sort((x, y) => x - y);
      if (lastTwo < 2 * (shortest[0] + shortest[1]) || lastTwo < 50)
        add('S2', '§7', `waits of ${waits.join(', ')} ms after 5xx or cuts do not grow (exponential backoff)`);
    }
    // S2/S3: given up early: the last answer called for a retry, the sender exited and its retry period was not over.
    const last = list[list.length - 1];
    if (exitAt && isRetryable(last.answer) && exitAt - list[0].receivedAt < 0.8 * retryFor) {
      const rel = last.answer.status === 429 ? ['S3', '§7'] : ['S2', '§7'];
      add(
        rel[0],
        rel[1],
        `given up after ${list.length} attempt(s), ${exitAt - list[0].receivedAt} ms after the first, though its last answer was ${last.answer.cut ? 'a cut connection' : last.answer.status} and the retry period is ${retryFor} ms`,
        last,
      );
    }
  }
  // S6: the same document sent again under a new event_id (a retry or a repeat renamed).
  const firsts = [...byId.values()].map((l) => l[0]).sort((x, y) => x.receivedAt - y.receivedAt);
  for (let i = 1; i < firsts.length; i++) {
    const twin = firsts
      .slice(0, i)
      .find((p) => isObj(p.doc) && isObj(firsts[i].doc) && deepEqual(withoutId(p.doc), withoutId(firsts[i].doc)));
    if (twin)
      add(
        'S6',
        '§6.1',
        `the document of ${JSON.stringify(twin.eventId)} (last answered ${lastAnswer(byId.get(twin.eventId))}) sent again under a new event_id`,
        firsts[i],
      );
  }
  return v;
}

function lastAnswer(list) {
  const a = list[list.length - 1].answer;
  if (!a) return 'nothing';
  return a.cut ? 'a cut connection' : a.dup ? '202 duplicate' : String(a.status);
}

function describeDiff(a, b) {
  if (!isObj(a) || !isObj(b)) return 'not comparable';
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const diff = [...keys].filter((k) => !deepEqual(a[k], b[k]));
  return diff
    .map((k) => `${k}: ${JSON.stringify(a[k])} → ${JSON.stringify(b[k])}`)
    .join('; ')
    .slice(0, 200);
}

// ------------------------------------------------------------------ running a sender

function interpreter(cmd) {
  if (cmd === 'node') return process.execPath;
  return cmd;
}

async function runSender(entry, { args, withoutFault, script, scripts, retryFor }) {
  const recv = await startReceiver(entry.interface, { script, scripts });
  let command = [...entry.command];
  if (withoutFault) {
    const i = command.indexOf('--fault');
    if (i >= 0) command.splice(i, 2);
  }
  command = [...command, '--identity', IDENTITY[entry.interface], '--retry-for', String(retryFor), ...args];
  const started = Date.now();
  const child = spawn(interpreter(command[0]), command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, CAI_TARGET_URL: recv.url, CAI_SECRET: SECRET, CAI_SCENARIO: 'reject-400', CAI_IDENTITY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    if (stderr.length < 20000) stderr += c;
  });
  const limit = retryFor + 20000;
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limit);
  const code = await new Promise((r) => child.on('close', (c) => r(c)));
  clearTimeout(timer);
  const exitAt = killed ? null : Date.now();
  // Late attempts still count: listen a little longer than the longest first wait.
  await new Promise((r) => setTimeout(r, 1200));
  await recv.close();
  const violations = judge(entry.interface, recv.attempts, {
    path: recv.path,
    identity: IDENTITY[entry.interface],
    secret: SECRET,
    retryFor,
    exitAt,
  });
  return { code, killed, stdout, stderr, attempts: recv.attempts, violations, ms: Date.now() - started };
}

function describeAttempts(attempts) {
  const t0 = attempts[0]?.receivedAt ?? 0;
  return attempts
    .map(
      (a) =>
        `      #${a.seq + 1} +${a.receivedAt - t0} ms ${a.eventId ? JSON.stringify(a.eventId).slice(0, 50) : '(no id)'} → ${a.answer ? (a.answer.cut ? 'cut' : a.answer.dup ? '202 dup' : a.answer.status) : 'unanswered'}`,
    )
    .join('\n');
}

async function witnessFault(entry, verbose) {
  const name = entry.command[entry.command.indexOf('--fault') + 1];
  const w = WITNESSES[name];
  if (!w) return { ok: false, lines: [`✗ ${entry.id}: no witness script`] };
  const opts = { args: w.args ?? [], script: w.script, scripts: w.scripts, retryFor: w.retryFor ?? DEFAULT_RETRY_FOR };
  const broken = await runSender(entry, opts);
  const correct = await runSender(entry, { ...opts, withoutFault: true });
  const expected = broken.violations.filter((x) => x.relation === entry.relation);
  const ok = expected.length > 0 && correct.violations.length === 0 && !correct.killed;
  const lines = [
    `${ok ? '✓' : '✗'} ${entry.id} (${entry.relation} ${entry.clause}, ${entry.interface}; script ${JSON.stringify(w.scripts ?? w.script)})`,
  ];
  for (const x of (expected.length ? expected : broken.violations).slice(0, 3))
    lines.push(`    broken:  ${x.relation} ${x.clause} ${x.what}`);
  const others = [...new Set(broken.violations.filter((x) => x.relation !== entry.relation).map((x) => x.relation))];
  if (others.length)
    lines.push(
      `    broken, as a consequence: ${others.map((r) => `${r} ×${broken.violations.filter((x) => x.relation === r).length}`).join(', ')}`,
    );
  if (!expected.length)
    lines.push(
      `    broken:  no ${entry.relation} violation (exit ${broken.code}${broken.killed ? ', killed' : ''}, ${broken.attempts.length} attempts)`,
    );
  if (correct.violations.length === 0)
    lines.push(`    correct: no violation (exit ${correct.code}, ${correct.attempts.length} attempt(s))`);
  for (const x of correct.violations.slice(0, 5)) lines.push(`    correct: ${x.relation} ${x.clause} ${x.what}`);
  if (verbose || !ok) {
    lines.push(
      '    broken attempts:\n' + describeAttempts(broken.attempts),
      '    correct attempts:\n' + describeAttempts(correct.attempts),
    );
    if (!ok)
      lines.push(
        `    broken stderr: ${broken.stderr.slice(-600)}`,
        `    correct stderr: ${correct.stderr.slice(-600)}`,
      );
  }
  return { ok, lines };
}

// What each correct sender claims to do differently, read from what arrived: a variant that passes without using its
// latitude would prove nothing. A proof may play its own script. Each returns null when shown, else what is missing.
const names = (a) => a.rawHeaders.filter((_, i) => i % 2 === 0);
const connections = (attempts) => new Set(attempts.map((a) => a.conn)).size;
const firstAttempts = (attempts) => {
  const seen = new Set();
  return attempts.filter((a) => !seen.has(a.eventId) && seen.add(a.eventId));
};
const waitsAfter = (attempts, pred) => {
  const out = [];
  const byId = new Map();
  for (const a of attempts) {
    if (!byId.has(a.eventId)) byId.set(a.eventId, []);
    byId.get(a.eventId).push(a);
  }
  for (const list of byId.values())
    for (let i = 0; i + 1 < list.length; i++)
      if (list[i].answer && pred(list[i].answer)) out.push(list[i + 1].receivedAt - list[i].answeredAt);
  return out;
};
const VARIANT_PROOFS = {
  'wild-node-jitter': {
    check: (at) => {
      const w = waitsAfter(at, (x) => x.status === 503);
      return Math.max(...w) - Math.min(...w) > 15 ? null : `the waits after 503 (${w.join(', ')} ms) show no jitter`;
    },
  },
  'wild-node-large-base-cap': {
    script: [503, 503, 503, 503, 503, 202],
    check: (at) => {
      const w = waitsAfter(at, (x) => x.status === 503);
      return w[0] >= 950 && w[3] < 5000 && w[4] < 5000 && w[4] >= 3900
        ? null
        : `waits ${w.join(', ')} ms are not 1 s doubling to a 4 s cap`;
    },
  },
  'wild-node-wait-max': {
    script: [503, 503, 503, '429:1', 202],
    check: (at) => {
      const w = waitsAfter(at, (x) => x.status === 429);
      return w.every((x) => x >= 1900)
        ? null
        : `after "Retry-After: 1" with its own backoff at 2 s it waited ${w.join(', ')} ms`;
    },
  },
  'wild-node-mixed-case-headers': {
    check: (at) =>
      at.every((a) => names(a).includes('x-cAi-sOuRcE') && names(a).includes('cOnTeNt-tYpE'))
        ? null
        : `header names ${names(at[0]).join(', ')}`,
  },
  'wild-node-upper-case-headers': {
    check: (at) =>
      at.every((a) => names(a).includes('X-CAI-SIGNATURE') && names(a).includes('CONTENT-TYPE'))
        ? null
        : `header names ${names(at[0]).join(', ')}`,
  },
  'wild-node-pipelined': {
    check: (at) => {
      const f = firstAttempts(at);
      return connections(f) === 1 && connections(at) === 1 + at.length - f.length
        ? null
        : `the first attempts came on ${connections(f)} connection(s), the whole run on ${connections(at)} for ${at.length} attempts`;
    },
  },
  'wild-node-http10': {
    check: (at) =>
      at.every((a) => a.version === '1.0') && connections(at) === at.length
        ? null
        : `HTTP versions ${[...new Set(at.map((a) => a.version))].join(', ')}, ${connections(at)} connections for ${at.length} attempts`,
  },
  'wild-node-expect-continue': {
    check: (at) =>
      at.every((a) => a.headers.expect === '100-continue') ? null : 'an attempt without Expect: 100-continue',
  },
  'wild-node-tiny-chunks': {
    check: (at) =>
      at.every((a) => /chunked/.test(a.headers['transfer-encoding'] ?? '') && a.headers['content-length'] === undefined)
        ? null
        : 'an attempt not chunked',
  },
  'wild-node-parallel-own-connections': {
    check: (at) => {
      const f = firstAttempts(at);
      return connections(at) === at.length && f.filter((a) => a.receivedAt <= f[0].answeredAt + 50).length >= 5
        ? null
        : `${connections(at)} connections for ${at.length} attempts, or not at once`;
    },
  },
  'wild-node-keep-alive-at-once': {
    check: (at) =>
      connections(at) <= at.length / 2 ? null : `${connections(at)} connections for ${at.length} attempts`,
  },
  'wild-node-unicode-ids': {
    check: (at) =>
      at.every((a) => [...a.eventId].length === 120 && a.eventId.length > 120)
        ? null
        : 'an event_id not of 120 code points over 120 UTF-16 units',
  },
  'wild-python-pretty-crlf': {
    check: (at) => (at.every((a) => a.body.includes('{\r\n  "')) ? null : 'a body not pretty-printed with CRLF'),
  },
  'wild-python-key-orders': {
    check: (at) =>
      new Set(firstAttempts(at).map((a) => Object.keys(a.doc).slice(0, 3).join())).size >= 3
        ? null
        : 'the documents share one key order',
  },
  'wild-python-one-connection': {
    check: (at) =>
      connections(at) <= at.length / 2 ? null : `${connections(at)} connections for ${at.length} attempts`,
  },
  'wild-python-offsets-extra-fields': {
    check: (at) =>
      at.every((a) => 'x_wild_priority' in a.doc && 'x_utm' in a.doc.origin) &&
      at.some((a) => /\+05:45$/.test(a.doc.origin.captured_at)) &&
      at.every((a) => /\.\d{6}[+-]/.test(a.doc.origin.captured_at))
        ? null
        : 'no unknown fields, +05:45 offset or microseconds',
  },
  'wild-python-required-only-ascii': {
    check: (at) =>
      at.every(
        (a) => a.body.every((b) => b < 128) && a.body.includes('\\u') && !('origin' in a.doc) && !('city' in a.doc),
      )
        ? null
        : 'a body with raw non-ASCII bytes or optional fields',
  },
  'wild-node-http-date-forms': {
    script: ['429-rfc850:2', '429-asctime:2', '429-date:1', 202],
    check: (at) => {
      const w = waitsAfter(at, (x) => x.status === 429);
      return w.length === 3 && w[0] >= 900 && w[1] >= 900 ? null : `waits after three HTTP-dates: ${w.join(', ')} ms`;
    },
  },
  'wild-python-lower-case-http-date': {
    script: ['429-rfc850:2', '429-asctime:2', '429-date:1', 202],
    check: (at) =>
      at.every((a) =>
        names(a).every(
          (n) => n === n.toLowerCase() || n === 'Host' || n === 'Accept-Encoding' || n === 'Content-Length',
        ),
      ) && at.some((a) => a.body.includes('", "'))
        ? null
        : `header names ${names(at[0]).join(', ')}`,
  },
};

async function witnessVariant(entry, verbose) {
  const proof = VARIANT_PROOFS[entry.id];
  const runs = [{ name: VARIANT_SCRIPT, script: VARIANT_SCRIPT }];
  if (proof?.script) runs.push({ name: proof.script, script: proof.script });
  // Any 2xx is final (§6.5): a 204 without a body too.
  if (entry.interface === 'B') runs.push({ name: [204], script: [204] });
  const lines = [];
  let ok = true;
  for (const { script } of runs) {
    const r = await runSender(entry, { args: [], script, retryFor: 60000 });
    const ids = new Set(r.attempts.map((a) => a.eventId));
    const settled = r.code === 0 && ids.size === entry.count;
    const problems = r.violations.map((x) => `${x.relation} ${x.clause} ${x.what}`);
    if (!settled)
      problems.push(`expected ${entry.count} documents accepted (exit 0), saw ${ids.size} and exit ${r.code}`);
    // The proof is read on the default script unless it has its own.
    if (proof && (proof.script ? script === proof.script : script === VARIANT_SCRIPT)) {
      const missing = r.attempts.length ? proof.check(r.attempts) : 'nothing arrived';
      if (missing) problems.push(`does not show its latitude: ${missing}`);
    }
    if (!proof && script === VARIANT_SCRIPT) problems.push('no proof of its latitude in VARIANT_PROOFS');
    ok &&= problems.length === 0;
    lines.push(
      `  ${problems.length ? '✗' : '✓'} script ${JSON.stringify(script)}: ${r.attempts.length} attempts, exit ${r.code}, ${r.ms} ms`,
    );
    for (const p of problems.slice(0, 5)) lines.push(`      ${p}`);
    if (verbose || problems.length) lines.push(describeAttempts(r.attempts), `      stderr: ${r.stderr.slice(-600)}`);
  }
  return {
    ok,
    lines: [
      `${ok ? '✓' : '✗'} ${entry.id} (${entry.interface}, ${entry.count} document(s)): ${entry.description}`,
      ...lines,
    ],
  };
}

function checkCatalogue() {
  const problems = [];
  const py = JSON.parse(execFileSync('python3', [join(HERE, 'wild_sender.py'), '--list-faults'], { encoding: 'utf8' }));
  const same = (a, b) =>
    a.length === b.length &&
    a.every((f, i) => ['name', 'interface', 'relation', 'clause', 'description'].every((k) => f[k] === b[i][k]));
  if (!same(py, PYTHON_FAULTS)) problems.push('catalogue.mjs PYTHON_FAULTS differs from wild_sender.py --list-faults');
  for (const f of [...NODE_FAULTS, ...PYTHON_FAULTS])
    if (!WITNESSES[f.name]) problems.push(`no witness script for ${f.name}`);
  const names = [...NODE_FAULTS, ...PYTHON_FAULTS].map((f) => f.name);
  if (new Set(names).size !== names.length) problems.push('a fault name is used twice');
  const readme = readFileSync(join(HERE, 'README.md'), 'utf8');
  for (const e of [...BROKEN, ...CORRECT])
    if (!readme.includes(`\`${e.id}\``)) problems.push(`README.md does not list ${e.id}`);
  return problems;
}

async function pool(items, jobs, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
        console.log(out[i].lines.join('\n'));
      }
    }),
  );
  return out;
}

/** The README's two tables, from the catalogue and the witness scripts. */
function tables() {
  const esc = (x) => x.replace(/\|/g, '\\|');
  const out = ['| id | if | relation | clause | the mistake | witness script |', '|---|---|---|---|---|---|'];
  for (const e of BROKEN) {
    const w = WITNESSES[e.command.at(-1)];
    out.push(
      `| \`${e.id}\` | ${e.interface} | ${e.relation} | ${e.clause} | ${esc(e.description)} | \`${JSON.stringify(w.scripts ?? w.script).replace(/"/g, '')}\`${w.retryFor ? `, retry period ${w.retryFor / 1000} s` : ''} |`,
    );
  }
  out.push('', '| id | if | relation | latitude used | options |', '|---|---|---|---|---|');
  for (const e of CORRECT)
    out.push(
      `| \`${e.id}\` | ${e.interface} | ${e.relation} ${e.clause} | ${esc(e.description)} | \`${e.command.slice(4).join(' ')}\` |`,
    );
  return out.join('\n');
}

async function main(argv) {
  if (argv.includes('--tables')) {
    console.log(tables());
    return 0;
  }
  const verbose = argv.includes('--verbose');
  const ji = argv.indexOf('--jobs');
  const jobs = ji >= 0 ? Number(argv[ji + 1]) : 2;
  const names = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--jobs');
  if (argv.includes('--check-catalogue')) {
    const p = checkCatalogue();
    for (const x of p) console.log(`✗ ${x}`);
    console.log(
      p.length
        ? `${p.length} problem(s)`
        : `✓ the catalogue matches both FAULTS tables (${BROKEN.length} faults, ${CORRECT.length} correct senders)`,
    );
    return p.length ? 1 : 0;
  }
  if (argv.includes('--variants')) {
    const list = names.length
      ? CORRECT.filter((e) => names.includes(e.id) || names.includes(e.id.replace(/^wild-(node|python)-/, '')))
      : CORRECT;
    const res = await pool(list, jobs, (e) => witnessVariant(e, verbose));
    const bad = res.filter((r) => !r.ok).length;
    console.log(`${list.length - bad}/${list.length} correct senders passed`);
    return bad || list.length === 0 ? 1 : 0;
  }
  let list;
  if (argv.includes('--all')) list = BROKEN;
  else list = BROKEN.filter((e) => names.some((n) => e.id === n || e.command.at(-1) === n));
  if (!list.length) {
    console.error('error: name a fault, or --all, --variants, --check-catalogue');
    console.error('hint: node test/zoo/wild-senders/witness.mjs --all');
    return 2;
  }
  const p = checkCatalogue();
  if (p.length) {
    for (const x of p) console.log(`✗ ${x}`);
    return 1;
  }
  const res = await pool(list, jobs, (e) => witnessFault(e, verbose));
  const bad = res.filter((r) => !r.ok).length;
  console.log(`${list.length - bad}/${list.length} faults shown`);
  return bad ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
