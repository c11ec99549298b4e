/**
 * The processor of the exported Artillery project (`cai load export --engine artillery`): plain CommonJS that uses
 * Node's built-ins only, so it loads with `require` wherever Artillery runs (a laptop, a Fargate worker) without
 * an install. Its settings are written into it as JSON at export time; the secret never is: it is read from the
 * environment variable named there, at the first request.
 *
 * Artillery 2.0.21 (@artilleryio/int-core, engine_http.js) calls a `beforeRequest` hook as
 * `fn(requestParams, context, ee, next)` when `fn.constructor.name === 'Function'`, else awaits it and passes what
 * it resolves with to `next` as an error; it then templates `requestParams.body` (a Buffer passes through
 * unchanged) unless `requestParams.json` is set, which wins over the body. So the hook is a plain function that
 * sets the body as the exact bytes it signed, deletes `json`, and calls `next()` with no argument. `afterResponse`
 * is called as `fn(requestParams, response, context, ee, next)`; counters are `ee.emit('counter', name, value)`.
 */

export interface ProcessorSettings {
  interface: 'A' | 'B';
  /** `x-cai-provider` or `x-cai-source`, and its value. */
  identityHeader: string;
  identity: string;
  /** The environment variable that holds the signing secret. */
  secretEnv: string;
  repeatShare: number;
  /** A sample document per request name (the event type, or `contact-job`). */
  templates: Record<string, Record<string, unknown>>;
  /** Statuses the thresholds name, each counted as `cai.status_<code>`. */
  watchedStatuses: number[];
  /** Documents accepted as new kept for repeats. */
  poolSize: number;
  generator: string;
}

/** The source of cai-processor.cjs. */
export function processorSource(settings: ProcessorSettings): string {
  return `// cai-processor.cjs: written by ${settings.generator} (cai load export --engine artillery).
// Signs each request as the CAI spec asks (§5): HMAC-SHA256 over "<timestamp>.<body>", with a fresh
// X-CAI-Timestamp, over the exact bytes sent; each document has an event_id of its own (§6.1), and a share of the
// requests repeat an earlier accepted document, which must come back as a duplicate (§2.13, §2.2).
// Node built-ins only. The secret is read from the environment (${settings.secretEnv}); it is never in this file.
'use strict';

const { createHmac, randomBytes } = require('node:crypto');

const SETTINGS = ${JSON.stringify(
    {
      interface: settings.interface,
      identityHeader: settings.identityHeader,
      identity: settings.identity,
      secretEnv: settings.secretEnv,
      repeatShare: settings.repeatShare,
      watchedStatuses: settings.watchedStatuses,
      poolSize: settings.poolSize,
    },
    null,
    2,
  )};

// One sample document per request name (the scenario's request \`name\`), as \`cai sample\` makes them.
const TEMPLATES = ${JSON.stringify(settings.templates, null, 2)};

// 64 random bits per process: event_ids are unique across runs, machines and Artillery workers.
const RUN = randomBytes(8).toString('hex');
let sequence = 0;
// Documents accepted as new (and, on Interface A, the provider_job_id they got): what a repeat repeats.
const pool = [];
let poolNext = 0;
let repeatCredit = 0;
let secretKey;

function secret() {
  if (secretKey === undefined) {
    const value = process.env[SETTINGS.secretEnv];
    if (!value) return undefined;
    secretKey = value;
  }
  return secretKey;
}

/** §2.1: ISO 8601 with its offset (UTC, +00:00). */
function isoNow(offsetMs) {
  return new Date(Math.floor((Date.now() + offsetMs) / 1000) * 1000).toISOString().replace(/\\.\\d{3}Z$/, '+00:00');
}

/** A fresh copy of the sample for this request name, with its own event_id and current times. */
function freshDocument(name) {
  const template = TEMPLATES[name] || TEMPLATES[Object.keys(TEMPLATES)[0]];
  const document = JSON.parse(JSON.stringify(template));
  const n = (sequence++).toString(36);
  if (SETTINGS.interface === 'A') {
    document.event_id = 'job_' + RUN + '_' + n;
    document.lead_id = 'lead_' + RUN.slice(0, 8) + n;
    if (document.origin) document.origin.captured_at = isoNow(-60000);
  } else {
    document.event_id = 'evt_' + RUN + '_' + n;
    document.occurred_at = isoNow(0);
  }
  return Buffer.from(JSON.stringify(document), 'utf8');
}

/** beforeRequest: the body, signed as sent. */
function caiSign(requestParams, context, ee, next) {
  const key = secret();
  if (key === undefined) return next(new Error('cai: no signing secret: set the environment variable ' + SETTINGS.secretEnv));
  let entry;
  let body;
  // The share of repeats is kept exactly: each request adds it to a credit, and a whole credit is a repeat.
  repeatCredit += SETTINGS.repeatShare;
  if (repeatCredit >= 1 - 1e-9 && pool.length > 0) {
    repeatCredit -= 1;
    entry = pool[Math.floor(Math.random() * pool.length)];
    body = entry.body;
  } else {
    body = freshDocument(requestParams.name);
  }
  // §5.2–§5.4: the signed string is the timestamp, a dot, then the raw body exactly as transmitted.
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = 'sha256=' + createHmac('sha256', key).update(timestamp + '.', 'utf8').update(body).digest('hex');
  requestParams.headers = Object.assign({}, requestParams.headers, {
    'content-type': 'application/json',
    [SETTINGS.identityHeader]: SETTINGS.identity,
    'x-cai-timestamp': timestamp,
    'x-cai-signature': signature,
  });
  // The exact bytes signed: a Buffer, which Artillery sends as it is; a \`json\` would be serialised again.
  requestParams.body = body;
  delete requestParams.json;
  // A signed POST is never redirected.
  requestParams.followRedirect = false;
  context.caiLoad = { body, repeat: entry !== undefined, entry };
  return next();
}

function count(ee, name, value) {
  ee.emit('counter', name, value);
}

function providerJobIdOf(text) {
  try {
    const value = JSON.parse(text).provider_job_id;
    return typeof value === 'string' ? value : undefined;
  } catch (error) {
    return undefined;
  }
}

function isDuplicateAck(status, text) {
  if (status !== 202) return false;
  try {
    const json = JSON.parse(text);
    return json !== null && json.ok === true && json.duplicate === true;
  } catch (error) {
    return false;
  }
}

/** afterResponse: counters for the thresholds (every one is emitted, 0 or 1, so each exists in the report). */
function caiJudge(requestParams, response, context, ee, next) {
  const status = response.statusCode;
  const text = typeof response.body === 'string' ? response.body : Buffer.isBuffer(response.body) ? response.body.toString('utf8') : '';
  const sent = context.caiLoad || { repeat: false };
  const klass = Math.floor(status / 100);
  count(ee, 'cai.responses', 1);
  for (const digit of [2, 3, 4, 5]) count(ee, 'cai.status_' + digit + 'xx', klass === digit ? 1 : 0);
  for (const watched of SETTINGS.watchedStatuses) count(ee, 'cai.status_' + watched, status === watched ? 1 : 0);
  count(ee, 'cai.answered_not_5xx', klass === 5 ? 0 : 1);
  // §7: 4xx other than 429 are rejections; a 429 carries Retry-After.
  count(ee, 'cai.rejected', klass === 4 && status !== 429 ? 1 : 0);
  const retryAfter = response.headers && response.headers['retry-after'];
  count(ee, 'cai.retry_after_missing', status === 429 && !/^\\s*[0-9]+\\s*$|GMT\\s*$/.test(String(retryAfter || '')) ? 1 : 0);
  count(ee, 'cai.repeats_sent', sent.repeat ? 1 : 0);
  let confirmed = 0;
  let unrecognised = 0;
  if (klass === 2) {
    const providerJobId = SETTINGS.interface === 'A' ? providerJobIdOf(text) : undefined;
    const duplicate = SETTINGS.interface === 'B' ? isDuplicateAck(status, text) : sent.repeat && providerJobId !== undefined && providerJobId === sent.entry.providerJobId;
    if (sent.repeat) {
      if (duplicate) confirmed = 1;
      else unrecognised = 1;
    } else if (!duplicate && sent.body) {
      const entry = { body: sent.body, providerJobId };
      if (pool.length < SETTINGS.poolSize) pool.push(entry);
      else pool[poolNext++ % SETTINGS.poolSize] = entry;
    }
  }
  count(ee, 'cai.duplicates_confirmed', confirmed);
  count(ee, 'cai.repeats_unrecognised', unrecognised);
  return next();
}

module.exports = { caiSign, caiJudge };
`;
}
