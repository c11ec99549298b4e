/**
 * The tool's own caps on what it reads, in one place: every reader of a file, stdin or an answer from
 * the network imports its number from here, and docs/limits.md is generated from this table (`npm run docs`; a
 * test keeps the two equal). A CLI that runs in CI on untrusted files and talks to hostile servers treats every
 * byte it reads as hostile: nothing is read past its cap, and nothing read is printed unescaped (src/output/safe-text.ts).
 *
 * The spec's own limits (§8: events of at most 262 144 bytes, event_id of at most 120 characters) are in
 * src/spec/constants.ts; the reference receivers' bounds (connections, bytes in memory, time-outs) are
 * DEFAULT_RECEIVER_LIMITS in src/http/server.ts; cai's own listeners of a conformance run and the inspector's
 * server are LISTENER_CAPS and INSPECTOR_SERVER_CAPS below. Plain data, no imports: every command may load it at no cost.
 */

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** The buffer a file is read in, and the chunk the inspector keeps bodies in: a size for speed, not §8's limit. */
export const READ_CHUNK_BYTES = 256 * KiB;

/** What cai does with an input that goes over its cap. */
type Beyond = 'refused' | 'line' | 'cut';

export interface InputCap {
  /** The cap in bytes. */
  bytes: number;
  /** How an error names the input: `body file x.json`, `the body on stdin`. */
  what: string;
  /** The next step, when it is over its cap. */
  hint: string;
  /** The flags and commands that read it, for the docs table. */
  readers: string;
  /** `refused`: an error (exit 2), reading stops at the cap. `line`: the NDJSON line is refused and reading stops. `cut`: the rest is discarded, and the result says so. */
  beyond: Beyond;
  /** Why this number. */
  why: string;
}

/**
 * Files and stdin. A regular file over its cap is refused before a byte is read; a pipe, stdin or a device
 * (`/dev/zero`) is read up to one byte past the cap, then refused: reading never goes further.
 */
export const INPUT_CAPS = {
  body: {
    bytes: 16 * MiB,
    what: 'body',
    hint: 'an event is at most 256 KB (§8); check that this is the body you meant',
    readers: '`sign --body`, `verify --body`, `send-job`/`send-event --body` (a file, or stdin)',
    beyond: 'refused',
    why: '64 times the 256 KB of an event (§8): room to sign or send an oversized body on purpose, never a runaway stream',
  },
  request: {
    bytes: 16 * MiB + 64 * KiB,
    what: 'request',
    hint: 'a capture is a request line, headers, a blank line and the body; check that the file is one',
    readers: '`verify --request`, `replay --request`',
    beyond: 'refused',
    why: 'a body at its cap, and 64 KiB of request line and headers',
  },
  document: {
    bytes: 16 * MiB,
    what: 'document',
    hint: 'for one document a line, use --ndjson',
    readers: '`validate FILE` and stdin, one document a file',
    beyond: 'refused',
    why: 'the same as a body; for one document a line, `--ndjson` reads a stream of any length',
  },
  ndjsonLine: {
    bytes: 4 * MiB,
    what: 'NDJSON line',
    hint: 'each line is one document; check that the file is NDJSON',
    readers: '`validate --ndjson` (each line; the stream itself is read in constant memory, however long)',
    beyond: 'line',
    why: '16 times the largest event (§8); a longer line is not a document: the line is invalid and reading that input stops',
  },
  logLine: {
    bytes: 4 * MiB,
    what: 'log line',
    hint: 'check that the file is a log the mocks wrote (one record a line)',
    readers: '`report --log` (each line; a log is read as a stream, however long)',
    beyond: 'line',
    why: 'the mocks write a record of at most about 350 KiB; a longer line means the file is not a log: error, reading stops',
  },
  batch: {
    bytes: 256 * MiB,
    what: 'NDJSON',
    hint: 'split the batch into several files, or send them in turn',
    readers: '`send-job`/`send-event --ndjson` (a file, or stdin; held in memory while it is sent)',
    beyond: 'refused',
    why: 'a million events of about 250 bytes; split a larger batch into several files',
  },
  resume: {
    bytes: 256 * MiB,
    what: 'resume',
    hint: 'pass the results file a previous run wrote with --output',
    readers: '`send-job`/`send-event --resume`',
    beyond: 'refused',
    why: 'the results of a batch at its cap',
  },
  catalog: {
    bytes: 4 * MiB,
    what: 'catalog',
    hint: 'check that the file is the branch catalog',
    readers: '`validate --catalog`, `mock platform --catalog`, `mock provider --catalog`',
    beyond: 'refused',
    why: 'tens of thousands of branches',
  },
  config: {
    bytes: 1 * MiB,
    what: 'config',
    hint: 'check that the file is the deployment profile (cai.config.json)',
    readers: '`--config`, `CAI_CONFIG`, `cai.config.json`',
    beyond: 'refused',
    why: 'a profile is a few KiB',
  },
  waivers: {
    bytes: 1 * MiB,
    what: 'waivers',
    hint: 'check that the file is the waivers list',
    readers: '`conformance run --waivers`',
    beyond: 'refused',
    why: 'one entry per check, a few hundred at most',
  },
  report: {
    bytes: 64 * MiB,
    what: 'conformance report',
    hint: 'pass the file `cai conformance run --json` wrote',
    readers: '`conformance run --rerun-failed`',
    beyond: 'refused',
    why: 'a report of every check with its evidence: 10 000 checks with their bodies stay well under it',
  },
  example: {
    bytes: 1 * MiB,
    what: 'signature example',
    hint: 'see fixtures/signature-example.json for the expected shape',
    readers: '`sign --example FILE`, `verify --example FILE`',
    beyond: 'refused',
    why: 'a secret, a timestamp, a body and a signature',
  },
  pem: {
    bytes: 1 * MiB,
    what: 'PEM',
    hint: 'check the path: a PEM certificate or key is a few KiB',
    readers: '`--ca`, `--tls-cert`, `--tls-key`',
    beyond: 'refused',
    why: 'a certificate chain is a few KiB',
  },
  secret: {
    bytes: 64 * KiB,
    what: 'secret',
    hint: 'check the path given to the secret file option: a secret is one line',
    readers:
      '`--secret-file` and the other `--*-secret-file` flags, `{"file": …}` secrets of a profile; a secret from a variable (`CAI_SECRET`, `--secret-env`) or `--secret` too',
    beyond: 'refused',
    why: 'a secret is one line; a larger file is the wrong file, and it is never echoed',
  },
} as const satisfies Record<string, InputCap>;

export type InputKind = keyof typeof INPUT_CAPS;

/**
 * How long a pipe given as a file (a FIFO, `<(cmd)`) may stay silent when it is read before any await (a secret
 * file, the config, a catalog), where cai cannot give way to Ctrl-C: then it is refused. Bodies and documents are read
 * with the event loop free, and wait on a silent pipe as on a silent stdin, until Ctrl-C.
 */
export const PIPE_SILENCE_MS = 10_000;

/** What cai takes from an answer of the network (the senders, `conformance run`, `doctor`). */
export const NETWORK_CAPS = {
  /** Bytes of a response body kept; the rest is discarded, the connection closed, and the result says so. */
  responseBodyBytes: 1 * MiB,
  /** The status line and headers of a response, in all (undici's maxHeaderSize); more is a failed attempt. */
  responseHeaderBytes: 16 * KiB,
  /** Characters of one response header value shown on the terminal; `--json` has it whole (within the bytes above). */
  shownHeaderCharacters: 256,
} as const;

/**
 * cai's own listeners during a conformance run: the sender listener of `--role sender` (cai as the receiver the
 * sender under test posts to) and the callback listener of `--interface A` (where the provider's events come back).
 * They are on the network for the whole run, and with `--listen 0.0.0.0` or a tunnel anyone can reach them: no
 * flood of connections, slow bodies or large bodies may take more than this, and what they record is bounded.
 */
export const LISTENER_CAPS = {
  /** Connections open at once; one more is closed on arrival, unanswered. */
  maxConnections: 256,
  /** The request line and headers must be in within this; else the connection is cut. */
  headersTimeoutMs: 10_000,
  /** A connection that sends nothing at all for this long is closed (one opened and left idle, too). */
  idleSocketTimeoutMs: 10_000,
  /** A body that sends no byte for this long is cut (the request is not recorded). */
  bodyIdleTimeoutMs: 10_000,
  /** A body not in full this long after its headers is cut (the request is not recorded). */
  bodyTimeoutMs: 30_000,
  /** Body bytes being read by all requests at once; a body that would go over gets 503 with Retry-After, unrecorded. */
  bufferedBytes: 64 * MiB,
  /** Requests a listener records in one run; past it, 503 with Retry-After, unrecorded, and the report says how many. */
  keptRequests: 2_000,
  /** Body bytes a listener records in one run, in all; past it, as past keptRequests. */
  keptBodyBytes: 256 * MiB,
  /** Addresses of requests to no scenario's URL kept for the report (all are counted). */
  keptStrays: 100,
} as const;

/**
 * A sender run (`--role sender`) ends whatever the sender does: every stage (a scenario, a generated conversation)
 * ends `stageWaits` × --wait (plus --observe) after it starts, the whole run `runWaits` × --wait after it starts
 * (plus the stateful phase's --budget), and the triggers still running then are stopped. A stage scripts its first
 * `scriptedDeliveries` documents, and at most `scriptedAlike` documents alike but for their event_id, and accepts the
 * rest at once: a sender that sends its document again under a new event_id on every retry comes to an end.
 */
export const SENDER_RUN_CAPS = {
  stageWaits: 2,
  runWaits: 5,
  scriptedDeliveries: 32,
  scriptedAlike: 3,
  /** A scenario whose timing cai's own lag left undecided is played again at most this many times. */
  timingReplays: 2,
} as const;

/**
 * The inspector's own web server (`cai mock … --ui`): GET only, on 127.0.0.1 unless `--ui HOST:PORT` says
 * otherwise; what it keeps of the requests is DEFAULT_INSPECTOR_LIMITS (src/inspector/limits.ts, docs/mocks.md).
 */
export const INSPECTOR_SERVER_CAPS = {
  /** Connections open at once (the page, its fetches and its live streams); at the limit, the idle make room. */
  maxConnections: 128,
  /**
   * Requests parsed and not yet answered on one connection (a page sends one at a time); one more: those are
   * answered, then it is closed.
   */
  maxRequestsInFlight: 16,
  /** The request line and headers within this (checked every second), the whole request within requestTimeoutMs. */
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  /** Characters of a filter's text (`q`, `lead`, …) used; the rest is ignored. */
  queryTextCharacters: 200,
} as const;

/**
 * The reference receivers' log (`cai mock … --log`) and dedupe memory (docs/mock-log.md, docs/mocks.md). Their
 * connections, body bytes and time-outs are DEFAULT_RECEIVER_LIMITS in src/http/server.ts.
 */
export const MOCK_LOG_CAPS = {
  /**
   * Bytes of event_ids one dedupe index holds (one per space); past it the oldest ids are forgotten, as past
   * `--dedupe-capacity`, and a repeat of one is accepted as new. About 9 million ids of 120 characters.
   */
  dedupeIdBytes: 1024 * MiB,
  /** A reload hands a line over whole up to this; a longer one is skipped (a record is at most about 700 KiB). */
  reloadLineBytes: 4 * MiB,
  /** Skipped lines a reload names by number (the rest are counted). */
  namedSkippedLines: 100,
  /** `--fsync everysec`: how often the log is synced when something was written since the last sync. */
  syncIntervalMs: 1000,
  /** A lock file with no readable holder is one being written for this long; older, it is stale. */
  lockWritingMs: 10_000,
} as const;

/**
 * The dedupe memory per event as measured by bench/mock-restart.bench.js (heap and buffers after GC, per id
 * stored, at 300 000 events; 28–47 and 125–144 bytes from 100 000 to 1 000 000), by the length of the event_id
 * in ASCII characters. Figures, not caps: re-measure when the table changes.
 */
export const DEDUPE_BYTES_PER_EVENT = { 13: 37, 110: 134 } as const;

/**
 * The stateful phase of a receiver run (src/conformance/explore): generated conversations, on by default. Its budget
 * of requests (`--generate N`) and of time (`--budget`) keeps a run against `--mock` within about 30 s (B) and 45 s
 * (A) on a quiet 2-core machine; A's jobs each start a conversation of callbacks, so fewer are sent.
 */
export const EXPLORE_CAPS = {
  receiver: {
    B: { defaultRequests: 2_500, defaultTimeLimitMs: 20_000 },
    A: { defaultRequests: 800, defaultTimeLimitMs: 15_000 },
  },
  /** The largest `--generate N`: minutes against a receiver on the network. */
  requests: 30_000,
  /** The longest `--budget`. */
  timeLimitMs: 30 * 60_000,
  /** Steps of one conversation at most, and conversations at once. */
  maxSteps: 20,
  concurrency: 4,
  /** Shrinking one relation's failure: at most this long (each candidate conversation is sent for real). */
  shrinkTimeMs: 15_000,
  /**
   * Against a sender: a conversation is one run of the trigger, whose documents get generated answer scripts.
   * `--generate N` draws N of them at most (besides the fixed ones that cover every relation), in
   * `defaultTimeLimitMs`; shrinking one relation's failure plays each candidate through the trigger.
   */
  sender: {
    defaultConversations: { B: 6, A: 6 },
    conversations: 500,
    defaultTimeLimitMs: 15_000,
    /** Shrinking every relation's failure, in all. */
    shrinkTimeMs: 20_000,
  },
} as const;

/**
 * JSON nesting. JSON.parse is iterative in V8 and takes any depth, and the validators walk only the fields the
 * spec defines, so a document nested 100 000 levels deep is judged like any other. cai's own recursive walks (the
 * pretty-printer of answers, the re-serialisations `verify` tries, `--set` values) stop at this depth instead of
 * overflowing the stack: the answer is shown as received, a diagnosis is skipped (and said so), a `--set` value
 * is refused.
 */
export const MAX_WALK_DEPTH = 256;

/**
 * A JSON body on a page (the inspector, a conformance report) is pretty-printed only while the pretty form stays
 * within this many times the body's length, plus `plus` characters: its indentation grows with depth, so a deep
 * body would take room quadratic in its size. Past it the body is shown as received.
 */
export const PRETTY_JSON_ROOM = { times: 8, plus: 64 * KiB } as const;

/** The deadlines of every wait on a peer (docs/limits.md, "Deadlines"), in a module of their own. */
export { DEADLINES, type Deadline } from './bounds-deadlines.js';
export { FLAG_BOUNDS } from './bounds-flags.js';

/** `16 MiB`, `64 KiB`, `16.1 MiB`: a cap as people read it (binary units, as the caps are set). */
export function formatCap(bytes: number): string {
  if (bytes >= MiB) return `${trim(bytes / MiB)} MiB`;
  if (bytes >= KiB) return `${trim(bytes / KiB)} KiB`;
  return `${bytes} bytes`;
}

function trim(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
