// The wild senders of the zoo: every program, broken or correct, as one entry a sender conformance run can take.
// `command` is [interpreter, ...args] with paths relative to the repository root; the runner appends
// `--identity CODE` (B: the provider code of X-CAI-Provider, A: the platform id of X-CAI-Source) and gives
// CAI_TARGET_URL and CAI_SECRET in the environment. `count` is how many documents one run sends.
import { FAULTS as NODE_FAULTS } from './wild-sender.mjs';

const NODE = ['node', 'test/zoo/wild-senders/wild-sender.mjs'];
const PYTHON = ['python3', 'test/zoo/wild-senders/wild_sender.py'];

/** The Python sender's faults (wild_sender.py FAULTS; `node witness.mjs --check-catalogue` keeps the two in step). */
export const PYTHON_FAULTS = [
  {
    name: 'retry-after-ms',
    interface: 'B',
    relation: 'S3',
    clause: '§7',
    description: 'reads Retry-After as milliseconds: "Retry-After: 2" waits 2 ms (an HTTP-date is read right)',
  },
  {
    name: 'caps-retry-after',
    interface: 'B',
    relation: 'S3',
    clause: '§7',
    description:
      'puts every wait, Retry-After included, through its 1 s cap "so no receiver can stall it": a longer Retry-After is cut to 1 s',
  },
  {
    name: 'retry-after-first-only',
    interface: 'B',
    relation: 'S3',
    clause: '§7',
    description:
      "honours Retry-After on a document's first 429 only: a second 429 is retried after the own short backoff",
  },
  {
    name: 'no-retry-on-429',
    interface: 'A',
    relation: 'S3',
    clause: '§7',
    description: 'treats every 4xx as final, 429 included: a rate-limited job is dropped',
  },
  {
    name: 'retries-413',
    interface: 'B',
    relation: 'S1',
    clause: '§7',
    description: "takes a 413 for a proxy's passing limit and retries it with backoff like a 5xx",
  },
  {
    name: 'shared-retry-clock',
    interface: 'B',
    relation: 'S2',
    clause: '§8',
    description:
      "measures the retry period from the start of the run, not from each document's first attempt: later documents are given up early",
  },
  {
    name: 'cut-retried-without-backoff',
    interface: 'B',
    relation: 'S2',
    clause: '§7',
    description: 'backs off after a 5xx but retries a cut connection at once, in a tight loop',
  },
  {
    name: 'renames-after-cut',
    interface: 'A',
    relation: 'S6',
    clause: '§2.2',
    description: 'after a cut connection it "plays safe": the same job sent again under a new event_id',
  },
  {
    name: 'id-from-clock-seconds',
    interface: 'B',
    relation: 'S6',
    clause: '§6.1',
    description: 'event_id "ev-" + the unix second: two events created in the same second share an id',
  },
  {
    name: 'job-id-from-phone',
    interface: 'A',
    relation: 'S6',
    clause: '§2.2',
    description:
      "event_id a hash of the contact's phone and branch: a second job for the same contact reuses the first's id",
  },
  {
    name: 'rebuilds-job-on-retry',
    interface: 'A',
    relation: 'S4',
    clause: '§2.2',
    description:
      'rebuilds the job from the lead on each attempt and stamps origin.captured_at with the time of building',
  },
  {
    name: 'reorders-keys-on-retry',
    interface: 'B',
    relation: 'S4',
    clause: '§6.1',
    description:
      're-serialises the stored event with sorted keys on retries: the same document, other bytes (S4: same bytes is best)',
  },
  {
    name: 'signature-not-refreshed',
    interface: 'A',
    relation: 'S5',
    clause: '§5.3',
    description:
      'computes the signature once, with the first timestamp, but sends a fresh X-CAI-Timestamp on every retry',
  },
  {
    name: 'ms-timestamp-on-retry',
    interface: 'B',
    relation: 'S5',
    clause: '§5.4',
    description:
      'the retry path stamps X-CAI-Timestamp in milliseconds (and signs with it): retries are outside the window',
  },
  {
    name: 'signs-pretty-sends-compact',
    interface: 'B',
    relation: 'S5',
    clause: '§5.2',
    description: 'signs the pretty-printed form of the event but sends the compact one',
  },
  {
    name: 'form-content-type-on-retry',
    interface: 'A',
    relation: 'S7',
    clause: '§2',
    description:
      'the retry path leaves the media type to a helper default: retries go out as application/x-www-form-urlencoded',
  },
  {
    name: 'charset-latin1',
    interface: 'B',
    relation: 'S7',
    clause: '§2',
    description:
      "labels every body with its framework's default charset, application/json; charset=iso-8859-1, while it sends UTF-8",
  },
  {
    name: 'query-on-url',
    interface: 'A',
    relation: 'S7',
    clause: '§4.1',
    description:
      'adds its API version as a query: every job is POSTed to {provider_endpoint}/contact-jobs?api-version=1.0',
  },
];

/** Arguments that let a sender conformance run see each fault (beyond --interface and --count). */
const FAULT_RUNS = {
  'retries-on-duplicate': { args: ['--retry-for', '15000'] },
  'new-id-every-retry': { count: 3, args: ['--parallel', '3'] },
  'id-from-lead-and-type': { count: 3 },
  'shared-retry-clock': { count: 2, args: ['--retry-for', '4000', '--base-delay', '100'] },
  'id-from-clock-seconds': { count: 3 },
  'job-id-from-phone': { count: 2 },
};

const broken = (lang, f) => {
  const run = FAULT_RUNS[f.name] ?? {};
  const count = run.count ?? 1;
  const program = lang === 'node' ? NODE : PYTHON;
  return {
    id: `wild-${lang}-${f.name}`,
    interface: f.interface,
    role: 'sender',
    kind: 'broken',
    relation: f.relation,
    clause: f.clause,
    description: f.description,
    command: [...program, '--interface', f.interface, '--count', String(count), ...(run.args ?? []), '--fault', f.name],
    count,
  };
};

const correct = (lang, id, iface, relation, clause, description, count, args) => ({
  id: `wild-${lang}-${id}`,
  interface: iface,
  role: 'sender',
  kind: 'correct',
  relation,
  clause,
  description,
  command: [...(lang === 'node' ? NODE : PYTHON), '--interface', iface, '--count', String(count), ...args],
  count,
});

export const CORRECT = [
  correct(
    'node',
    'jitter',
    'B',
    'S2',
    '§7',
    'every type of §6 in turn; waits doubling from 100 ms with ±40 % jitter',
    5,
    ['--types', 'all', '--base-delay', '100', '--jitter', '0.4'],
  ),
  // Seed 43 draws waits of about 200, 111, 424, 95 and 203 ms: neither growing nor steady, as full jitter may draw.
  correct(
    'node',
    'full-jitter',
    'B',
    'S2',
    '§7',
    'each wait drawn from 0 to a ceiling doubling from 200 ms ("full jitter"), seeded: the first five do not grow',
    1,
    ['--base-delay', '200', '--jitter', 'full', '--jitter-seed', '43'],
  ),
  correct('node', 'large-base-cap', 'B', 'S2', '§7', 'a 1 s backoff base capped at 4 s: 1, 2, 4, 4, 4 s', 1, [
    '--base-delay',
    '1000',
    '--max-delay',
    '4000',
  ]),
  correct(
    'node',
    'wait-max',
    'B',
    'S3',
    '§7',
    'after a 429 waits max(Retry-After, its own backoff), never less than Retry-After',
    2,
    ['--wait-max', '--base-delay', '250'],
  ),
  correct(
    'node',
    'http-date-forms',
    'B',
    'S3',
    '§7',
    'Retry-After as an HTTP-date read in all three forms of RFC 9110 §5.6.7 (IMF-fixdate, RFC 850, asctime) by a parser of its own',
    1,
    [],
  ),
  correct(
    'node',
    'mixed-case-headers',
    'A',
    'S7',
    '§4.1',
    'header names in alternating case (cOnTeNt-tYpE, x-cAi-sIgNaTuRe): HTTP names are case-insensitive',
    2,
    ['--header-case', 'mixed'],
  ),
  correct(
    'node',
    'upper-case-headers',
    'B',
    'S7',
    '§4.2',
    'header names in upper case (X-CAI-PROVIDER, CONTENT-TYPE)',
    1,
    ['--header-case', 'upper'],
  ),
  correct(
    'node',
    'pipelined',
    'B',
    'S7',
    '§4.2',
    'all first attempts written at once, pipelined on one kept-alive HTTP/1.1 connection; retries each on its own',
    5,
    ['--transport', 'pipeline', '--types', 'all'],
  ),
  correct(
    'node',
    'http10',
    'A',
    'S7',
    '§4.1',
    'HTTP/1.0 over a raw socket, one connection per attempt, the answer read to its close',
    2,
    ['--transport', 'http10'],
  ),
  correct(
    'node',
    'expect-continue',
    'B',
    'S7',
    '§4.2',
    'every attempt with Expect: 100-continue, the body sent after 100 Continue (or after 1 s without it)',
    2,
    ['--expect-continue'],
  ),
  correct('node', 'tiny-chunks', 'B', 'S7', '§4.2', 'chunked bodies in 7-byte chunks, no Content-Length', 3, [
    '--chunk-size',
    '7',
    '--types',
    'all',
  ]),
  correct(
    'node',
    'parallel-own-connections',
    'A',
    'S7',
    '§4.1',
    'ten jobs at once, each attempt on its own connection',
    10,
    ['--parallel', '10'],
  ),
  correct(
    'node',
    'keep-alive-at-once',
    'B',
    'S7',
    '§4.2',
    'five events at once queued on one kept-alive connection',
    5,
    ['--parallel', '5', '--transport', 'keep-alive', '--types', 'all'],
  ),
  correct(
    'node',
    'unicode-ids',
    'B',
    'S6',
    '§2.4',
    'event_ids of exactly 120 code points, half astral (over 120 UTF-16 units); §8 counts characters',
    3,
    ['--id-style', 'unicode120'],
  ),
  correct(
    'python',
    'pretty-crlf',
    'B',
    'S4',
    '§5.2',
    'pretty-printed bodies with CRLF line ends, signed exactly as sent; the same bytes on every retry',
    3,
    ['--pretty-crlf'],
  ),
  correct(
    'python',
    'key-orders',
    'B',
    'S4',
    '§2.4',
    'a different key order for each document (reversed, sorted, shuffled), kept on its retries',
    4,
    ['--key-order', 'vary', '--types', 'all'],
  ),
  correct(
    'python',
    'one-connection',
    'B',
    'S7',
    '§4.2',
    'one kept-alive connection for every document of the run, reopened after a cut',
    3,
    ['--connection', 'one'],
  ),
  correct(
    'python',
    'offsets-extra-fields',
    'A',
    'S7',
    '§2.2',
    'every optional field, unknown fields at the top and inside objects (§9.2), date-times with offsets such as +05:45 and microseconds',
    3,
    ['--optional', 'all', '--extra-fields', '--varied-offsets'],
  ),
  correct(
    'python',
    'required-only-ascii',
    'A',
    'S7',
    '§2.2',
    'only the required fields of §2.2, bodies with \\u escapes for every non-ASCII character',
    2,
    ['--optional', 'none', '--ascii'],
  ),
  correct(
    'python',
    'lower-case-http-date',
    'B',
    'S3',
    '§7',
    'lower-case header names; Retry-After read as seconds or any HTTP-date form (email.utils); the default json.dumps separators ", " and ": "',
    2,
    ['--header-case', 'lower'],
  ),
];

export const BROKEN = [...NODE_FAULTS.map((f) => broken('node', f)), ...PYTHON_FAULTS.map((f) => broken('python', f))];

/** Every wild sender: the broken ones first, then the correct ones. */
export const CATALOGUE = [...BROKEN, ...CORRECT];
export default CATALOGUE;
