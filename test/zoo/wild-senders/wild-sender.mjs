#!/usr/bin/env node
// A sender of the interface written from interface-spec-v1.0.md alone, by a team that never saw cai: Interface B
// (a provider's event sender, §4.2) or Interface A (a platform's job sender, §4.1). One run sends `--count N` new
// documents to $CAI_TARGET_URL, each delivered with the retry policy of §7/§8, and exits once every one is settled:
// 0 all accepted, 1 one refused (400, 401, 413 or another 4xx), 3 one given up, 2 a usage error.
//
// Choices of its own, all left open by the spec: a new connection per attempt unless told otherwise, HTTP/1.0 or
// pipelined HTTP/1.1 on request, header names in any case, chunked bodies in tiny chunks, jitter, a capped backoff,
// waiting max(Retry-After, own backoff), Expect: 100-continue, event_ids of 120 code points with astral characters,
// HTTP-dates parsed by hand in all three forms of RFC 9110 §5.6.7.
//
// `--fault NAME` makes it break one rule (FAULTS below); everything else stays correct.
import http from 'node:http';
import net from 'node:net';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** One plausible mistake each: the relation and clause of the spec it breaks (relations.md), and what it does. */
export const FAULTS = [
  {
    name: 'retries-after-200',
    interface: 'B',
    relation: 'S1',
    clause: '§6.5',
    description:
      'reads §4.2 as "202 means accepted": a 200 is taken for a failure and the event sent again with backoff',
  },
  {
    name: 'retries-on-duplicate',
    interface: 'B',
    relation: 'S1',
    clause: '§2.13',
    description:
      'takes the duplicate answer 202 {"ok":true,"duplicate":true} for "not recorded" and sends the event again until its retry period ends',
  },
  {
    name: 'renames-on-duplicate',
    interface: 'B',
    relation: 'S6',
    clause: '§6.1',
    description:
      'takes the duplicate answer for an id collision: mints a new event_id and sends the same event again under it',
  },
  {
    name: 'retries-401-resigned',
    interface: 'A',
    relation: 'S1',
    clause: '§7',
    description: 'takes a 401 for clock skew: signs again with a new timestamp and resends at once, twice',
  },
  {
    name: 'gives-up-after-second-5xx',
    interface: 'B',
    relation: 'S2',
    clause: '§7',
    description: 'a "max 2 attempts" setting: gives a document up after its second 5xx',
  },
  {
    name: 'fixed-pace',
    interface: 'A',
    relation: 'S2',
    clause: '§7',
    description: 'retries a 5xx or a cut every 1 s, never waiting longer: no exponential backoff',
  },
  {
    name: 'no-retry-on-cut',
    interface: 'B',
    relation: 'S2',
    clause: '§7',
    description: 'retries only answered 5xx: a connection cut before any answer gives the document up',
  },
  {
    name: 'ignores-retry-after',
    interface: 'B',
    relation: 'S3',
    clause: '§7',
    description: 'handles a 429 like a 5xx: retries after its own short backoff, whatever Retry-After says',
  },
  {
    name: 'retry-after-from-send',
    interface: 'B',
    relation: 'S3',
    clause: '§7',
    description: 'counts Retry-After from when the request was sent, not from the answer: a slow 429 is retried early',
  },
  {
    name: 'new-id-every-retry',
    interface: 'A',
    relation: 'S6',
    clause: '§2.2',
    description: 'builds each attempt afresh with a new event_id: every retry of every job (sent at once) is renamed',
  },
  {
    name: 'refreshes-occurred-at',
    interface: 'B',
    relation: 'S4',
    clause: '§6.1',
    description: 'stamps occurred_at with the time of each attempt: a retry carries a different document',
  },
  {
    name: 'replays-signature',
    interface: 'B',
    relation: 'S5',
    clause: '§5.5',
    description: "keeps the first attempt's X-CAI-Timestamp and X-CAI-Signature and replays them on every retry",
  },
  {
    name: 'content-length-in-chars',
    interface: 'B',
    relation: 'S7',
    clause: '§2',
    description:
      "sets Content-Length to the body's length in UTF-16 units, not bytes: a body with non-ASCII text arrives cut short",
  },
  {
    name: 'id-too-long',
    interface: 'B',
    relation: 'S7',
    clause: '§8',
    description: 'event_id "evt_" + a SHA-512 hex digest: 132 characters, over the 120 of §8',
  },
  {
    name: 'url-resolve-drops-path',
    interface: 'A',
    relation: 'S7',
    clause: '§4.1',
    description:
      'resolves "contact-jobs" against the endpoint as a relative URL: an endpoint with a path loses its last segment',
  },
  {
    name: 'hedges-slow-answer',
    interface: 'B',
    relation: 'S1',
    clause: '§7',
    description:
      'hedges: when an attempt has no answer after 300 ms it sends the same event again on another connection without waiting for it',
  },
  {
    name: 'id-from-lead-and-type',
    interface: 'B',
    relation: 'S6',
    clause: '§6.1',
    description: 'derives event_id from lead_id and the event type: two messages of one conversation share an id',
  },
  {
    name: 'content-type-twice',
    interface: 'A',
    relation: 'S7',
    clause: '§4.1',
    description:
      "appends its default headers to each request's own instead of merging them: every attempt carries two Content-Type fields, application/json both",
  },
  {
    name: 'retries-listed-5xx',
    interface: 'B',
    relation: 'S2',
    clause: '§7',
    description:
      'retries the statuses of a list, 500, 502, 503 and 504 (and cuts): any other 5xx, a 501, is taken as final and the document dropped',
  },
];

/** The 5xx the `retries-listed-5xx` fault retries: the ones its author had seen. */
const LISTED_5XX = [500, 502, 503, 504];

const USAGE =
  'node wild-sender.mjs --interface B|A --identity CODE [--count N] [--parallel K] [--retry-for MS] [--base-delay MS] [--max-delay MS] [--jitter F|full|decorrelated] [--jitter-seed N] [--wait-max] [--transport per-attempt|keep-alive|pipeline|http10] [--expect-continue] [--chunk-size BYTES] [--header-case canonical|lower|upper|mixed] [--types conversation|all] [--id-style uuid|unicode120] [--callback-url URL] [--secret-env NAME] [--timeout MS] [--fault NAME]';

class UsageError extends Error {}

const VALUE_OPTIONS = {
  interface: 'B',
  identity: process.env.CAI_IDENTITY ?? '',
  count: '1',
  parallel: '1',
  'retry-for': '60000',
  'base-delay': '150',
  'max-delay': '30000',
  jitter: '0',
  'jitter-seed': '0',
  transport: 'per-attempt',
  'chunk-size': '0',
  'header-case': 'canonical',
  types: 'conversation',
  'id-style': 'uuid',
  'callback-url': 'http://127.0.0.1:9/events',
  'secret-env': 'CAI_SECRET',
  timeout: '30000',
  fault: '',
};
const FLAG_OPTIONS = ['wait-max', 'expect-continue', 'list-faults'];

export function parseArgs(argv) {
  const o = { ...VALUE_OPTIONS };
  for (const f of FLAG_OPTIONS) o[f] = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(a)}`);
    const name = a.slice(2);
    if (FLAG_OPTIONS.includes(name)) {
      o[name] = true;
      continue;
    }
    if (!(name in VALUE_OPTIONS)) throw new UsageError(`unknown option --${name}`);
    if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
    o[name] = argv[++i];
  }
  const int = (name, min, max) => {
    const v = o[name];
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  const oneOf = (name, values) => {
    if (!values.includes(o[name]))
      throw new UsageError(`--${name} must be one of ${values.join(', ')}, got ${JSON.stringify(o[name])}`);
    return o[name];
  };
  // A fraction F draws each wait within ±F of the doubling one; `full` draws it from 0 to the doubling one (AWS's
  // "full jitter"), `decorrelated` between the base and three times the wait before (AWS's "decorrelated jitter"),
  // from a generator seeded by --jitter-seed when given (a run that draws the same waits every time).
  const jitter = ['full', 'decorrelated'].includes(o.jitter) ? o.jitter : Number(o.jitter);
  if (typeof jitter === 'number' && !(jitter >= 0 && jitter <= 0.9))
    throw new UsageError(
      `--jitter must be a fraction from 0 to 0.9, full or decorrelated, got ${JSON.stringify(o.jitter)}`,
    );
  if (o.fault && !FAULTS.some((f) => f.name === o.fault))
    throw new UsageError(`unknown fault ${JSON.stringify(o.fault)}`);
  const opts = {
    iface: oneOf('interface', ['A', 'B']),
    identity: o.identity,
    count: int('count', 1, 1000),
    parallel: int('parallel', 1, 1000),
    retryFor: int('retry-for', 0, 24 * 3600 * 1000), // §8: up to 24 hours
    baseDelay: int('base-delay', 1, 600000),
    maxDelay: int('max-delay', 1, 3600000),
    jitter,
    random: seeded(int('jitter-seed', 0, 2 ** 32 - 1)),
    waitMax: o['wait-max'],
    transport: oneOf('transport', ['per-attempt', 'keep-alive', 'pipeline', 'http10']),
    expectContinue: o['expect-continue'],
    chunkSize: int('chunk-size', 0, 1 << 20),
    headerCase: oneOf('header-case', ['canonical', 'lower', 'upper', 'mixed']),
    types: oneOf('types', ['conversation', 'all']),
    idStyle: oneOf('id-style', ['uuid', 'unicode120']),
    callbackUrl: o['callback-url'],
    secretEnv: o['secret-env'],
    timeout: int('timeout', 100, 600000),
    fault: o.fault,
    listFaults: o['list-faults'],
  };
  if (opts.listFaults) return opts;
  if (!opts.identity)
    throw new UsageError(
      '--identity is required (B: the provider code of X-CAI-Provider; A: the platform id of X-CAI-Source)',
    );
  if (/[\r\n]/.test(opts.identity)) throw new UsageError('--identity must be one line');
  if (!/^https?:\/\//.test(opts.callbackUrl)) throw new UsageError('--callback-url must be an http(s) URL');
  if (opts.transport === 'pipeline' && opts.expectContinue)
    throw new UsageError('--expect-continue needs a transport that waits for each answer');
  return opts;
}

// ---------------------------------------------------------------- documents (§2.2, §2.4–§2.7)

const EVENT_TYPES = [
  'conversation.message',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
  'job.closed',
];
const ORIGIN_CHANNELS = ['landing_form', 'contact_form', 'webchat', 'whatsapp_button', 'phone', 'referral']; // §2.8
const INTENTS = ['book_appointment', 'pricing_information', 'service_information', 'reschedule', 'follow_up', 'other']; // §2.9
const OUTCOMES = ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out']; // §2.12

function newEventId(opts, prefix) {
  if (opts.fault === 'id-too-long') return 'evt_' + createHash('sha512').update(randomUUID()).digest('hex');
  if (opts.idStyle === 'unicode120') {
    // §2.4/§8 count characters: 120 code points, half of them astral (two UTF-16 units each).
    const head = `évènement-${randomUUID()}-`;
    const fill = ['𝔈', 'ж', '🙂', 'ñ'];
    let id = head;
    for (let i = 0; [...id].length < 120; i++) id += fill[i % fill.length];
    return id;
  }
  return `${prefix}_${randomUUID()}`;
}

function eventType(opts, i) {
  if (opts.types === 'all') return EVENT_TYPES[i % EVENT_TYPES.length];
  // A conversation: messages, and when it has three documents or more, a closing outcome at the end.
  return opts.count >= 3 && i === opts.count - 1 ? 'job.closed' : 'conversation.message';
}

function buildEvent(opts, run, i) {
  const type = eventType(opts, i);
  const now = new Date();
  const base = { event: type, event_id: '', lead_id: run.leadId };
  let doc;
  if (type === 'conversation.message') {
    const inbound = i % 2 === 1;
    doc = {
      ...base,
      provider_job_id: run.providerJobId,
      channel: 'whatsapp',
      from_number_e164: '+5511940001234',
      direction: inbound ? 'inbound' : 'outbound',
      author: inbound ? 'contact' : 'agent',
      text: inbound
        ? `Olá, quero marcar para sexta às 10h ☕ (mensagem ${i + 1})`
        : `Bom dia! Aqui é a Ana — posso ajudar? 🙂 (mensagem ${i + 1})`,
      occurred_at: now.toISOString(),
    };
  } else if (type.startsWith('appointment.')) {
    const when = new Date(now.getTime() + (3 + i) * 86400000);
    when.setUTCHours(13, 30, 0, 0);
    doc = {
      ...base,
      branch_code: 'SP-CENTRO',
      scheduled_at: when.toISOString().replace('.000Z', 'Z'),
      service: 'Avaliação inicial',
      notes: `Documento ${i + 1}: trazer exames anteriores`,
      occurred_at: now.toISOString(),
    };
  } else {
    doc = { ...base, outcome: OUTCOMES[i % OUTCOMES.length], attempts: i + 1, occurred_at: now.toISOString() };
  }
  doc.event_id = opts.fault === 'id-from-lead-and-type' ? `${run.leadId}:${type}` : newEventId(opts, 'evt');
  return doc;
}

function buildJob(opts, run, i) {
  // One returning contact per run: each capture is its own lead and its own job (§2.2, §3).
  return {
    lead_id: `lead-${randomUUID()}`,
    event_id: newEventId(opts, 'job'),
    branch_code: 'SP-CENTRO',
    city: 'São Paulo',
    contact: { name: 'Zoë Ñúñez', phone_e164: '+5511987650000', email: 'zoe@example.com', language: 'pt-BR' },
    origin: {
      channel: ORIGIN_CHANNELS[i % ORIGIN_CHANNELS.length],
      source: 'https://clinica.example/contato',
      campaign: 'primavera',
      captured_at: new Date().toISOString(),
    },
    brief: { intent: INTENTS[i % INTENTS.length], notes: `Captura ${i + 1}: pediu avaliação e preço` },
    callback_url: opts.callbackUrl,
  };
}

// ---------------------------------------------------------------- signing (§5.2–§5.4)

const unixSeconds = () => Math.floor(Date.now() / 1000);

export function sign(secret, timestamp, body) {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

function headerName(opts, canonical) {
  switch (opts.headerCase) {
    case 'lower':
      return canonical.toLowerCase();
    case 'upper':
      return canonical.toUpperCase();
    case 'mixed':
      return [...canonical].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
    default:
      return canonical;
  }
}

// ---------------------------------------------------------------- Retry-After (§7: seconds or an HTTP-date)

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The three HTTP-date forms of RFC 9110 §5.6.7, parsed by hand: IMF-fixdate, obsolete RFC 850, asctime. */
export function parseHttpDate(text) {
  const t = text.trim();
  let m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(t);
  let day, mon, year, hh, mm, ss;
  if (m) [, day, mon, year, hh, mm, ss] = m;
  else if ((m = /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(t))) {
    [, day, mon, year, hh, mm, ss] = m;
    const yy = Number(year);
    // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
    const thisYear = new Date().getUTCFullYear();
    year = 2000 + yy > thisYear + 50 ? 1900 + yy : 2000 + yy;
  } else if ((m = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(t))) {
    [, mon, day, hh, mm, ss, year] = m;
  } else return null;
  const month = MONTHS.indexOf(mon.toLowerCase());
  if (month < 0) return null;
  const ms = Date.UTC(Number(year), month, Number(day.trim()), Number(hh), Number(mm), Number(ss));
  return Number.isFinite(ms) ? ms : null;
}

/** How long to wait from now, in ms, or null when the header is missing or unreadable. */
export function retryAfterMs(value, now = Date.now()) {
  if (value === undefined) return null;
  const v = String(value).trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = parseHttpDate(v);
  return at === null ? null : Math.max(0, at - now);
}

// ---------------------------------------------------------------- transports

function requestHeaders(opts, target, bytes, attemptNo, state) {
  let ts = unixSeconds();
  let sig = sign(opts.secret, ts, bytes);
  if (opts.fault === 'replays-signature') {
    state.firstSigned ??= { ts, sig };
    ({ ts, sig } = state.firstSigned);
  }
  const h = [
    ['Content-Type', 'application/json'],
    [opts.iface === 'B' ? 'X-CAI-Provider' : 'X-CAI-Source', opts.identity],
    ['X-CAI-Timestamp', String(ts)],
    ['X-CAI-Signature', sig],
  ];
  // Its default headers appended to the request's own: Content-Type a second time (RFC 9110 §5.3: a singleton).
  if (opts.fault === 'content-type-twice') h.push(['Content-Type', 'application/json']);
  return h.map(([k, v]) => [headerName(opts, k), v]);
}

/** node:http, a new connection per attempt (default) or one kept-alive connection for the whole run. */
function sendHttp(opts, target, bytes, headers, agent) {
  return new Promise((resolve) => {
    const url = new URL(target);
    const hdrs = {};
    // A name given twice goes out as two field lines (node:http writes each value of an array on its own line).
    for (const [k, v] of headers) hdrs[k] = k in hdrs ? [hdrs[k], v].flat() : v;
    const chunked = opts.chunkSize > 0;
    if (!chunked) {
      const len = opts.fault === 'content-length-in-chars' ? bytes.toString('utf8').length : bytes.length;
      hdrs[headerName(opts, 'Content-Length')] = String(len);
    }
    if (opts.expectContinue) hdrs[headerName(opts, 'Expect')] = '100-continue';
    let settled = false;
    const done = (r) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const req = http.request({
      host: url.hostname,
      port: url.port || 80,
      path: url.pathname + url.search,
      method: 'POST',
      headers: hdrs,
      agent,
      setHost: true,
    });
    const timer = setTimeout(() => {
      req.destroy(new Error('timed out'));
    }, opts.timeout);
    req.on('response', (res) => {
      // A final answer before 100 Continue: the body is not sent (RFC 9110 §10.1.1), the connection is dropped after it.
      const early = opts.expectContinue && !bodySent;
      bodySent = true;
      const chunks = [];
      let size = 0;
      res.on('data', (c) => {
        size += c.length;
        if (size <= 65536) chunks.push(c);
      });
      res.on('end', () => {
        done({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), answeredAt: Date.now() });
        if (early) req.destroy();
      });
      res.on('error', (e) => done({ cut: true, error: e.message }));
    });
    req.on('error', (e) => done({ cut: true, error: e.message }));
    let bodySent = false;
    const writeBody = () => {
      if (bodySent) return;
      bodySent = true;
      if (chunked) {
        for (let i = 0; i < bytes.length; i += opts.chunkSize) req.write(bytes.subarray(i, i + opts.chunkSize));
        req.end();
      } else req.end(bytes);
    };
    if (opts.expectContinue) {
      req.on('continue', writeBody);
      req.flushHeaders();
      // RFC 9110 §10.1.1: a client need not wait for 100 Continue forever.
      setTimeout(writeBody, 1000).unref();
    } else writeBody();
  });
}

/** A minimal HTTP/1.x response reader over a raw socket: answers in order, 1xx skipped, bodies by length, chunked or close. */
function responseReader(onResponse) {
  let buf = Buffer.alloc(0);
  let closed = false;
  const tryParse = () => {
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
      if (!m) throw new Error('malformed status line');
      const status = Number(m[1]);
      const headers = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let rest = buf.subarray(end + 4);
      let body;
      if (status < 200 || status === 204 || status === 304) body = Buffer.alloc(0);
      else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        const parts = [];
        let p = 0;
        for (;;) {
          const le = rest.indexOf('\r\n', p);
          if (le < 0) return;
          const size = parseInt(rest.subarray(p, le).toString('latin1'), 16);
          if (!Number.isFinite(size)) throw new Error('malformed chunk');
          if (size === 0) {
            // the last chunk, then trailer lines, then an empty line
            const q = le + 2;
            if (rest.length < q + 2) return;
            if (rest[q] === 13 && rest[q + 1] === 10) p = q + 2;
            else {
              const te = rest.indexOf('\r\n\r\n', q);
              if (te < 0) return;
              p = te + 4;
            }
            break;
          }
          if (rest.length < le + 2 + size + 2) return;
          parts.push(rest.subarray(le + 2, le + 2 + size));
          p = le + 2 + size + 2;
        }
        body = Buffer.concat(parts);
        rest = rest.subarray(p);
      } else if (headers['content-length'] !== undefined) {
        const n = Number(headers['content-length']);
        if (rest.length < n) return;
        body = rest.subarray(0, n);
        rest = rest.subarray(n);
      } else {
        if (!closed) return; // read to the end of the connection
        body = rest;
        rest = Buffer.alloc(0);
      }
      buf = rest;
      if (status >= 200) onResponse({ status, headers, body, answeredAt: Date.now() });
    }
  };
  return {
    push(chunk) {
      buf = Buffer.concat([buf, chunk]);
      tryParse();
    },
    close() {
      closed = true;
      tryParse();
    },
  };
}

/**
 * Raw-socket exchanges: HTTP/1.0 (one request, the answer read to its length or the close) or pipelined HTTP/1.1
 * (every request written at once on one kept-alive connection, the answers read in order). A request left without
 * an answer when the connection ends was cut.
 */
function sendRaw(opts, target, requests, version) {
  const url = new URL(target);
  return new Promise((resolve) => {
    const results = new Array(requests.length).fill(null);
    let next = 0;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(results.map((r) => r ?? { cut: true, error: 'no answer before the connection ended' }));
    };
    const reader = responseReader((r) => {
      if (next < results.length) results[next++] = r;
      if (next === results.length) finish();
    });
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 80) });
    const timer = setTimeout(finish, opts.timeout);
    socket.on('connect', () => {
      const out = [];
      requests.forEach(({ bytes, headers }, i) => {
        const last = i === requests.length - 1;
        const lines = [`POST ${url.pathname}${url.search} HTTP/${version}`, `${headerName(opts, 'Host')}: ${url.host}`];
        for (const [k, v] of headers) lines.push(`${k}: ${v}`);
        lines.push(`${headerName(opts, 'Content-Length')}: ${bytes.length}`);
        if (version === '1.1' && last) lines.push(`${headerName(opts, 'Connection')}: close`);
        out.push(Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), bytes);
      });
      socket.write(Buffer.concat(out));
    });
    socket.on('data', (c) => {
      try {
        reader.push(c);
      } catch {
        finish();
      }
    });
    socket.on('end', () => {
      try {
        reader.close();
      } catch {
        /* a malformed answer counts as none */
      }
      finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

// ---------------------------------------------------------------- one delivery (§7, §8)

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function isDuplicateAnswer(r) {
  try {
    return JSON.parse(r.body.toString('utf8'))?.duplicate === true;
  } catch {
    return false;
  }
}

function backoff(opts, failures, drawn) {
  if (opts.jitter === 'decorrelated') {
    // AWS's "decorrelated jitter": each wait drawn between the base and three times the one before, capped.
    const before = failures === 1 ? opts.baseDelay : drawn.before;
    drawn.before = Math.min(opts.maxDelay, opts.baseDelay + opts.random() * (3 * before - opts.baseDelay));
    return Math.round(drawn.before);
  }
  let d = Math.min(opts.maxDelay, opts.baseDelay * 2 ** Math.min(failures - 1, 30));
  if (opts.jitter === 'full') d *= opts.random();
  else if (opts.jitter > 0) d *= 1 - opts.jitter + 2 * opts.jitter * opts.random();
  return Math.round(d);
}

/** Math.random, or for a seed other than 0 the mulberry32 generator from it: the same draws on every run. */
function seeded(seed) {
  if (seed === 0) return Math.random;
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Classify an answer: 'accepted' (any 2xx, §6.5), 'refused' (400/401/413 and other 4xx), 'rate' (429), 'retry' (5xx, cut). */
function classify(opts, r) {
  if (r.cut) return opts.fault === 'no-retry-on-cut' ? 'given-up' : 'retry';
  const s = r.status;
  if (s >= 200 && s < 300) {
    if (opts.fault === 'retries-after-200' && s === 200) return 'retry';
    if ((opts.fault === 'retries-on-duplicate' || opts.fault === 'renames-on-duplicate') && isDuplicateAnswer(r))
      return opts.fault === 'retries-on-duplicate' ? 'retry' : 'rename';
    return 'accepted';
  }
  if (s === 429) return 'rate';
  if (s >= 500) return opts.fault === 'retries-listed-5xx' && !LISTED_5XX.includes(s) ? 'given-up' : 'retry';
  if (s === 401 && opts.fault === 'retries-401-resigned') return 'resign';
  return 'refused'; // 400, 401, 413 (§7: do not retry) and any other status: not retried
}

async function deliver(opts, ctx, doc, log) {
  let bytes = Buffer.from(JSON.stringify(doc), 'utf8');
  const state = {};
  const first = Date.now();
  let failures = 0;
  let renames = 0;
  let resigns = 0;
  let attemptNo = 0;
  const drawn = {};
  const send = async () => {
    attemptNo++;
    const headers = requestHeaders(opts, ctx.target, bytes, attemptNo, state);
    const sentAt = Date.now();
    if (opts.transport === 'pipeline' && attemptNo === 1)
      return { ...(await ctx.pipeline.add(bytes, headers)), sentAt };
    if (opts.transport === 'http10')
      return { ...(await sendRaw(opts, ctx.target, [{ bytes, headers }], '1.0'))[0], sentAt };
    if (opts.fault === 'hedges-slow-answer') {
      const firstTry = sendHttp(opts, ctx.target, bytes, headers, ctx.agent);
      const early = await Promise.race([firstTry, sleep(300).then(() => null)]);
      if (early) return { ...early, sentAt };
      const hedge = sendHttp(
        opts,
        ctx.target,
        bytes,
        requestHeaders(opts, ctx.target, bytes, attemptNo, state),
        ctx.agent,
      );
      return { ...(await Promise.race([firstTry, hedge])), sentAt };
    }
    return { ...(await sendHttp(opts, ctx.target, bytes, headers, ctx.agent)), sentAt };
  };
  for (;;) {
    const r = await send();
    const verdict = classify(opts, r);
    log(`${doc.event_id}: attempt ${attemptNo} → ${r.cut ? `cut (${r.error})` : r.status}`);
    if (verdict === 'accepted') return 'accepted';
    if (verdict === 'refused') return 'refused';
    if (verdict === 'given-up') return 'given-up';
    if (verdict === 'resign') {
      if (++resigns > 2) return 'refused';
      continue; // signed afresh at once
    }
    if (verdict === 'rename') {
      if (++renames > 3) return 'given-up';
      doc.event_id = newEventId(opts, opts.iface === 'B' ? 'evt' : 'job');
      bytes = Buffer.from(JSON.stringify(doc), 'utf8');
      continue;
    }
    const remaining = opts.retryFor - (Date.now() - first);
    if (remaining <= 0) return 'given-up';
    let wait;
    failures++;
    const own = backoff(opts, failures, drawn);
    if (verdict === 'rate') {
      const ra = retryAfterMs(r.headers['retry-after'], Date.now());
      if (ra === null || opts.fault === 'ignores-retry-after') wait = Math.min(own, remaining);
      else {
        const notBefore = opts.fault === 'retry-after-from-send' ? Math.max(0, ra - (r.answeredAt - r.sentAt)) : ra;
        // Never before Retry-After (§7): a wait past the retry period gives the document up instead.
        if (notBefore > remaining) return 'given-up';
        // 20 ms more: a timer may fire a little early, and an HTTP-date has whole seconds.
        wait = (opts.waitMax ? Math.max(notBefore, Math.min(own, remaining)) : notBefore) + 20;
      }
    } else {
      if (opts.fault === 'gives-up-after-second-5xx' && failures >= 2) return 'given-up';
      wait = Math.min(opts.fault === 'fixed-pace' ? 1000 : own, remaining);
    }
    await sleep(wait);
    if (opts.fault === 'new-id-every-retry') doc.event_id = newEventId(opts, opts.iface === 'B' ? 'evt' : 'job');
    if (opts.fault === 'refreshes-occurred-at' && 'occurred_at' in doc) doc.occurred_at = new Date().toISOString();
    if (opts.fault === 'new-id-every-retry' || opts.fault === 'refreshes-occurred-at')
      bytes = Buffer.from(JSON.stringify(doc), 'utf8');
  }
}

/** Collects the first attempts of every document and writes them all at once, pipelined on one connection. */
function pipelineBatch(opts, target, expected) {
  const queue = [];
  return {
    add(bytes, headers) {
      return new Promise((resolve) => {
        queue.push({ bytes, headers, resolve });
        if (queue.length === expected) {
          const batch = queue.splice(0);
          sendRaw(opts, target, batch, '1.1').then((results) => results.forEach((r, i) => batch[i].resolve(r)));
        }
      });
    },
  };
}

export async function run(argv, env, io) {
  let opts;
  try {
    opts = parseArgs(argv);
    if (opts.listFaults) {
      io.out(JSON.stringify(FAULTS, null, 2));
      return 0;
    }
    opts.secret = env[opts.secretEnv];
    if (!opts.secret)
      throw new UsageError(`$${opts.secretEnv} is empty: the signing secret comes from the environment (§5.1)`);
    const base = env.CAI_TARGET_URL;
    if (!base || !/^http:\/\//.test(base)) throw new UsageError('$CAI_TARGET_URL must be an http:// URL');
    const u = new URL(base);
    if (u.hostname !== '127.0.0.1' && u.hostname !== 'localhost')
      throw new UsageError('this test sender talks to 127.0.0.1 only');
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}`);
      io.err(`hint: ${USAGE}`);
      return 2;
    }
    throw e;
  }
  const base = env.CAI_TARGET_URL;
  let target;
  if (opts.iface === 'B')
    target = base; // §4.2: the events URL itself
  else if (opts.fault === 'url-resolve-drops-path') target = new URL('contact-jobs', base).href;
  else target = base.replace(/\/+$/, '') + '/contact-jobs'; // §4.1: {provider_endpoint}/contact-jobs

  const run = { leadId: `lead-${randomUUID()}`, providerJobId: `pj-${randomUUID().slice(0, 13)}` };
  const docs = [];
  for (let i = 0; i < opts.count; i++)
    docs.push(opts.iface === 'B' ? buildEvent(opts, run, i) : buildJob(opts, run, i));
  const atOnce = opts.transport === 'pipeline' ? opts.count : opts.parallel;
  const ctx = {
    target,
    agent: opts.transport === 'keep-alive' ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false,
    pipeline: opts.transport === 'pipeline' ? pipelineBatch(opts, target, opts.count) : null,
  };
  const outcomes = new Array(docs.length);
  let nextDoc = 0;
  const worker = async () => {
    while (nextDoc < docs.length) {
      const i = nextDoc++;
      outcomes[i] = await deliver(opts, ctx, docs[i], io.err);
      io.out(`${outcomes[i]} ${JSON.stringify(docs[i].event_id)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, docs.length) }, worker));
  if (ctx.agent) ctx.agent.destroy();
  if (outcomes.includes('given-up')) return 3;
  if (outcomes.includes('refused')) return 1;
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const code = await run(process.argv.slice(2), process.env, {
    out: (s) => process.stdout.write(s + '\n'),
    err: (s) => process.stderr.write(s + '\n'),
  });
  process.exitCode = code;
}
