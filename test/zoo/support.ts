/**
 * What the zoo's tests share: the programs' start and stop, a small signed HTTP client, a callback listener and a
 * scripted judge of senders. Written with node: built-ins only, apart from cai's code, like the programs themselves.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

export const ZOO = join(ROOT, 'test', 'zoo');
export const EVENTS_SECRET = 'zoo-events-secret-7f3a9c0d';
export const JOBS_SECRET = 'zoo-jobs-secret-41be02aa';
export const PROVIDER = 'zoo-acme';
export const PLATFORM = 'zoo-platform';
export const BRANCH = 'BR-LIS-01';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const nowSeconds = () => Math.floor(Date.now() / 1000);
export const hmacHex = (secret: string, data: string | Buffer) =>
  createHmac('sha256', secret).update(data).digest('hex');
export const sign = (secret: string, timestamp: string, body: Buffer) =>
  `sha256=${hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), body]))}`;
export const freshId = (label: string) => `zoo-${label}-${randomUUID()}`;
const E164 = /^\+[1-9]\d{1,14}$/;

/** A zoo program running: the URL it printed first, its later stdout lines, and a stop. */
export interface Program {
  url: string;
  lines: string[];
  stderr(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** Ends every program still running (a test that failed half-way leaves none behind). */
export function stopAllPrograms(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Starts a program and waits for its first line of stdout, its URL. */
export function startProgram(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Program> {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH, ...env } });
  running.add(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => (running.delete(child), resolve())));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited ${code} before printing its URL: ${stderr}`)),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      const first = lines.length === 0;
      lines.push(...parts);
      if (first && lines.length > 0) {
        resolve({
          url: lines[0] as string,
          lines,
          stderr: () => stderr,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
  });
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One POST with node:http; a network failure comes back as status 0 and its message. */
export function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: { chunked?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const all = options.chunked ? headers : { ...headers, 'content-length': String(body.length) };
    const req = request(url, { method: 'POST', headers: all, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', (error) => resolve({ status: 0, headers: {}, text: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ status: 0, headers: {}, text: error.message }));
    if (options.chunked) {
      req.write(body.subarray(0, 10));
      req.end(body.subarray(10));
    } else req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Probes of an events endpoint (Interface B), to show that a broken receiver really differs from a correct one.

export interface EventProbe {
  /** Fields over a valid conversation.message (a value of `undefined` removes the field). */
  event?: Record<string, unknown>;
  /** The body as sent, instead of the event. */
  raw?: string | Buffer;
  /** X-CAI-Timestamp (default: now, in seconds). */
  timestamp?: string;
  /** The X-CAI-Signature header from the timestamp and body (default: correctly signed). */
  signature?: (timestamp: string, body: Buffer) => string;
  /** X-CAI-Provider (default: the provider code). */
  provider?: string;
  chunked?: boolean;
  /** Milliseconds to wait before sending it. */
  pauseMs?: number;
}

export const validEvent = (id: string, fields: Record<string, unknown> = {}) =>
  JSON.parse(
    JSON.stringify({
      event: 'conversation.message',
      event_id: id,
      lead_id: 'lead-zoo-witness',
      channel: 'whatsapp',
      direction: 'outbound',
      author: 'agent',
      from_number_e164: '+351912345678',
      text: 'Olá, tudo bem?',
      occurred_at: new Date().toISOString(),
      ...fields,
    }),
  ) as Record<string, unknown>;

/** Sends each probe in turn; one observation each: the status, and `duplicate` when the answer says so (§2.13). */
export async function observeEvents(url: string, id: string, probes: EventProbe[]): Promise<string[]> {
  const seen: string[] = [];
  for (const probe of probes) {
    if (probe.pauseMs) await sleep(probe.pauseMs);
    const body = Buffer.from(probe.raw ?? JSON.stringify(validEvent(id, probe.event)));
    const timestamp = probe.timestamp ?? String(nowSeconds());
    const headers = {
      'content-type': 'application/json',
      'x-cai-provider': probe.provider ?? PROVIDER,
      'x-cai-timestamp': timestamp,
      'x-cai-signature': (probe.signature ?? ((ts, bytes) => sign(EVENTS_SECRET, ts, bytes)))(timestamp, body),
    };
    const answer = await post(url, headers, body, { chunked: probe.chunked });
    seen.push(`${answer.status}${/"duplicate"\s*:\s*true/.test(answer.text) ? ' duplicate' : ''}`);
  }
  return seen;
}

// ---------------------------------------------------------------------------------------------------------------
// A callback listener: the platform's events endpoint as the provider under test sees it (Interface A callbacks).

export interface Arrival {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  doc: Record<string, unknown> | undefined;
  answer: number;
}

/**
 * Listens on 127.0.0.1 and records every event. Under `/scripted/…` the first attempt of the first, second and
 * third new event_id of that path are answered 503, 429 (Retry-After: 1) and 400; everything else gets 202.
 */
export async function startListener(): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const ids = new Map<string, string[]>();
  const server = createServer((req, res) => {
    void readAll(req).then((body) => {
      const path = req.url ?? '/';
      let doc: Record<string, unknown> | undefined;
      try {
        doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        doc = undefined;
      }
      const id = String(doc?.event_id);
      const known = ids.get(path) ?? [];
      ids.set(path, known);
      const first = !known.includes(id);
      if (first) known.push(id);
      const script = [503, 429, 400];
      const status = path.startsWith('/scripted/') && first ? (script[known.length - 1] ?? 202) : 202;
      arrivals.push({ path, at: Date.now(), headers: req.headers, body, doc, answer: status });
      res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {});
      res.end(status === 202 ? '{"ok":true}' : '');
    });
  });
  const url = await listen(server);
  return { url, arrivals, close: () => closeServer(server) };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A job (§2.2) with only the required fields, and the fields given on top. */
export const validJob = (id: string, callbackUrl: string, fields: Record<string, unknown> = {}) => ({
  lead_id: 'lead-zoo-witness',
  event_id: id,
  branch_code: BRANCH,
  contact: { name: 'Ana Sousa', phone_e164: '+447700900123' },
  callback_url: callbackUrl,
  ...fields,
});

export interface JobProbe {
  job: Record<string, unknown>;
  timestamp?: string;
  secret?: string;
  /** Leave the X-CAI-Signature or X-CAI-Source header out. */
  without?: 'x-cai-signature' | 'x-cai-source';
}

/** POSTs a job to {endpoint}/contact-jobs, signed as the probe says. */
export function sendJob(endpoint: string, probe: JobProbe): Promise<Answer> {
  const body = Buffer.from(JSON.stringify(probe.job));
  const timestamp = probe.timestamp ?? String(nowSeconds());
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-cai-source': PLATFORM,
    'x-cai-timestamp': timestamp,
    'x-cai-signature': sign(probe.secret ?? JOBS_SECRET, timestamp, body),
  };
  if (probe.without) delete headers[probe.without];
  return post(`${endpoint}/contact-jobs`, headers, body);
}

/** The acknowledgment as observed: status, media type, whether the number is E.164 (§2.3). */
export function describeAck(answer: Answer): string {
  let ack: { provider_job_id?: unknown; assigned_number_e164?: unknown } = {};
  try {
    ack = JSON.parse(answer.text) as typeof ack;
  } catch {
    // not JSON: described as such below
  }
  const media = String(answer.headers['content-type'] ?? '-').split(';')[0];
  return `${answer.status} ${media} job-id:${typeof ack.provider_job_id === 'string'} e164:${typeof ack.assigned_number_e164 === 'string' && E164.test(ack.assigned_number_e164)}`;
}

/**
 * The events that reached one path, each as a line of what a platform would judge: type, attempt, signature with
 * the events secret, provider code, timestamp digits, lead_id unchanged, offset on occurred_at; and for an attempt
 * after a 429, whether it waited the Retry-After of 1 s.
 */
export function describeArrivals(arrivals: Arrival[], path: string, leadId: string): string[] {
  const attempts = new Map<string, number>();
  let after429: number | undefined;
  return arrivals
    .filter((arrival) => arrival.path === path)
    .map((arrival) => {
      const doc = arrival.doc ?? {};
      const id = String(doc.event_id);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      const timestamp = String(arrival.headers['x-cai-timestamp']);
      const signed = arrival.headers['x-cai-signature'] === sign(EVENTS_SECRET, timestamp, arrival.body);
      const waited = after429 === undefined ? '' : arrival.at - after429 >= 950 ? ' waited' : ' early';
      after429 = arrival.answer === 429 ? arrival.at : undefined;
      const offset = typeof doc.occurred_at === 'string' && /(Z|[+-]\d{2}:\d{2})$/.test(doc.occurred_at);
      return `${String(doc.event)} #${n} signed:${signed} provider:${arrival.headers['x-cai-provider'] === PROVIDER} ts-digits:${timestamp.length} lead:${doc.lead_id === leadId} offset:${offset}${waited} → ${arrival.answer}`;
    });
}

// ---------------------------------------------------------------------------------------------------------------
// A scripted judge of senders: each new event_id gets the same script of answers, and every attempt is kept.

export type Scripted = 200 | 201 | 202 | 204 | 400 | 500 | 503 | 'cut' | '429-date';

export interface JudgedAttempt {
  at: number;
  path: string;
  body: Buffer;
  timestamp: string;
  signed: boolean;
  answer: Scripted;
  /** For a 429 with an HTTP-date: the moment the date names. */
  notBefore?: number;
}

/**
 * Answers every new document by `script`, attempt by attempt (the last answer again after the script), and keeps
 * each attempt by event_id. A 429 carries Retry-After as an HTTP-date 1 to 2 s ahead (RFC 9110 §10.2.3).
 */
export async function startJudge(
  secret: string,
  script: Scripted[],
): Promise<{ url: string; byId: Map<string, JudgedAttempt[]>; close(): Promise<void> }> {
  const byId = new Map<string, JudgedAttempt[]>();
  const server = createServer((req, res) => {
    void readAll(req).then((body) => {
      let id = '(not JSON)';
      try {
        id = String((JSON.parse(body.toString('utf8')) as { event_id?: unknown }).event_id);
      } catch {
        // kept under "(not JSON)"
      }
      const attempts = byId.get(id) ?? [];
      byId.set(id, attempts);
      const timestamp = String(req.headers['x-cai-timestamp']);
      const answer = script[Math.min(attempts.length, script.length - 1)] as Scripted;
      const attempt: JudgedAttempt = {
        at: Date.now(),
        path: req.url ?? '',
        body,
        timestamp,
        signed: req.headers['x-cai-signature'] === sign(secret, timestamp, body),
        answer,
      };
      attempts.push(attempt);
      if (answer === 'cut') return req.socket.destroy();
      if (answer === '429-date') {
        attempt.notBefore = (Math.floor(Date.now() / 1000) + 2) * 1000;
        res.writeHead(429, { 'retry-after': new Date(attempt.notBefore).toUTCString(), 'content-length': '0' });
        return res.end();
      }
      const ack = JSON.stringify({ provider_job_id: `pj-${randomUUID()}`, assigned_number_e164: '+351210000001' });
      res.writeHead(answer, {
        'content-type': 'application/json',
        'content-length': String(answer === 202 ? ack.length : 0),
      });
      res.end(answer === 202 ? ack : '');
    });
  });
  const url = await listen(server);
  return { url, byId, close: () => closeServer(server) };
}

/** What a sender did wrong against `startJudge`: each document delivered by exactly the script, same bytes, signed. */
export function senderProblems(byId: Map<string, JudgedAttempt[]>, count: number, script: Scripted[]): string[] {
  const problems: string[] = [];
  if (byId.size !== count) problems.push(`${byId.size} distinct event_ids for ${count} documents`);
  for (const [id, attempts] of byId) {
    const answers = attempts.map((attempt) => attempt.answer).join(',');
    if (answers !== script.join(',')) problems.push(`${id}: answers ${answers}, expected ${script.join(',')}`);
    if (attempts.some((attempt) => !attempt.body.equals((attempts[0] as JudgedAttempt).body)))
      problems.push(`${id}: the bytes changed on a retry`);
    if (attempts.some((attempt) => !attempt.signed))
      problems.push(`${id}: an attempt not signed with the secret over its bytes`);
    attempts.forEach((attempt, i) => {
      const next = attempts[i + 1];
      if (attempt.notBefore !== undefined && next && next.at < attempt.notBefore)
        problems.push(`${id}: retried ${attempt.notBefore - next.at} ms before the Retry-After date`);
    });
  }
  return problems;
}
