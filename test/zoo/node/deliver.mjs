// Delivering one signed document with the retry policy of §7 and §8, in plain Node (node:http only). Shared by the
// zoo's Node senders (sender.mjs) and the callbacks of its Node provider (receiver-a.mjs).
import { request as httpRequest, Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { existsSync, writeFileSync } from 'node:fs';
import { signatureOf } from './spec.mjs';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One POST; resolves with the status, headers and body of the answer, or with the network error. */
export function post(url, headers, body, { agent, chunked = false, lowerCase = false, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const all = chunked ? headers : { ...headers, [spell('content-length', lowerCase)]: String(body.length) };
    const req = send(target, { method: 'POST', headers: all, agent: agent ?? false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (error) => resolve({ error }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ error }));
    if (chunked) {
      // Two writes and no Content-Length: node frames the body with Transfer-Encoding: chunked.
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      req.end(body.subarray(half));
    } else req.end(body);
  });
}

const SPELLING = {
  'content-type': 'Content-Type',
  'content-length': 'Content-Length',
  'x-cai-timestamp': 'X-CAI-Timestamp',
  'x-cai-signature': 'X-CAI-Signature',
  'x-cai-provider': 'X-CAI-Provider',
  'x-cai-source': 'X-CAI-Source',
};

/** A header name as the spec writes it, or in lower case (HTTP names are case-insensitive, RFC 9110 §5.1). */
export const spell = (name, lowerCase) => (lowerCase ? name : (SPELLING[name] ?? name));

/**
 * §7: Retry-After is "the number" of seconds; RFC 9110 §10.2.3 also allows an HTTP-date. Milliseconds to wait, or
 * undefined when the header is absent or unreadable.
 */
export function retryAfterMs(value, now = Date.now()) {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  // A date is met once its whole second has come: a little past it, so the retry is not early by a timer's slack.
  return Number.isNaN(date) ? undefined : Math.max(0, date - now) + 25;
}

/**
 * §7 and §8, the client's action for an answer: a 2xx is final and accepted (§6.5); 400, 401, 413 and the other
 * 4xx are final; 429 waits Retry-After; a 5xx or a network failure waits the exponential backoff.
 */
export function decide(answer, attempt, options) {
  const backoff =
    Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1)) *
    (1 + options.jitter * (Math.random() * 2 - 1));
  if (answer.error) return { retry: true, waitMs: backoff };
  if (answer.status >= 200 && answer.status < 300) return { retry: false, outcome: 'accepted' };
  if (answer.status === 429) return { retry: true, waitMs: retryAfterMs(answer.headers['retry-after']) ?? backoff };
  if (answer.status >= 500) return { retry: true, waitMs: backoff };
  return { retry: false, outcome: 'rejected' };
}

export const DEFAULT_DELIVERY = {
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  retryForMs: 30_000,
  jitter: 0,
  chunked: false,
  lowerCase: false,
  agent: undefined,
};

/**
 * Delivers one document: every attempt carries exactly the same bytes and event_id, signed afresh with the time of
 * that attempt (§5.2, §6.1). `headers` are the fixed ones (identity, content type), named in lower case.
 * Hooks for the zoo's broken senders: `bodyFor(attempt)`, `timestampFor(attempt)`, `decideFor(answer, attempt)`.
 * `holdOnce: { file, ms }`: a correct sender held up once by its machine, between signing and sending (see holdOnce).
 */
export async function deliver({ url, headers, body, secret, ...given }) {
  const options = { ...DEFAULT_DELIVERY, ...given };
  const started = Date.now();
  const fixed = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [spell(name, options.lowerCase), value]),
  );
  // A held retry shows only when it is signed in the second of the first attempt: each first attempt starts early in
  // its second (any sender may choose when to send).
  if (options.holdOnce) await sleep(1020 - (Date.now() % 1000));
  let backedOff = false;
  let signedBefore;
  for (let attempt = 1; ; attempt += 1) {
    const bytes = options.bodyFor?.(attempt) ?? body;
    const timestamp = options.timestampFor?.(attempt) ?? String(Math.floor(Date.now() / 1000));
    const signature = signatureOf(secret, timestamp, bytes);
    const signed = {
      ...fixed,
      [spell('x-cai-timestamp', options.lowerCase)]: timestamp,
      [spell('x-cai-signature', options.lowerCase)]: signature,
    };
    // Held only where it shows: a retry signed in the second of the attempt before it (a busy machine may be slower).
    if (backedOff && timestamp === signedBefore && options.holdOnce) await holdOnce(options.holdOnce);
    signedBefore = timestamp;
    const answer = await post(url, signed, bytes, options);
    const next = (options.decideFor ?? decide)(answer, attempt, options);
    if (!next.retry) return { outcome: next.outcome, status: answer.status, attempts: attempt };
    // §8: retries end when the retry period has run out (24 hours in production; short here).
    if (Date.now() + next.waitMs - started > options.retryForMs)
      return { outcome: 'gave-up', status: answer.status, error: answer.error?.message, attempts: attempt };
    backedOff = answer.status !== 429;
    await sleep(next.waitMs);
  }
}

/**
 * The first retry after a backoff, signed in the second of the attempt before it, that this sender (across its runs:
 * `file` is the mark) ever sends waits `ms` after it was signed, as a process the machine stopped running for a moment
 * would: its fresh signature arrives old.
 */
async function holdOnce({ file, ms }) {
  if (existsSync(file)) return;
  writeFileSync(file, '');
  await sleep(ms);
}

/** A keep-alive agent (several attempts and documents on one connection), or none: a new connection each time. */
export const keepAliveAgent = (sockets) => new Agent({ keepAlive: true, maxSockets: sockets });
