#!/usr/bin/env node
// A sender of either interface written from the spec alone (node: built-ins only): a provider's event sender (B,
// §4.2) or a platform's job sender (A, §4.1). One run sends --count new documents to $CAI_TARGET_URL, each with its
// own event_id, each delivered with the retry policy of §7 and §8 (deliver.mjs), --parallel at a time, and exits
// when every one is settled: 0 all accepted, 1 one was refused, 3 one was given up. $CAI_SCENARIO is not read: a
// real sender does not know it is being tested.
//
//   node sender.mjs --interface B|A --identity CODE [--count N] [--parallel K] [--types message|mixed]
//     [--optional none|all|alternate] [--lower-case-headers] [--charset] [--chunked] [--keep-alive] [--pretty-crlf]
//     [--base-delay MS] [--retry-for MS] [--jitter F] [--callback-url URL] [--secret-env NAME] [--fault NAME]
//     [--hold-once FILE]: correct, but held up once by its machine for 2.5 s between signing a retry and sending it
//     (deliver.mjs): the first retry after a backoff signed in the second of the attempt before it, with no FILE yet;
//     it writes FILE then
import { randomUUID } from 'node:crypto';
import { deliver, decide, keepAliveAgent, sleep } from './deliver.mjs';
import { runAsProgram } from './server.mjs';

/**
 * Deliberate faults (`--fault NAME`), each breaking one rule; with none the sender is correct. `witness`: the answers
 * the zoo's scripted judge gives each document to see the fault apart from cai (default 503, a 429 with an HTTP-date,
 * a cut connection, 202), over `runs` runs of the sender (default one).
 */
export const FAULTS = [
  {
    name: 'shared-event-id',
    clause: '§6.1',
    description:
      'every document of a run carries the event_id of the first one (ids made once per batch, not per event)',
  },
  {
    name: 'second-document-new-id-on-retry',
    clause: '§6.1',
    description:
      'the retries of the second document carry a new event_id (the id is regenerated when that document is rebuilt)',
  },
  {
    name: 'gives-up-third',
    clause: '§7',
    description: 'the third document is not retried after a 5xx or a network failure (its queue entry is dropped)',
  },
  {
    name: 'mixed-up-retry',
    clause: '§6.1',
    description:
      'starts each document before the previous one is settled, and a retry sends the body of the document started last',
  },
  {
    name: 'retry-after-seconds-only',
    clause: '§7',
    description:
      'reads Retry-After as a number of seconds only: an HTTP-date makes it retry after its own short backoff',
    witness: ['429-date', 202],
  },
  {
    name: 'retries-after-201',
    clause: '§6.5',
    description: 'takes only 200 and 202 for success: a 201 is retried as a failure',
    witness: [201],
  },
  {
    name: 'retries-after-204',
    clause: '§6.5',
    description: 'reads the body of a success for its acknowledgment: a 204, with none, is retried as a failure',
    witness: [204],
  },
  {
    name: 'retries-400',
    clause: '§7',
    description: 'retries every 4xx but 401 and 413 (a 400 taken for a passing fault of the receiver)',
    witness: [400],
  },
  {
    name: 'no-retry-on-500',
    clause: '§7',
    description: 'retries 502, 503 and 504 only: a 500 is taken as final and the document dropped',
    witness: [500, 202],
  },
  {
    name: 'reuses-event-id-for-new-document',
    clause: '§6.1',
    witness: [202],
    runs: 2,
    description:
      'numbers its documents from 1 in a counter that restarts with the process: a new document of a later run carries the event_id of one already accepted',
  },
];

const FLAGS = {
  '--interface': 'interface',
  '--identity': 'identity',
  '--count': 'count',
  '--parallel': 'parallel',
  '--types': 'types',
  '--optional': 'optional',
  '--base-delay': 'baseDelayMs',
  '--retry-for': 'retryForMs',
  '--jitter': 'jitter',
  '--callback-url': 'callbackUrl',
  '--secret-env': 'secretEnv',
  '--fault': 'fault',
  '--hold-once': 'holdOnceFile',
};
const SWITCHES = {
  '--lower-case-headers': 'lowerCase',
  '--charset': 'charset',
  '--chunked': 'chunked',
  '--keep-alive': 'keepAlive',
  '--pretty-crlf': 'prettyCrlf',
};
const NUMBERS = ['count', 'parallel', 'baseDelayMs', 'retryForMs', 'jitter'];

function parseArgs(argv) {
  const args = {
    count: 1,
    parallel: 1,
    types: 'message',
    optional: 'none',
    baseDelayMs: 100,
    retryForMs: 60_000,
    jitter: 0,
    secretEnv: 'CAI_SECRET',
    fault: 'none',
    callbackUrl: 'https://platform.example/cai/events',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag in SWITCHES) args[SWITCHES[flag]] = true;
    else if (flag in FLAGS && i + 1 < argv.length) args[FLAGS[flag]] = argv[++i];
    else throw new Error(`unknown flag ${flag}`);
  }
  for (const name of NUMBERS) args[name] = Number(args[name]);
  if (!['A', 'B'].includes(args.interface) || !args.identity) throw new Error('usage: --interface A|B --identity CODE');
  if (args.fault !== 'none' && !FAULTS.some((fault) => fault.name === args.fault))
    throw new Error(`unknown fault ${args.fault}`);
  return args;
}

/** §6.1: a new event_id for every new document; with reuses-event-id-for-new-document, its number in this run. */
const newEventId = (args, i, kind = '') =>
  args.fault === 'reuses-event-id-for-new-document' ? `zoo-node-${kind}${i + 1}` : `zoo-node-${kind}${randomUUID()}`;

const MESSAGES = [
  'Olá! Posso ajudar a marcar a sua consulta? 📅',
  'Sim, amanhã às 10h “se possível”.',
  'Combinado: amanhã, 10:00.',
];

/** §2.5-§2.7: the i-th event of a run; with `mixed`, every type of §6 in turn. */
function eventAt(i, args, run) {
  const base = { event_id: newEventId(args, i), lead_id: `lead-zoo-${run}`, occurred_at: new Date().toISOString() };
  const kinds =
    args.types === 'mixed'
      ? ['message', 'message', 'appointment.booked', 'appointment.rescheduled', 'appointment.cancelled', 'job.closed']
      : ['message'];
  const kind = kinds[i % kinds.length];
  if (kind === 'message') {
    const outbound = i % 2 === 0;
    return {
      event: 'conversation.message',
      ...base,
      provider_job_id: `job-${run}`,
      channel: 'whatsapp',
      direction: outbound ? 'outbound' : 'inbound',
      author: outbound ? 'agent' : 'contact',
      ...(outbound ? { from_number_e164: '+351912345678' } : {}),
      text: MESSAGES[i % MESSAGES.length],
    };
  }
  if (kind === 'job.closed') return { event: 'job.closed', ...base, outcome: 'callback_later', attempts: 2 };
  return {
    event: kind,
    ...base,
    branch_code: 'BR-LIS-01',
    scheduled_at: '2026-03-02T10:00:00+00:00',
    service: 'first visit',
    notes: 'Prefers mornings.',
  };
}

/** §2.2: the i-th contact job; `all` fills every optional field, `none` none, `alternate` every other job. */
function jobAt(i, args, run) {
  const job = {
    lead_id: `lead-zoo-${run}-${i}`,
    event_id: newEventId(args, i, 'job-'),
    branch_code: 'BR-LIS-01',
    contact: { name: 'Inês Antunes', phone_e164: '+351912345678' },
    callback_url: args.callbackUrl,
  };
  if (args.optional === 'all' || (args.optional === 'alternate' && i % 2 === 1)) {
    Object.assign(job, {
      city: 'Lisboa',
      origin: {
        channel: 'landing_form',
        source: 'https://clinic.example/marcar',
        campaign: 'primavera',
        captured_at: new Date().toISOString(),
      },
      brief: { intent: 'book_appointment', notes: 'Quer marcar uma primeira consulta.' },
    });
    Object.assign(job.contact, { email: 'ines@example.org', language: 'pt-PT' });
  }
  return job;
}

/** The bytes sent: compact JSON, or pretty-printed with CRLF line ends (signed over exactly those bytes, §5.2). */
const serialise = (doc, args) =>
  Buffer.from(args.prettyCrlf ? JSON.stringify(doc, null, 2).replace(/\n/g, '\r\n') : JSON.stringify(doc), 'utf8');

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const secret = process.env[args.secretEnv];
  const base = process.env.CAI_TARGET_URL;
  if (!secret || !base) throw new Error(`set $${args.secretEnv} and $CAI_TARGET_URL`);
  const url = args.interface === 'B' ? base : `${base.replace(/\/$/, '')}/contact-jobs`;
  const run = randomUUID().slice(0, 8);
  const docs = Array.from({ length: args.count }, (_, i) =>
    args.interface === 'B' ? eventAt(i, args, run) : jobAt(i, args, run),
  );
  if (args.fault === 'shared-event-id') for (const doc of docs) doc.event_id = docs[0].event_id;
  const bodies = docs.map((doc) => serialise(doc, args));
  const headers = {
    'content-type': args.charset ? 'application/json; charset=utf-8' : 'application/json',
    [args.interface === 'B' ? 'x-cai-provider' : 'x-cai-source']: args.identity,
  };
  const options = {
    ...args,
    agent: args.keepAlive ? keepAliveAgent(args.parallel) : undefined,
    ...(args.holdOnceFile ? { holdOnce: { file: args.holdOnceFile, ms: 2_500 } } : {}),
  };
  let latest = 0;
  const sendOne = (i) =>
    deliver({ url, headers, body: bodies[i], secret, ...options, ...faultHooks(args, i, docs, bodies, () => latest) });
  const results = new Array(docs.length);
  let next = 0;
  const worker = async () => {
    while (next < docs.length) {
      const i = next++;
      latest = i;
      results[i] = await sendOne(i);
    }
  };
  if (args.fault === 'mixed-up-retry') {
    // Pipelined: the next document starts a moment after the previous one, settled or not.
    const pending = [];
    for (let i = 0; i < docs.length; i += 1) {
      latest = i;
      pending.push(sendOne(i).then((result) => (results[i] = result)));
      await sleep(10);
    }
    await Promise.all(pending);
  } else await Promise.all(Array.from({ length: Math.min(args.parallel, docs.length) }, worker));
  options.agent?.destroy();
  const count = (outcome) => results.filter((result) => result.outcome === outcome).length;
  process.stderr.write(
    `zoo sender: ${docs.length} documents: ${count('accepted')} accepted, ${count('rejected')} refused, ${count('gave-up')} given up\n`,
  );
  return count('gave-up') > 0 ? 3 : count('rejected') > 0 ? 1 : 0;
}

/** The deliberate faults, as hooks into one delivery (deliver.mjs). */
function faultHooks(args, i, docs, bodies, latest) {
  switch (args.fault) {
    case 'second-document-new-id-on-retry':
      return i === 1
        ? {
            bodyFor: (attempt) =>
              attempt === 1 ? undefined : serialise({ ...docs[i], event_id: `zoo-node-${randomUUID()}` }, args),
          }
        : {};
    case 'gives-up-third':
      return i === 2
        ? {
            decideFor: (answer, attempt, options) =>
              answer.error || answer.status >= 500
                ? { retry: false, outcome: 'gave-up' }
                : decide(answer, attempt, options),
          }
        : {};
    case 'mixed-up-retry':
      return { bodyFor: (attempt) => (attempt === 1 ? undefined : bodies[latest()]) };
    case 'retry-after-seconds-only':
      return {
        decideFor: (answer, attempt, options) => {
          if (answer.status !== 429) return decide(answer, attempt, options);
          const seconds = Number.parseInt(answer.headers['retry-after'] ?? '', 10);
          return { retry: true, waitMs: Number.isNaN(seconds) ? options.baseDelayMs : seconds * 1000 };
        },
      };
    case 'retries-after-201':
    case 'retries-after-204': {
      const retried = args.fault === 'retries-after-201' ? 201 : 204;
      return {
        decideFor: (answer, attempt, options) =>
          answer.status === retried && attempt < 3
            ? { retry: true, waitMs: options.baseDelayMs }
            : decide(answer, attempt, options),
      };
    }
    case 'retries-400':
      return {
        decideFor: (answer, attempt, options) =>
          answer.status === 400 && attempt < 3
            ? { retry: true, waitMs: options.baseDelayMs * 2 ** (attempt - 1) }
            : decide(answer, attempt, options),
      };
    case 'no-retry-on-500':
      return {
        decideFor: (answer, attempt, options) =>
          answer.status === 500 ? { retry: false, outcome: 'gave-up' } : decide(answer, attempt, options),
      };
    default:
      return {};
  }
}

runAsProgram(import.meta, 'zoo sender', main);
