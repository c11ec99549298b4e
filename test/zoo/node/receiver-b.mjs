#!/usr/bin/env node
// The platform's events endpoint (Interface B, §4.2), written from the spec alone (node: built-ins only). Correct by
// default; `--fault NAME` gives it exactly one plausible implementation mistake (FAULTS below).
//
//   CAI_SECRET=… node receiver-b.mjs --provider CODE [--port N] [--success 202|200|201] [--ack ok|empty|extra]
//     [--errors json|empty|text] [--close] [--fault NAME]
//
// It binds 127.0.0.1, prints its events URL as the first line of stdout, then one line per event it records
// (`recorded <event_id as JSON>`), and runs until SIGTERM.
import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { readBody, runAsProgram, serve } from './server.mjs';
import {
  MAX_BODY_BYTES,
  RULES,
  WINDOW_SECONDS,
  eventProblem,
  parseJsonBody,
  sameSecretString,
  signatureOf,
} from './spec.mjs';

/** One mistake each, written from the rules of the spec (the clause each breaks). */
export const FAULTS = [
  // The signature (§5.2, §5.3).
  {
    name: 'sig-no-dot',
    clause: '§5.2',
    description: 'verifies over the timestamp and the body with no dot between them',
  },
  {
    name: 'sig-uppercase-hex',
    clause: '§5.3',
    description: 'accepts the hex digest in upper case too (compares case-insensitively)',
  },
  { name: 'sig-bare-hex', clause: '§5.3', description: 'accepts a signature header without the `sha256=` prefix' },
  {
    name: 'sig-length-only',
    clause: '§5.3',
    description: 'accepts any 64 hex digits: the comparison result is never used',
  },
  { name: 'sig-prefix-compare', clause: '§5.3', description: 'compares only the first 16 hex digits of the signature' },
  // The window (§5.4, §5.5).
  {
    name: 'window-off-by-one',
    clause: '§5.5',
    description: 'rejects only when the skew is over 301 s: 301 s off is accepted',
  },
  {
    name: 'window-past-only',
    clause: '§5.5',
    description: 'rejects stale timestamps only: any timestamp in the future is accepted (no absolute value)',
  },
  {
    name: 'window-from-occurred-at',
    clause: '§5.4',
    description: "measures the window from the body's occurred_at when present, not from X-CAI-Timestamp",
  },
  {
    name: 'window-accepts-ms',
    clause: '§5.4',
    description: 'reads a 13-digit timestamp as milliseconds and accepts it',
  },
  // The limits (§8).
  {
    name: 'size-in-characters',
    clause: '§8',
    description: 'counts the body size in characters of the decoded text, not in bytes',
  },
  {
    name: 'size-content-length-only',
    clause: '§8',
    description: 'enforces the size limit only from Content-Length: a chunked body of any size is read and accepted',
  },
  { name: 'size-400', clause: '§7', description: 'refuses a body over 256 KB with 400 instead of 413' },
  { name: 'event-id-bytes', clause: '§8', description: 'counts the event_id length in UTF-8 bytes, not characters' },
  // The provider's identity (§5.6).
  { name: 'provider-case-insensitive', clause: '§5.6', description: 'compares X-CAI-Provider case-insensitively' },
  // Identifiers and dedupe (§6.1, §2.13).
  {
    name: 'dedupe-case-insensitive',
    clause: '§6.1',
    description: 'compares event_ids case-insensitively (a case-insensitive collation)',
  },
  { name: 'dedupe-trims', clause: '§6.1', description: 'trims white space around event_ids before comparing them' },
  { name: 'dedupe-nfc', clause: '§6.1', description: 'NFC-normalises event_ids before comparing them' },
  {
    name: 'dedupe-last-16',
    clause: '§6.1',
    description: 'remembers only the last 16 event_ids: an older repeat is recorded again',
  },
  {
    name: 'dedupe-forgets',
    clause: '§6.1',
    description: 'forgets an event_id 3 seconds after it was recorded (a short cache TTL)',
  },
  // Side effects (§6.1, §7): a refused document leaves no trace; a repeat is never recorded twice.
  {
    name: 'records-before-auth',
    clause: '§6.1',
    description:
      'dedupes (checks and records the event_id) before checking the signature: a refused event makes its valid repeat a duplicate',
  },
  {
    name: 'records-before-schema',
    clause: '§6.1',
    description:
      'dedupes (checks and records the event_id) before validating the document: an event refused 400 makes its corrected repeat a duplicate',
  },
  {
    name: 'dedupe-on-body',
    clause: '§6.1',
    description: 'dedupes on the event_id and a hash of the body: a repeat with a changed body is recorded again',
  },
  // Enumerations and formats (§2.1, §2.10-§2.12, §6).
  {
    name: 'enum-case-insensitive',
    clause: '§2.10',
    description: 'accepts enumeration values in any case (WhatsApp, OUTBOUND)',
  },
  {
    name: 'enum-synonyms',
    clause: '§2.11',
    description: 'accepts synonyms of enumeration values (author bot, direction incoming, outcome no-answer)',
  },
  { name: 'e164-max-14', clause: '§2.1', description: 'refuses an E.164 number of 15 digits' },
  { name: 'e164-no-plus', clause: '§2.1', description: 'accepts an E.164 number without its plus sign' },
  { name: 'date-time-no-fraction', clause: '§2.1', description: 'refuses a date-time with fractional seconds' },
  { name: 'date-time-no-z', clause: '§2.1', description: 'refuses a date-time in UTC written with Z' },
  {
    name: 'attempts-not-integer',
    clause: '§2.7',
    description: 'accepts a job.closed attempts that is a number but not an integer (1.5)',
  },
  // Error statuses (§7).
  { name: 'bad-signature-400', clause: '§7', description: 'answers an invalid signature with 400 instead of 401' },
  { name: 'schema-401', clause: '§7', description: 'answers an invalid document with 401 instead of 400' },
  {
    name: 'bad-json-500',
    clause: '§7',
    description: 'answers a body that is not JSON with 500 (an uncaught parse error)',
  },
];

function parseArgs(argv) {
  const args = { port: 0, success: 202, ack: 'ok', errors: 'json', close: false, fault: 'none' };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--close') args.close = true;
    else if (
      ['--port', '--provider', '--success', '--ack', '--errors', '--fault'].includes(flag) &&
      value !== undefined
    ) {
      args[flag.slice(2)] = value;
      i += 1;
    } else throw new Error(`unknown flag ${flag}`);
  }
  args.port = Number(args.port);
  args.success = Number(args.success);
  if (!args.provider) throw new Error('usage: --provider CODE');
  if (args.fault !== 'none' && !FAULTS.some((fault) => fault.name === args.fault))
    throw new Error(`unknown fault ${args.fault}`);
  return args;
}

/** The rules of §2.1 and the enumerations, with the one a fault breaks swapped in. */
function rulesFor(fault) {
  const SYNONYMS = {
    bot: 'agent',
    operator: 'human',
    customer: 'contact',
    incoming: 'inbound',
    outgoing: 'outbound',
    'no-answer': 'no_answer',
  };
  switch (fault) {
    case 'enum-case-insensitive':
      return { ...RULES, enumValue: (name, value) => RULES.enumValue(name, value.toLowerCase()) };
    case 'enum-synonyms':
      return { ...RULES, enumValue: (name, value) => RULES.enumValue(name, SYNONYMS[value] ?? value) };
    case 'e164-max-14':
      return { ...RULES, e164: (value) => /^\+[1-9]\d{1,13}$/.test(value) };
    case 'e164-no-plus':
      return { ...RULES, e164: (value) => /^\+?[1-9]\d{1,14}$/.test(value) };
    case 'date-time-no-fraction':
      return { ...RULES, dateTime: (value) => !value.includes('.') && RULES.dateTime(value) };
    case 'date-time-no-z':
      return { ...RULES, dateTime: (value) => !value.endsWith('Z') && RULES.dateTime(value) };
    case 'attempts-not-integer':
      return { ...RULES, integer: (value) => typeof value === 'number' && Number.isFinite(value) };
    case 'event-id-bytes':
      return { ...RULES, eventIdLength: (value) => Buffer.byteLength(value) };
    default:
      return RULES;
  }
}

/** The dedupe memory: event_id → when recorded; a fault changes the key or how long it is kept. */
function createMemory(fault) {
  const seen = new Map();
  const normalise = {
    'dedupe-case-insensitive': (id) => id.toLowerCase(),
    'dedupe-trims': (id) => id.trim(),
    'dedupe-nfc': (id) => id.normalize('NFC'),
  }[fault];
  const keyOf = (id, body) =>
    fault === 'dedupe-on-body'
      ? `${id}\u0000${createHash('sha256').update(body).digest('hex')}`
      : (normalise?.(id) ?? id);
  return {
    has(id, body) {
      const key = keyOf(id, body);
      if (fault === 'dedupe-forgets' && Date.now() - (seen.get(key) ?? Infinity) > 3000) seen.delete(key);
      return seen.has(key);
    },
    add(id, body) {
      seen.set(keyOf(id, body), Date.now());
      if (fault === 'dedupe-last-16' && seen.size > 16) seen.delete(seen.keys().next().value);
    },
  };
}

export function createReceiver(args, secret) {
  const { fault } = args;
  const rules = rulesFor(fault);
  const memory = createMemory(fault);

  function answer(res, status, body) {
    const headers = args.close ? { connection: 'close' } : {};
    if (body === undefined) {
      res.writeHead(status, { ...headers, 'content-length': '0' });
      return res.end();
    }
    const json = typeof body === 'object';
    const bytes = Buffer.from(json ? JSON.stringify(body) : body);
    res.writeHead(status, {
      ...headers,
      'content-type': json ? 'application/json' : 'text/plain; charset=utf-8',
      'content-length': String(bytes.length),
    });
    res.end(bytes);
  }

  /** §7 leaves the shape of error bodies open: JSON of our own shape, an empty body, or a line of text. */
  function refuse(res, status, reason) {
    if (args.errors === 'empty') return answer(res, status);
    if (args.errors === 'text') return answer(res, status, `${status} ${reason}\n`);
    return answer(res, status, { error: { status, reason } });
  }

  function accept(res) {
    // §4.2: the body of a first-time 202 is not fixed; §6.5: any 2xx means accepted.
    if (args.ack === 'empty') return answer(res, args.success);
    if (args.ack === 'extra')
      return answer(res, args.success, {
        ok: true,
        received: true,
        id: `rcv-${Date.now().toString(36)}`,
        note: 'extra fields',
      });
    return answer(res, args.success, { ok: true });
  }

  function checkSignature(header, timestamp, body) {
    let expected = signatureOf(secret, timestamp, body);
    if (fault === 'sig-no-dot') expected = `sha256=${hmacHex(secret, Buffer.concat([Buffer.from(timestamp), body]))}`;
    let given = header;
    if (fault === 'sig-uppercase-hex')
      given = given.replace(/^sha256=([0-9A-F]{64})$/, (_, hex) => `sha256=${hex.toLowerCase()}`);
    if (fault === 'sig-bare-hex' && /^[0-9a-f]{64}$/.test(given)) given = `sha256=${given}`;
    if (!/^sha256=[0-9a-f]{64}$/.test(given)) return false;
    if (fault === 'sig-length-only') return true;
    if (fault === 'sig-prefix-compare') return sameSecretString(given.slice(0, 23), expected.slice(0, 23));
    return sameSecretString(given, expected);
  }

  async function handle(req, res) {
    const path = new URL(req.url, 'http://receiver').pathname;
    if (path !== '/events') return drainThen(req, () => refuse(res, 404, 'no such endpoint'));
    if (req.method !== 'POST') return drainThen(req, () => refuse(res, 405, 'POST only'));
    const declared = req.headers['content-length'];
    const limitBytes =
      fault === 'size-content-length-only' && declared === undefined
        ? Infinity
        : fault === 'size-in-characters'
          ? 4 * MAX_BODY_BYTES
          : MAX_BODY_BYTES;
    const read = await readBody(req, limitBytes);
    const tooLarge =
      read.tooLarge || (fault === 'size-in-characters' && new TextDecoder().decode(read.bytes).length > MAX_BODY_BYTES);
    // §8, §7: over 256 KB, 413; checked first, on the bytes received whatever the framing.
    if (tooLarge) return refuse(res, fault === 'size-400' ? 400 : 413, 'body larger than 256 KB');
    const body = read.bytes;
    const early =
      fault === 'records-before-auth' || fault === 'window-from-occurred-at' ? parseJsonBody(body)?.value : undefined;
    if (fault === 'records-before-auth' && typeof early?.event_id === 'string' && dedupe(res, early.event_id, body))
      return;
    const authStatus = fault === 'bad-signature-400' ? 400 : 401;
    // §5.6: the credential is identified by X-CAI-Provider.
    const provider = req.headers['x-cai-provider'];
    const providerOk =
      fault === 'provider-case-insensitive'
        ? provider?.toLowerCase() === args.provider.toLowerCase()
        : provider === args.provider;
    if (!providerOk) return refuse(res, 401, 'unrecognised provider');
    // §5.4, §5.5: the timestamp of X-CAI-Timestamp, integer seconds, within 300 s either way.
    const timestamp = req.headers['x-cai-timestamp'];
    if (typeof timestamp !== 'string' || !/^\d{1,13}$/.test(timestamp))
      return refuse(res, 401, 'missing or malformed timestamp');
    if (!inWindow(timestamp, early)) return refuse(res, 401, 'timestamp outside the window');
    const signature = req.headers['x-cai-signature'];
    if (typeof signature !== 'string' || !checkSignature(signature, timestamp, body))
      return refuse(res, authStatus, 'invalid signature');
    const parsed = parseJsonBody(body);
    if (!parsed) {
      if (fault === 'bad-json-500') return refuse(res, 500, 'internal error');
      return refuse(res, 400, 'the body is not UTF-8 JSON');
    }
    const schemaStatus = fault === 'schema-401' ? 401 : 400;
    const dedupedEarly = fault === 'records-before-schema' && typeof parsed.value?.event_id === 'string';
    if (dedupedEarly && dedupe(res, parsed.value.event_id, body)) return;
    const problem = eventProblem(parsed.value, rules);
    if (problem) return refuse(res, schemaStatus, problem);
    if (fault !== 'records-before-auth' && !dedupedEarly && dedupe(res, parsed.value.event_id, body)) return;
    return accept(res);
  }

  /**
   * §6.1, §2.13: a repeat is answered as a duplicate and never recorded again (true: answered). Checked and recorded
   * in one turn of the event loop, so concurrent repeats cannot both pass.
   */
  function dedupe(res, id, body) {
    if (memory.has(id, body)) {
      answer(res, 202, { ok: true, duplicate: true });
      return true;
    }
    memory.add(id, body);
    process.stdout.write(`recorded ${JSON.stringify(id)}\n`);
    return false;
  }

  function inWindow(timestamp, early) {
    let seconds = Number(timestamp);
    if (fault === 'window-accepts-ms' && timestamp.length === 13) seconds = Math.floor(seconds / 1000);
    if (
      fault === 'window-from-occurred-at' &&
      typeof early?.occurred_at === 'string' &&
      !Number.isNaN(Date.parse(early.occurred_at))
    )
      seconds = Date.parse(early.occurred_at) / 1000;
    // Whole seconds on both sides: a timestamp exactly 300 s off is inside the window.
    const skew = Math.floor(Date.now() / 1000) - seconds;
    if (fault === 'window-past-only') return skew <= WINDOW_SECONDS;
    if (fault === 'window-off-by-one') return Math.abs(skew) <= WINDOW_SECONDS + 1;
    return Math.abs(skew) <= WINDOW_SECONDS;
  }

  // Kept connections stay open 30 s, not node's 5 s: a client that reuses a connection after a few idle seconds (a
  // busy machine) must not meet it closing under its request.
  return createServer({ requestTimeout: 30_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 400, 'unreadable request');
    });
  });
}

const hmacHex = (secret, data) => createHmac('sha256', secret).update(data).digest('hex');

function drainThen(req, then) {
  req.resume();
  req.on('end', then);
}

runAsProgram(import.meta, 'zoo receiver', () => {
  const args = parseArgs(process.argv.slice(2));
  const secret = process.env.CAI_SECRET;
  if (!secret) throw new Error('set $CAI_SECRET');
  serve(createReceiver(args, secret), args.port, '/events');
});
