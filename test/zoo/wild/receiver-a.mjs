#!/usr/bin/env node
// An Interface A provider (the contact-jobs endpoint and the events it sends back), written from
// interface-spec-v1.0 alone, with node: built-ins only.
//
// It binds 127.0.0.1, prints its endpoint as the first stdout line, then `job "<event_id>" <provider_job_id>`
// for each new job, and serves until SIGTERM. The jobs secret comes from CAI_SECRET, the events secret from
// CAI_CALLBACK_SECRET (§5.1: one secret per direction), the platform id it accepts from --source and the code
// it puts on its events from --provider.
//
// For each new job it holds a conversation: --messages N conversation.message events, then an ending
// (--ending booked | closed | booked-rescheduled), --pace MS apart, each delivered to the job's callback_url
// with the retry policy of §7: a 5xx or a network failure retried with growing waits, a 429 after its
// Retry-After (seconds or HTTP-date), any other status final; every attempt signed afresh over the same bytes.
// Callbacks go to loopback addresses only (a zoo program talks to this machine alone).
//
// --fault NAME makes it commit exactly one mistake; FAULTS is the table.
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

export const FAULTS = {
  // RA1: a valid, authentic job not acknowledged as §2.3/§4.1 say
  'ack-text-plain': { relation: 'RA1', clause: '§4.1', description: 'labels the 202 acknowledgment text/plain' },
  'ack-job-id-number': {
    relation: 'RA1',
    clause: '§2.3',
    description: 'numbers its jobs with a counter and sends provider_job_id as a JSON number (on its events too)',
  },
  'language-strict': {
    relation: 'RA1',
    clause: '§2.1, §2.2',
    description: 'takes BCP 47 for ll or ll-CC: contact.language zh-Hant-TW, es-419 or sgn-BE-FR is refused 400',
  },
  'channel-enum-b': {
    relation: 'RA1',
    clause: '§2.8',
    description: "checks origin.channel against Interface B's channel enumeration (§2.10): landing_form is refused",
  },
  'body-string-concat': {
    relation: 'RA1',
    clause: '§5.2',
    description:
      'collects the body as a string chunk by chunk: a multibyte character split between two reads is replaced, ' +
      'and the signature fails (401)',
  },
  // RA2: a repeated event_id not ignored
  'repeat-409': { relation: 'RA2', clause: '§2.2', description: 'answers a repeated event_id 409 Conflict' },
  'repeat-reassigns-number': {
    relation: 'RA2',
    clause: '§2.2, §2.3',
    description:
      'picks the origin number from a pool in turn for every answer: the repeat carries the same provider_job_id ' +
      'but another assigned_number_e164',
  },
  'dedupe-by-lead-and-id': {
    relation: 'RA2',
    clause: '§2.2',
    description:
      'keys its jobs on (lead_id, event_id): a repeat with another lead_id is a new job and a second conversation',
  },
  'dedupe-race': {
    relation: 'RA2',
    clause: '§2.2',
    description:
      'looks the event_id up, awaits the allocation of a number, then stores the job: concurrent repeats ' +
      'each become a job with its own conversation',
  },
  // RA3: distinct ids taken for one
  'dedupe-on-lead': {
    relation: 'RA3',
    clause: '§2.2',
    description: 'keys its jobs on lead_id: a second job (a new event_id) for the same lead is answered as a repeat',
  },
  'dedupe-plain-object': {
    relation: 'RA3',
    clause: '§2.2',
    description:
      'keeps its jobs in a plain object: an event_id such as "constructor" or "toString" is found there, ' +
      'answered as a repeat with an empty acknowledgment and never handled',
  },
  // RA4: authentication
  'source-optional': {
    relation: 'RA4',
    clause: '§4.1',
    description: 'checks X-CAI-Source only when present: a job without it is accepted',
  },
  'repeat-before-auth': {
    relation: 'RA4',
    clause: '§5, §2.2',
    description:
      'answers a repeated event_id from its memory before verifying: a repeat with a wrong signature gets the 202 acknowledgment',
  },
  // RA5: schema
  'contact-null-500': {
    relation: 'RA5',
    clause: '§2.2',
    description: 'reads contact.name before checking contact is an object: "contact": null is answered 500',
  },
  'callback-url-optional': {
    relation: 'RA5',
    clause: '§2.2',
    description: 'does not require callback_url: a job without one is acknowledged 202 (and its events go nowhere)',
  },
  'intent-unchecked': {
    relation: 'RA5',
    clause: '§2.9',
    description: 'does not check brief.intent against §2.9: "buy_now" is accepted',
  },
  'date-time-date-parse': {
    relation: 'RA5',
    clause: '§2.1',
    description: 'checks origin.captured_at with Date.parse: "2024-05-01" or "May 1, 2024 10:00" is accepted',
  },
  // RA7: no trace
  'reserve-not-released': {
    relation: 'RA7',
    clause: '§2.2',
    description:
      'reserves the event_id before validating the job and keeps the reservation when it refuses it: the same ' +
      'event_id sent next, valid, is answered as a repeat and never handled',
  },
  'stale-job-recorded': {
    relation: 'RA7',
    clause: '§5.5',
    description:
      'stores the job once the signature verifies, then judges the window: a stale job is refused 401 but the ' +
      'fresh one with its event_id is taken for a repeat',
  },
  // RA8: the events it sends back
  'callback-lead-truncated-64': {
    relation: 'RA8',
    clause: '§2.2, §2.4',
    description: 'stores lead_id in 64 characters: a longer lead_id comes back cut on every event',
  },
  'callback-job-id-mismatch': {
    relation: 'RA8',
    clause: '§2.3, §2.4',
    description: 'puts its internal job UUID in provider_job_id on events, not the provider_job_id it acknowledged',
  },
  'callback-timestamp-ms': {
    relation: 'RA8',
    clause: '§4.2, §5.4',
    description: 'signs its events with X-CAI-Timestamp in milliseconds (Date.now())',
  },
  'callback-timestamp-from-job': {
    relation: 'RA8',
    clause: '§5.4, §5.5',
    description:
      "signs its events with the job's X-CAI-Timestamp (kept on the job's record), not the time it sends them",
  },
  'callback-signs-without-newline': {
    relation: 'RA8',
    clause: '§5.2',
    description: 'sends each event with a trailing newline but signs the JSON without it',
  },
  'callback-event-id-per-lead': {
    relation: 'RA8',
    clause: '§6.1',
    description:
      'names its events lead_id:1, lead_id:2... in each conversation: a second job for the same lead sends ' +
      'events with the ids of the first conversation',
  },
  'callback-event-id-from-job-id': {
    relation: 'RA8',
    clause: '§2.4, §8',
    description:
      "derives event_ids from the job's event_id plus a suffix: a long job id gives event_ids over 120 characters",
  },
  'callback-no-content-type': {
    relation: 'RA8',
    clause: '§2, §4.2',
    description: 'posts its events without a Content-Type header',
  },
  'callback-retry-fixed-delay': {
    relation: 'RA8',
    clause: '§7, §8',
    description: 'retries a 5xx after the same wait every time (no exponential backoff)',
  },
  'callback-retry-after-seconds-only': {
    relation: 'RA8',
    clause: '§7',
    description: 'reads Retry-After as seconds only: after a 429 with an HTTP-date it retries after its own short wait',
  },
  'callback-retry-new-occurred-at': {
    relation: 'RA8',
    clause: '§6.1, §7',
    description: 'rebuilds the event for every attempt: a retry keeps its event_id but carries a new occurred_at',
  },
  'callback-retry-gateway-only': {
    relation: 'RA8',
    clause: '§7',
    description:
      "retries only a gateway's 502, 503 or 504: any other 5xx (a 500) is taken as final and the event dropped",
  },
  'callback-only-202-success': {
    relation: 'RA8',
    clause: '§6.5',
    description:
      'takes only a 202 for an accepted event: a 200, 201 or 204 is taken as a failure and the event sent again ' +
      'with backoff',
  },
  'callback-abandon-after-retry': {
    relation: 'RA8',
    clause: '§3, §7',
    description:
      'takes an event that needed a retry for a stale conversation: once it is delivered, the conversation stops ' +
      'with no ending',
  },
  'callback-closed-attempts-string': {
    relation: 'RA8',
    clause: '§2.7',
    description:
      'ends a job whose brief.intent is pricing_information or other with job.closed, its attempts a string ("1")',
  },
  'callback-signs-once': {
    relation: 'RA8',
    clause: '§5.5, §7',
    description:
      "signs each event once: every retry carries the first attempt's timestamp and signature (stale after 300 s)",
  },
  'callback-breaker-after-refusal': {
    relation: 'RA8',
    clause: '§7, §3',
    description:
      'after one refused event (a 4xx), sends nothing more to that callback host: every later conversation is silent',
  },
  'callback-lead-numeric': {
    relation: 'RA8',
    clause: '§2.2, §2.4',
    description:
      'keeps an all-digit lead_id as a number: it comes back without its leading zeros, and past 2^53 with other digits',
  },
  'callback-drops-query': {
    relation: 'RA8',
    clause: '§2.2, §4.2',
    description: "posts its events to callback_url's scheme, host and path: a query in it (?tenant=...) is dropped",
  },
  'callback-no-retry-network': {
    relation: 'RA8',
    clause: '§8',
    description: 'takes a connection error (reset, refused, timed out) as final: only HTTP statuses are retried',
  },
};

const LIMIT = 512 * 1024; // own bound for a job (§4.1 gives none): over it, 413
const WINDOW = 300; // §5.5
const ORIGIN_CHANNELS = ['landing_form', 'contact_form', 'webchat', 'whatsapp_button', 'phone', 'referral']; // §2.8
const B_CHANNELS = ['whatsapp', 'webchat', 'sms', 'phone', 'email']; // §2.10
const INTENTS = ['book_appointment', 'pricing_information', 'service_information', 'reschedule', 'follow_up', 'other']; // §2.9
const E164 = /^\+[1-9][0-9]{1,14}$/;
const DATE_TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:[.,][0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/;
const TIMESTAMP = /^[0-9]{1,15}$/;
const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

// BCP 47 (RFC 5646): langtag, private use, or a grandfathered tag; case-insensitive.
const ALNUM = '[a-z0-9]';
const LANGTAG =
  '(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})' + // language (with extlang)
  '(?:-[a-z]{4})?' + // script
  '(?:-(?:[a-z]{2}|[0-9]{3}))?' + // region
  `(?:-(?:${ALNUM}{5,8}|[0-9]${ALNUM}{3}))*` + // variants
  `(?:-[0-9a-wy-z](?:-${ALNUM}{2,8})+)*` + // extensions
  `(?:-x(?:-${ALNUM}{1,8})+)?`; // private use
const BCP47 = new RegExp(`^(?:${LANGTAG}|x(?:-${ALNUM}{1,8})+)$`, 'i');
const GRANDFATHERED = new Set(
  [
    'en-GB-oed',
    'i-ami',
    'i-bnn',
    'i-default',
    'i-enochian',
    'i-hak',
    'i-klingon',
    'i-lux',
    'i-mingo',
    'i-navajo',
    'i-pwn',
    'i-tao',
    'i-tay',
    'i-tsu',
    'sgn-BE-FR',
    'sgn-BE-NL',
    'sgn-CH-DE',
    'art-lojban',
    'cel-gaulish',
    'no-bok',
    'no-nyn',
    'zh-guoyu',
    'zh-hakka',
    'zh-min',
    'zh-min-nan',
    'zh-xiang',
  ].map((t) => t.toLowerCase()),
);

class Refused extends Error {
  constructor(kind, status, message) {
    super(message);
    this.kind = kind; // 'auth' | 'schema' | 'size' | 'other'
    this.status = status;
  }
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

function daysIn(year, month) {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function validDateTime(v) {
  if (typeof v !== 'string') return false;
  const m = DATE_TIME.exec(v);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[7] !== 'Z' && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

export function validLanguage(v, fault) {
  if (typeof v !== 'string') return false;
  if (fault === 'language-strict') return /^[a-z]{2}(-[A-Z]{2})?$/.test(v);
  return BCP47.test(v) || GRANDFATHERED.has(v.toLowerCase());
}

function validCallbackUrl(v) {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

// §2.2: what a job must be. Unknown fields anywhere are ignored (§9.2).
export function validateJob(job, fault) {
  const bad = (message) => {
    throw new Refused('schema', 400, message);
  };
  if (!isObject(job)) bad('the body is not a JSON object');
  if (typeof job.lead_id !== 'string') bad('lead_id must be a string');
  if (typeof job.event_id !== 'string' || job.event_id.length === 0) bad('event_id must be a non-empty string');
  if (typeof job.branch_code !== 'string') bad('branch_code must be a string');
  if ('city' in job && typeof job.city !== 'string') bad('city must be a string');
  if (fault === 'contact-null-500') {
    if (typeof job.contact.name !== 'string') bad('contact.name must be a string'); // reads before checking
  }
  if (!isObject(job.contact)) bad('contact must be an object');
  const c = job.contact;
  if (typeof c.name !== 'string') bad('contact.name must be a string');
  if (typeof c.phone_e164 !== 'string' || !E164.test(c.phone_e164)) bad('contact.phone_e164 must be E.164');
  if ('email' in c && typeof c.email !== 'string') bad('contact.email must be a string');
  if ('language' in c && !validLanguage(c.language, fault)) bad('contact.language must be a BCP 47 tag');
  if ('origin' in job) {
    const o = job.origin;
    if (!isObject(o)) bad('origin must be an object');
    const channels = fault === 'channel-enum-b' ? B_CHANNELS : ORIGIN_CHANNELS;
    if ('channel' in o && !channels.includes(o.channel)) bad('origin.channel is not a value of §2.8');
    if ('source' in o && typeof o.source !== 'string') bad('origin.source must be a string');
    if ('campaign' in o && typeof o.campaign !== 'string') bad('origin.campaign must be a string');
    if ('captured_at' in o) {
      const ok =
        fault === 'date-time-date-parse'
          ? typeof o.captured_at === 'string' && !Number.isNaN(Date.parse(o.captured_at))
          : validDateTime(o.captured_at);
      if (!ok) bad('origin.captured_at must be ISO 8601 with an offset');
    }
  }
  if ('brief' in job) {
    const b = job.brief;
    if (!isObject(b)) bad('brief must be an object');
    if ('intent' in b && fault !== 'intent-unchecked' && !INTENTS.includes(b.intent))
      bad('brief.intent is not a value of §2.9');
    if ('notes' in b && typeof b.notes !== 'string') bad('brief.notes must be a string');
  }
  if (fault === 'callback-url-optional' && !('callback_url' in job)) return;
  if (!validCallbackUrl(job.callback_url)) bad('callback_url must be an http(s) URL');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const sign = (secret, ts, body) =>
  'sha256=' +
  crypto
    .createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${ts}.`), body]))
    .digest('hex');
const quote = (s) =>
  JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));

function isLoopback(url) {
  const h = new URL(url).hostname;
  return h === 'localhost' || h === '[::1]' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function numberFor(branch, turn = 0) {
  // §2.3, §3 step 4: the origin number of the unit (one per branch_code; a pool of three per unit)
  const digest = crypto.createHash('sha256').update(`${branch}#${turn}`).digest();
  return '+1555' + String(digest.readUInt32BE(0) % 10_000_000).padStart(7, '0');
}

export function createProvider(opts) {
  const fault = opts.fault ?? null;
  const jobs = fault === 'dedupe-plain-object' ? {} : new Map();
  const lookup = (key) => (fault === 'dedupe-plain-object' ? jobs[key] : jobs.get(key));
  const store = (key, rec) => (fault === 'dedupe-plain-object' ? (jobs[key] = rec) : jobs.set(key, rec));
  const forget = (key) => (fault === 'dedupe-plain-object' ? delete jobs[key] : jobs.delete(key));
  let counter = 0;
  let answers = 0;
  let stopping = false;
  const trippedHosts = new Set(); // callback-breaker-after-refusal: hosts that refused an event
  const agent = opts.keepAliveCallbacks ? new http.Agent({ keepAlive: true, maxSockets: 4 }) : false;
  const secureAgent = opts.keepAliveCallbacks ? new https.Agent({ keepAlive: true, maxSockets: 4 }) : false;

  const keyOf = (job) => {
    if (fault === 'dedupe-by-lead-and-id') return `${job.lead_id}\u0000${job.event_id}`;
    if (fault === 'dedupe-on-lead') return job.lead_id;
    return job.event_id;
  };

  function newRecord(job, number) {
    counter += 1;
    const id = fault === 'ack-job-id-number' ? counter : `pj_${counter}_${crypto.randomBytes(6).toString('hex')}`;
    return {
      providerJobId: id,
      internalId: crypto.randomUUID(),
      number: number ?? numberFor(job.branch_code),
      job,
    };
  }

  function ackBody(rec, repeat) {
    answers += 1;
    // the fault: a repeat is answered with the next number of the unit's pool, not the one the job was given
    const number =
      fault === 'repeat-reassigns-number' && repeat ? numberFor(rec.job.branch_code, answers % 3 || 3) : rec.number;
    const body = { provider_job_id: rec.providerJobId, assigned_number_e164: number };
    if (opts.ackExtra) {
      body.status = 'accepted';
      body.received_at = new Date().toISOString();
      body.branch_code = rec.job.branch_code;
    }
    return body;
  }

  // ---- answers ------------------------------------------------------------------------------------------

  function answer(res, status, body, type) {
    const headers = {};
    if (body !== null) headers['Content-Type'] = type;
    if (opts.close) headers.Connection = 'close';
    const buf = body === null ? Buffer.alloc(0) : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    if (!opts.chunkedAnswers) headers['Content-Length'] = String(buf.length);
    res.writeHead(status, headers);
    if (opts.chunkedAnswers && buf.length > 1) {
      res.write(buf.subarray(0, buf.length >> 1));
      res.end(buf.subarray(buf.length >> 1));
    } else res.end(buf);
  }

  const jsonType = () => (opts.charset ? 'application/json; charset=utf-8' : 'application/json');

  function answerAck(res, rec, repeat = false) {
    const type = fault === 'ack-text-plain' ? 'text/plain' : jsonType();
    answer(res, 202, ackBody(rec, repeat), type);
  }

  function answerError(res, err) {
    let status = err.status;
    if (err.kind === 'auth') status = opts.authStatus;
    if (err.kind === 'schema') status = opts.schemaStatus;
    const style = opts.errors;
    if (style === 'problem') {
      answer(
        res,
        status,
        { type: 'about:blank', title: http.STATUS_CODES[status] ?? 'Error', status, detail: err.message },
        'application/problem+json',
      );
    } else if (style === 'text') answer(res, status, `${status} ${err.message}\n`, 'text/plain; charset=utf-8');
    else if (style === 'empty') answer(res, status, null);
    else answer(res, status, { error: { status, message: err.message } }, jsonType());
  }

  // ---- the body ------------------------------------------------------------------------------------------

  function readBody(req) {
    return new Promise((resolve, reject) => {
      const parts = [];
      let kept = 0;
      let size = 0;
      let text = '';
      req.on('data', (chunk) => {
        size += chunk.length; // past the limit it reads on and keeps nothing, so that the 413 is read
        if (fault === 'body-string-concat') {
          if (size <= LIMIT) text += chunk; // the mistake: each chunk decoded on its own
          return;
        }
        if (kept <= LIMIT) {
          parts.push(chunk);
          kept += chunk.length;
        }
      });
      req.on('end', () =>
        resolve({ raw: fault === 'body-string-concat' ? Buffer.from(text) : Buffer.concat(parts), size }),
      );
      req.on('error', reject);
    });
  }

  // ---- checks ---------------------------------------------------------------------------------------------

  function checkHeaders(req) {
    const auth = (m) => new Refused('auth', 401, m);
    const source = req.headers['x-cai-source'];
    if (!(source === undefined && fault === 'source-optional') && source !== opts.source) throw auth('unknown source');
    const stamp = req.headers['x-cai-timestamp'];
    if (typeof stamp !== 'string' || !TIMESTAMP.test(stamp)) throw auth('missing or malformed timestamp');
    return stamp;
  }

  function checkWindow(stamp) {
    if (Math.abs(Math.floor(Date.now() / 1000) - Number(stamp)) > WINDOW)
      throw new Refused('auth', 401, 'timestamp outside the window');
  }

  function checkSignature(req, stamp, raw) {
    const given = req.headers['x-cai-signature'];
    if (typeof given !== 'string' || !SIGNATURE.test(given))
      throw new Refused('auth', 401, 'missing or malformed signature');
    const expected = Buffer.from(sign(opts.jobsSecret, stamp, raw));
    if (!crypto.timingSafeEqual(expected, Buffer.from(given))) throw new Refused('auth', 401, 'wrong signature');
  }

  function parse(raw) {
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
    } catch {
      throw new Refused('schema', 400, 'the body is not JSON in UTF-8');
    }
  }

  // ---- the request ----------------------------------------------------------------------------------------

  async function handle(req, res) {
    const path = new URL(req.url, 'http://x').pathname;
    const { raw, size } = await readBody(req);
    if (path !== '/contact-jobs') throw new Refused('other', 404, 'no such endpoint');
    if (req.method !== 'POST') throw new Refused('other', 405, 'only POST');
    if (size > LIMIT) throw new Refused('size', 413, 'job over 512 KiB');
    if (fault === 'repeat-before-auth') {
      let peek = null;
      try {
        peek = JSON.parse(raw.toString('utf8'));
      } catch {}
      const rec = isObject(peek) && typeof peek.event_id === 'string' ? lookup(keyOf(peek)) : undefined;
      if (rec) return answerAck(res, rec, true);
    }
    const stamp = checkHeaders(req);
    if (fault !== 'stale-job-recorded') checkWindow(stamp);
    checkSignature(req, stamp, raw);
    const job = parse(raw);
    if (fault === 'reserve-not-released' && isObject(job) && typeof job.event_id === 'string' && !lookup(keyOf(job))) {
      store(keyOf(job), newRecord(job)); // reserved so that a concurrent repeat finds it; never released
      validateJob(job, fault);
      const rec = lookup(keyOf(job));
      rec.job = job;
      return accept(res, rec);
    }
    validateJob(job, fault);
    const key = keyOf(job);
    const known = lookup(key);
    if (known) {
      if (fault === 'repeat-409') return answerError(res, new Refused('other', 409, 'this job was already received'));
      return answerAck(res, known, true); // §2.2: ignored; the same acknowledgment
    }
    if (fault === 'dedupe-race') {
      const number = await allocateNumber(job.branch_code);
      const rec = newRecord(job, number);
      store(key, rec);
      return accept(res, rec);
    }
    const rec = newRecord(job);
    rec.stamp = stamp;
    store(key, rec);
    if (fault === 'stale-job-recorded') checkWindow(stamp);
    accept(res, rec);
  }

  async function allocateNumber(branch) {
    await sleep(30); // the number pool's round trip
    return numberFor(branch);
  }

  function accept(res, rec) {
    process.stdout.write(`job ${quote(rec.job.event_id)} ${rec.providerJobId}\n`);
    answerAck(res, rec);
    if (!opts.noCallbacks && typeof rec.job.callback_url === 'string') {
      setTimeout(
        () => converse(rec).catch((e) => process.stderr.write(`conversation failed: ${e.message}\n`)),
        opts.firstDelay,
      );
    }
  }

  // ---- the conversation (§3 steps 4-5, §6) ----------------------------------------------------------------

  function eventId(rec, seq) {
    if (fault === 'callback-event-id-per-lead') return `${rec.job.lead_id}:${seq}`;
    if (fault === 'callback-event-id-from-job-id') return `${rec.job.event_id}/${seq}`;
    return `evt_${crypto.randomUUID()}`;
  }

  function plan(rec) {
    const job = rec.job;
    const lead =
      fault === 'callback-lead-truncated-64'
        ? job.lead_id.slice(0, 64)
        : fault === 'callback-lead-numeric' && /^[0-9]+$/.test(job.lead_id)
          ? String(Number(job.lead_id))
          : job.lead_id;
    const pjid = fault === 'callback-job-id-mismatch' ? rec.internalId : rec.providerJobId;
    const name = typeof job.contact?.name === 'string' ? job.contact.name : '';
    const steps = [];
    for (let i = 0; i < opts.messages; i += 1) {
      const outbound = i % 2 === 0;
      steps.push(() => ({
        event: 'conversation.message',
        lead_id: lead,
        provider_job_id: pjid,
        channel: 'whatsapp',
        from_number_e164: rec.number,
        direction: outbound ? 'outbound' : 'inbound',
        author: outbound ? 'agent' : 'contact',
        text: outbound
          ? i === 0
            ? `Olá ${name}! 👋 Vi o seu pedido. Quando lhe dá jeito?`
            : 'Tenho vaga amanhã às 10h.'
          : 'Amanhã de manhã, obrigado.',
      }));
    }
    const when = (days) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const appointment = (event, days) => () => ({
      event,
      lead_id: lead,
      provider_job_id: pjid,
      branch_code: job.branch_code,
      scheduled_at: when(days),
      service: 'consultation',
      notes: event === 'appointment.booked' ? 'Booked in the conversation.' : "Moved at the contact's request.",
    });
    const closing =
      fault === 'callback-closed-attempts-string' && ['pricing_information', 'other'].includes(job.brief?.intent);
    if (closing) {
      steps.push(() => ({
        event: 'job.closed',
        lead_id: lead,
        provider_job_id: pjid,
        outcome: 'callback_later',
        attempts: '1',
      }));
    } else if (opts.ending === 'closed') {
      steps.push(() => ({
        event: 'job.closed',
        lead_id: lead,
        provider_job_id: pjid,
        outcome: 'callback_later',
        attempts: Math.max(1, Math.ceil(opts.messages / 2)),
      }));
    } else {
      steps.push(appointment('appointment.booked', 1));
      if (opts.ending === 'booked-rescheduled') steps.push(appointment('appointment.rescheduled', 2));
    }
    return steps;
  }

  async function converse(rec) {
    const url = rec.job.callback_url;
    if (!isLoopback(url)) {
      process.stderr.write(
        'callback_url is not a loopback address: no conversation (zoo programs talk to this machine only)\n',
      );
      return;
    }
    const steps = plan(rec);
    for (let i = 0; i < steps.length; i += 1) {
      if (stopping) return;
      if (i > 0) await sleep(opts.pace);
      const id = eventId(rec, i + 1);
      const build = () => ({ event: undefined, event_id: id, ...steps[i](), occurred_at: new Date().toISOString() });
      const outcome = await deliver(url, build, rec);
      if (outcome === 'given-up') return; // the platform is unreachable: the conversation stops here
      if (outcome === 'accepted-late' && fault === 'callback-abandon-after-retry') return;
      // a refused event (4xx) is dropped; the conversation goes on
    }
  }

  function encode(doc) {
    const ordered = { event: doc.event, event_id: doc.event_id, ...doc };
    const text = opts.prettyEvents ? JSON.stringify(ordered, null, 2).replace(/\n/g, '\r\n') : JSON.stringify(ordered);
    return Buffer.from(text);
  }

  function backoff(attempt) {
    const growth = fault === 'callback-retry-fixed-delay' ? 1 : 2 ** attempt;
    return Math.min(opts.maxDelay, opts.baseDelay * growth * (1 + Math.random() * 0.25));
  }

  function retryAfter(value) {
    if (typeof value !== 'string') return null;
    const v = value.trim();
    if (fault === 'callback-retry-after-seconds-only') {
      const s = parseInt(v, 10);
      return Number.isNaN(s) ? null : s * 1000;
    }
    if (/^[0-9]+$/.test(v)) return Number(v) * 1000;
    const at = Date.parse(v);
    return Number.isNaN(at) ? null : Math.max(0, at - Date.now()) + 10;
  }

  async function deliver(url, build, rec) {
    let body = encode(build());
    const started = Date.now();
    const host = new URL(url).host;
    let firstTs;
    for (let attempt = 0; !stopping; attempt += 1) {
      if (fault === 'callback-breaker-after-refusal' && trippedHosts.has(host)) return 'given-up';
      if (fault === 'callback-retry-new-occurred-at' && attempt > 0) body = encode(build());
      const ts =
        fault === 'callback-timestamp-ms'
          ? String(Date.now())
          : fault === 'callback-timestamp-from-job' && rec?.stamp
            ? rec.stamp
            : fault === 'callback-signs-once' && firstTs !== undefined
              ? firstTs
              : String(Math.floor(Date.now() / 1000));
      firstTs ??= ts;
      let sent = body;
      let signed = body;
      if (fault === 'callback-signs-without-newline') sent = Buffer.concat([body, Buffer.from('\n')]);
      const headers = {
        'X-CAI-Provider': opts.provider,
        'X-CAI-Timestamp': ts,
        'X-CAI-Signature': sign(opts.eventsSecret, ts, signed),
      };
      if (fault !== 'callback-no-content-type') headers['Content-Type'] = 'application/json';
      let status = 0;
      let after = null;
      try {
        const r = await post(url, sent, headers);
        status = r.status;
        after = r.retryAfter;
      } catch {
        status = 0; // no answer: retried like a 5xx
        if (fault === 'callback-no-retry-network') return 'given-up';
      }
      const success = fault === 'callback-only-202-success' ? status === 202 : status >= 200 && status < 300;
      if (success) return attempt > 0 ? 'accepted-late' : 'accepted'; // (with the fault, any other 2xx is retried below like a 5xx)
      if (status >= 400 && status < 500 && status !== 429) {
        if (fault === 'callback-breaker-after-refusal') trippedHosts.add(host);
        return 'refused';
      }
      const gatewayOnly = fault === 'callback-retry-gateway-only' && ![502, 503, 504].includes(status);
      if (gatewayOnly && status >= 500 && status < 600) return 'refused'; // a 500 taken as final: the event dropped
      let wait = backoff(attempt);
      if (status === 429) wait = retryAfter(after) ?? wait;
      if (Date.now() - started + wait > opts.retryFor) return 'given-up';
      await sleep(wait);
    }
    return 'given-up';
  }

  function post(url, body, headers) {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      if (fault === 'callback-drops-query') u.search = '';
      const lib = u.protocol === 'https:' ? https : http;
      const h = { ...headers };
      if (!opts.chunkedCallbacks) h['Content-Length'] = String(body.length);
      const req = lib.request(u, {
        method: 'POST',
        headers: h,
        agent: u.protocol === 'https:' ? secureAgent : agent,
        timeout: 30_000,
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      if (opts.chunkedCallbacks && body.length > 1) {
        req.write(body.subarray(0, body.length >> 1));
        req.end(body.subarray(body.length >> 1));
      } else req.end(body);
    });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (res.headersSent) return;
      if (err instanceof Refused) answerError(res, err);
      else answerError(res, new Refused('other', 500, `internal error: ${err?.constructor?.name ?? 'Error'}`));
    });
  });
  server.keepAliveTimeout = 5000;

  return {
    server,
    stop() {
      stopping = true;
    },
  };
}

function main() {
  const { values } = parseArgs({
    options: {
      source: { type: 'string', default: 'zoo-platform' },
      provider: { type: 'string', default: 'zoo-wild' },
      port: { type: 'string', default: '0' },
      fault: { type: 'string' },
      messages: { type: 'string', default: '2' },
      ending: { type: 'string', default: 'booked' },
      pace: { type: 'string', default: '100' },
      'first-delay': { type: 'string' },
      'base-delay': { type: 'string', default: '200' },
      'max-delay': { type: 'string', default: '30000' },
      'retry-for': { type: 'string', default: '600000' },
      'ack-extra': { type: 'boolean', default: false },
      charset: { type: 'boolean', default: false },
      errors: { type: 'string', default: 'json' },
      'auth-status': { type: 'string', default: '401' },
      'schema-status': { type: 'string', default: '400' },
      close: { type: 'boolean', default: false },
      'chunked-answers': { type: 'boolean', default: false },
      'keep-alive-callbacks': { type: 'boolean', default: false },
      'chunked-callbacks': { type: 'boolean', default: false },
      'pretty-events': { type: 'boolean', default: false },
      'no-callbacks': { type: 'boolean', default: false },
      'list-faults': { type: 'boolean', default: false },
    },
  });
  const fail = (message, hint) => {
    process.stderr.write(`error: ${message}\nhint: ${hint}\n`);
    process.exit(2);
  };
  if (values['list-faults']) {
    process.stdout.write(
      JSON.stringify(
        Object.entries(FAULTS).map(([name, f]) => ({ name, ...f })),
        null,
        1,
      ) + '\n',
    );
    return;
  }
  if (values.fault !== undefined && !(values.fault in FAULTS))
    fail(`unknown fault ${values.fault}`, '--list-faults prints them');
  if (!['booked', 'closed', 'booked-rescheduled'].includes(values.ending))
    fail('unknown --ending', 'booked, closed or booked-rescheduled');
  if (!['json', 'problem', 'text', 'empty'].includes(values.errors))
    fail('unknown --errors', 'json, problem, text or empty');
  const int = (name, min, max) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min || v > max)
      fail(`--${name} must be an integer from ${min} to ${max}`, 'see the header of receiver-a.mjs');
    return v;
  };
  const jobsSecret = process.env.CAI_SECRET;
  const eventsSecret = process.env.CAI_CALLBACK_SECRET;
  if (!jobsSecret) fail('CAI_SECRET is not set', 'export the jobs secret (Interface A) as CAI_SECRET');
  if (!eventsSecret)
    fail('CAI_CALLBACK_SECRET is not set', 'export the events secret (Interface B) as CAI_CALLBACK_SECRET');
  const pace = int('pace', 0, 600_000);
  const opts = {
    source: values.source,
    provider: values.provider,
    fault: values.fault ?? null,
    messages: int('messages', 0, 100),
    ending: values.ending,
    pace,
    firstDelay: values['first-delay'] === undefined ? pace : int('first-delay', 0, 600_000),
    baseDelay: int('base-delay', 1, 600_000),
    maxDelay: int('max-delay', 1, 3_600_000),
    retryFor: int('retry-for', 0, 86_400_000),
    ackExtra: values['ack-extra'],
    charset: values.charset,
    errors: values.errors,
    authStatus: int('auth-status', 400, 499),
    schemaStatus: int('schema-status', 400, 499),
    close: values.close,
    chunkedAnswers: values['chunked-answers'],
    keepAliveCallbacks: values['keep-alive-callbacks'],
    chunkedCallbacks: values['chunked-callbacks'],
    prettyEvents: values['pretty-events'],
    noCallbacks: values['no-callbacks'],
    jobsSecret,
    eventsSecret,
  };
  const { server, stop } = createProvider(opts);
  server.listen(int('port', 0, 65535), '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
  });
  const quit = () => {
    stop();
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  };
  process.on('SIGTERM', quit);
  process.on('SIGINT', quit);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
