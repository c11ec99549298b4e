#!/usr/bin/env node
// The provider's contact-jobs endpoint (Interface A, §4.1) and its event sender (§3 step 5, §4.2), written from the
// spec alone (node: built-ins only). Correct by default; `--fault NAME` gives it one plausible mistake (FAULTS).
//
//   CAI_SECRET=<jobs secret> CAI_CALLBACK_SECRET=<events secret> node receiver-a.mjs --source PLATFORM_ID
//     --provider CODE [--port N] [--no-callbacks] [--pace MS] [--base-delay MS] [--retry-for MS] [--fault NAME]
//
// It binds 127.0.0.1, prints its base address (the provider endpoint: POST {it}/contact-jobs) as the first line of
// stdout, then one line per job it starts (`job <event_id as JSON> <provider_job_id>`), and runs until SIGTERM.
// For each new job it answers 202 with the acknowledgment of §2.3, then POSTs the conversation to the job's
// callback_url: three conversation.message events, then appointment.booked or job.closed in turn, each delivered
// with the retry policy of §7 (deliver.mjs). A refused event is dropped and the conversation goes on.
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { decide, deliver, sleep } from './deliver.mjs';
import { readBody, runAsProgram, serve } from './server.mjs';
import { RULES, WINDOW_SECONDS, jobProblem, parseJsonBody, sameSecretString, signatureOf } from './spec.mjs';

/** One mistake each, written from the rules of the spec (the clause each breaks). */
export const FAULTS = [
  // The acknowledgment (§2.3, §4.1).
  { name: 'ack-200', clause: '§4.1', description: 'acknowledges a new job with 200 instead of 202' },
  {
    name: 'ack-national-number',
    clause: '§2.3',
    description: 'gives assigned_number_e164 in national form (0210000123), not E.164',
  },
  // Repeats (§2.2: a repeated event_id is ignored).
  {
    name: 'repeat-new-job',
    clause: '§2.2',
    description: 'takes a repeated event_id for a new job: a new provider_job_id and a second conversation',
  },
  {
    name: 'repeat-restarts-conversation',
    clause: '§2.2',
    description: 'answers a repeat with the same acknowledgment but starts the conversation again',
  },
  // Authentication (§4.1, §5).
  {
    name: 'accepts-events-secret',
    clause: '§5.1',
    description: 'verifies jobs with either secret of the pair, the events secret included',
  },
  {
    name: 'signature-optional',
    clause: '§5.3',
    description: 'verifies the signature only when X-CAI-Signature is present',
  },
  {
    name: 'window-units',
    clause: '§5.5',
    description: 'compares the skew in seconds with the window in milliseconds: a window of 300 000 s',
  },
  { name: 'source-not-checked', clause: '§4.1', description: 'does not check X-CAI-Source' },
  // The job (§2.2).
  { name: 'requires-origin', clause: '§2.2', description: 'refuses a job without origin, an optional field' },
  // The events it sends back (§2.2, §2.4, §4.2, §5, §7).
  {
    name: 'callback-lead-nfc',
    clause: '§2.2',
    description: "sends the job's lead_id back NFC-normalised, not unmodified",
  },
  {
    name: 'callback-jobs-secret',
    clause: '§5.1',
    description: 'signs its events with the jobs secret instead of the events secret',
  },
  { name: 'callback-no-retry-5xx', clause: '§7', description: 'drops an event answered 5xx instead of retrying it' },
  {
    name: 'callback-ignores-retry-after',
    clause: '§7',
    description: 'retries an event answered 429 at once, without waiting its Retry-After',
  },
  { name: 'callback-retries-400', clause: '§7', description: 'retries an event answered 400 like a 5xx' },
  { name: 'callback-new-event-id-on-retry', clause: '§6.1', description: 'gives a retried event a new event_id' },
];

function parseArgs(argv) {
  const args = { port: 0, callbacks: true, pace: 30, 'base-delay': 100, 'retry-for': 30_000, fault: 'none' };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--no-callbacks') args.callbacks = false;
    else if (
      ['--port', '--source', '--provider', '--pace', '--base-delay', '--retry-for', '--fault'].includes(flag) &&
      value !== undefined
    ) {
      args[flag.slice(2)] = value;
      i += 1;
    } else throw new Error(`unknown flag ${flag}`);
  }
  for (const name of ['port', 'pace', 'base-delay', 'retry-for']) args[name] = Number(args[name]);
  if (!args.source || !args.provider) throw new Error('usage: --source PLATFORM_ID --provider CODE');
  if (args.fault !== 'none' && !FAULTS.some((fault) => fault.name === args.fault))
    throw new Error(`unknown fault ${args.fault}`);
  return args;
}

// §8 states the 256 KB limit for events; a job is taken up to 1 MiB, and a larger one gets 413.
const MAX_JOB_BYTES = 1024 * 1024;

/** §2.3: the origin number of a unit (§1: the provider maps each branch_code to its own number), in E.164. */
function numberFor(branchCode, fault) {
  const digits = String(
    parseInt(createHash('sha256').update(branchCode).digest('hex').slice(0, 8), 16) % 100_000,
  ).padStart(5, '0');
  return fault === 'ack-national-number' ? `02100${digits}` : `+35121000${digits}`;
}

export function createProvider(args, secrets) {
  const { fault } = args;
  const jobs = new Map();
  let jobCount = 0;
  let endings = 0;

  function answer(res, status, body) {
    const bytes = Buffer.from(JSON.stringify(body));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
    res.end(bytes);
  }
  // §4.1 shows no error statuses: the ones of §7, with a JSON body of our own shape.
  const refuse = (res, status, reason) => answer(res, status, { status: 'refused', reason });

  function signatureOk(req, timestamp, body) {
    const header = req.headers['x-cai-signature'];
    if (header === undefined && fault === 'signature-optional') return true;
    if (typeof header !== 'string') return false;
    const candidates = fault === 'accepts-events-secret' ? [secrets.jobs, secrets.events] : [secrets.jobs];
    return candidates.some((secret) => sameSecretString(header, signatureOf(secret, timestamp, body)));
  }

  function inWindow(timestamp) {
    const skew = Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp));
    return fault === 'window-units' ? skew <= WINDOW_SECONDS * 1000 : skew <= WINDOW_SECONDS;
  }

  async function handle(req, res) {
    if (new URL(req.url, 'http://provider').pathname !== '/contact-jobs' || req.method !== 'POST') {
      req.resume();
      return req.on('end', () => refuse(res, 404, 'POST /contact-jobs only'));
    }
    const { bytes: body, tooLarge } = await readBody(req, MAX_JOB_BYTES);
    if (tooLarge) return refuse(res, 413, 'job too large');
    if (fault !== 'source-not-checked' && req.headers['x-cai-source'] !== args.source)
      return refuse(res, 401, 'unknown source');
    const timestamp = req.headers['x-cai-timestamp'];
    if (typeof timestamp !== 'string' || !/^[0-9]+$/.test(timestamp) || !inWindow(timestamp))
      return refuse(res, 401, 'timestamp missing or outside the window');
    if (!signatureOk(req, timestamp, body)) return refuse(res, 401, 'invalid signature');
    const parsed = parseJsonBody(body);
    if (!parsed) return refuse(res, 400, 'not UTF-8 JSON');
    const problem =
      jobProblem(parsed.value, RULES) ??
      (fault === 'requires-origin' && !('origin' in parsed.value) ? 'origin is missing' : undefined);
    if (problem) return refuse(res, 400, problem);
    const job = parsed.value;
    const known = jobs.get(job.event_id);
    // §2.2: a repeated event_id is ignored: the same acknowledgment, no second conversation.
    if (known && fault !== 'repeat-new-job') {
      if (fault === 'repeat-restarts-conversation') startConversation(job, known);
      return acknowledge(res, known);
    }
    jobCount += 1;
    const ack = {
      provider_job_id: `pj-${jobCount}-${randomUUID().slice(0, 8)}`,
      assigned_number_e164: numberFor(job.branch_code, fault),
    };
    jobs.set(job.event_id, ack);
    process.stdout.write(`job ${JSON.stringify(job.event_id)} ${ack.provider_job_id}\n`);
    startConversation(job, ack);
    return acknowledge(res, ack);
  }

  function acknowledge(res, ack) {
    answer(res, fault === 'ack-200' ? 200 : 202, ack);
  }

  function startConversation(job, ack) {
    if (!args.callbacks) return;
    void converse(job, ack).catch((error) =>
      process.stderr.write(`zoo provider: conversation of ${job.event_id}: ${error.message}\n`),
    );
  }

  /** §3 step 5: the conversation as it happens, then the result. */
  async function converse(job, ack) {
    const lead = fault === 'callback-lead-nfc' ? job.lead_id.normalize('NFC') : job.lead_id;
    const at = () => new Date().toISOString();
    const message = (direction, text) => ({
      event: 'conversation.message',
      event_id: `zoo-pa-${randomUUID()}`,
      lead_id: lead,
      provider_job_id: ack.provider_job_id,
      channel: 'whatsapp',
      direction,
      author: direction === 'outbound' ? 'agent' : 'contact',
      ...(direction === 'outbound' ? { from_number_e164: ack.assigned_number_e164 } : {}),
      text,
      occurred_at: at(),
    });
    endings += 1;
    const ending =
      endings % 2 === 1
        ? {
            event: 'appointment.booked',
            event_id: `zoo-pa-${randomUUID()}`,
            lead_id: lead,
            branch_code: job.branch_code,
            scheduled_at: '2026-05-04T10:00:00+01:00',
            service: 'first visit',
            notes: 'Booked by the agent.',
            occurred_at: at(),
          }
        : {
            event: 'job.closed',
            event_id: `zoo-pa-${randomUUID()}`,
            lead_id: lead,
            outcome: 'callback_later',
            attempts: 1,
            occurred_at: at(),
          };
    const events = [
      message('outbound', `Olá ${job.contact.name}, fala a clínica.`),
      message('inbound', 'Olá! Quero marcar.'),
      message('outbound', 'Fica marcado.'),
      ending,
    ];
    for (const event of events) {
      await sleep(args.pace);
      const result = await sendEvent(job.callback_url, event);
      if (result.outcome !== 'accepted')
        process.stderr.write(
          `zoo provider: event ${event.event_id} ${result.outcome} (${result.status ?? result.error})\n`,
        );
    }
  }

  function sendEvent(url, event) {
    const body = Buffer.from(JSON.stringify(event));
    const hooks = {
      'callback-new-event-id-on-retry': {
        bodyFor: (attempt) =>
          attempt === 1 ? undefined : Buffer.from(JSON.stringify({ ...event, event_id: `zoo-pa-${randomUUID()}` })),
      },
      'callback-no-retry-5xx': {
        decideFor: (reply, attempt, options) =>
          reply.status >= 500 ? { retry: false, outcome: 'dropped' } : decide(reply, attempt, options),
      },
      'callback-ignores-retry-after': {
        decideFor: (reply, attempt, options) =>
          reply.status === 429 ? { retry: true, waitMs: 0 } : decide(reply, attempt, options),
      },
      'callback-retries-400': {
        decideFor: (reply, attempt, options) =>
          decide(reply.status === 400 ? { ...reply, status: 503 } : reply, attempt, options),
      },
    }[fault];
    return deliver({
      url,
      body,
      headers: { 'content-type': 'application/json', 'x-cai-provider': args.provider },
      secret: fault === 'callback-jobs-secret' ? secrets.jobs : secrets.events,
      baseDelayMs: args['base-delay'],
      retryForMs: args['retry-for'],
      jitter: 0.1,
      lowerCase: true,
      ...hooks,
    });
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 400, 'unreadable request');
    });
  });
}

runAsProgram(import.meta, 'zoo provider', () => {
  const args = parseArgs(process.argv.slice(2));
  const secrets = { jobs: process.env.CAI_SECRET, events: process.env.CAI_CALLBACK_SECRET };
  if (!secrets.jobs || (args.callbacks && !secrets.events))
    throw new Error('set $CAI_SECRET (jobs) and $CAI_CALLBACK_SECRET (events)');
  serve(createProvider(args, secrets), args.port);
});
