/**
 * The zoo: senders and receivers of both interfaces written apart from cai, from the spec alone (test/zoo/node in
 * plain Node, test/zoo/python in plain Python; README.md there), judged by the built binary (`npm test` builds it).
 *
 * - Every correct sender passes `--role sender` with no failure and no warning, and every correct receiver passes
 *   the receiver suite; before that they are checked against each other and against a scripted judge, so that a
 *   failure here is cai's and not the zoo's.
 * - Every broken sender and receiver is caught (a check fails or warns); each is first shown to differ from a
 *   correct one (witnesses.ts), so that a fault cai misses is a real one.
 *
 * Which checks caught each broken program, and what a correct one was failed for, is logged at the end and written
 * to $ZOO_RESULTS (default: cai-zoo-results.json in the temp dir).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ROOT, spawnCli, spawnProcess } from '../helpers/cli.js';
import {
  A_RECEIVER_FAULTS,
  B_RECEIVER_FAULTS,
  PYTHON_B_RECEIVER_FAULTS,
  SENDER_FAULTS,
  type ZooFault,
} from './catalogue.mjs';
import {
  BRANCH,
  EVENTS_SECRET,
  JOBS_SECRET,
  PLATFORM,
  PROVIDER,
  ZOO,
  freshId,
  observeEvents,
  senderProblems,
  sleep,
  startJudge,
  startListener,
  startProgram,
  stopAllPrograms,
  type Program,
  type Scripted,
} from './support.js';
import { A_WITNESSES, B_WITNESSES } from './witnesses.js';

// Most of the time is waiting (backoffs, Retry-After, callbacks), so more at once than vitest's 5. A run takes
// seconds on a quiet machine; the time-outs leave room for a machine shared with other builds.
vi.setConfig({ maxConcurrency: 12, testTimeout: 240_000, hookTimeout: 60_000 });

type Interface = 'A' | 'B';
type Command = [string, string[]];

interface Check {
  id: string;
  verdict: string;
  tags: string[];
  expected?: string;
  actual?: string;
  notes?: string[];
}
interface Report {
  ok: boolean;
  checks: Check[];
  /** The run stopped at its first valid request, refused: the cause cai names instead of running the checks. */
  diagnosis?: { refused: { actual: string }; cause?: { message: string } };
}

// The interpreter itself, not a version manager's shim in front of it (pyenv's costs half a second a start).
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const node = (file: string, ...args: string[]): Command => [process.execPath, [join(ZOO, 'node', file), ...args]];
const python = (file: string, ...args: string[]): Command => [PYTHON, [join(ZOO, 'python', file), ...args]];
const shell = ([command, args]: Command) => [command, ...args].map((part) => `'${part}'`).join(' ');
const identity = (iface: Interface) => (iface === 'B' ? PROVIDER : PLATFORM);
const senderSecret = (iface: Interface) => (iface === 'B' ? EVENTS_SECRET : JOBS_SECRET);
const receiverEnv = (iface: Interface) =>
  iface === 'B' ? { CAI_SECRET: EVENTS_SECRET } : { CAI_SECRET: JOBS_SECRET, CAI_CALLBACK_SECRET: EVENTS_SECRET };
const receiverFlags = (iface: Interface) =>
  iface === 'B' ? ['--provider', PROVIDER] : ['--source', PLATFORM, '--provider', PROVIDER];

interface Sender {
  name: string;
  interface: Interface;
  count: number;
  command: Command;
}

/** Between them: 1, 3 and 20 documents; one after the other and 20 at once; every framing and spelling asked for. */
const SENDERS: Sender[] = [
  {
    name: 'node B: 1 event, canonical header names, Content-Length, a new connection per attempt',
    interface: 'B',
    count: 1,
    command: node('sender.mjs', '--interface', 'B', '--identity', PROVIDER),
  },
  {
    name: 'node B: 3 events of mixed types one after the other, lower-case header names, charset=utf-8, keep-alive',
    interface: 'B',
    count: 3,
    command: node(
      'sender.mjs',
      '--interface',
      'B',
      '--identity',
      PROVIDER,
      '--count',
      '3',
      '--types',
      'mixed',
      '--lower-case-headers',
      '--charset',
      '--keep-alive',
      '--base-delay',
      '50',
    ),
  },
  {
    name: 'node B: 20 events of mixed types at once, chunked, pretty-printed with CRLF, jittered backoff',
    interface: 'B',
    count: 20,
    command: node(
      'sender.mjs',
      '--interface',
      'B',
      '--identity',
      PROVIDER,
      '--count',
      '20',
      '--parallel',
      '20',
      '--types',
      'mixed',
      '--chunked',
      '--pretty-crlf',
      '--jitter',
      '0.2',
    ),
  },
  {
    name: 'python B: 3 events of mixed types, one kept connection, pretty-printed with CRLF',
    interface: 'B',
    count: 3,
    command: python(
      'sender.py',
      '--interface',
      'B',
      '--identity',
      PROVIDER,
      '--count',
      '3',
      '--keep-alive',
      '--pretty-crlf',
      '--base-delay',
      '50',
    ),
  },
  {
    name: 'node A: 1 job with only the required fields',
    interface: 'A',
    count: 1,
    command: node('sender.mjs', '--interface', 'A', '--identity', PLATFORM, '--optional', 'none'),
  },
  {
    name: 'node A: 20 jobs at once with every optional field, lower-case header names, chunked, keep-alive',
    interface: 'A',
    count: 20,
    command: node(
      'sender.mjs',
      '--interface',
      'A',
      '--identity',
      PLATFORM,
      '--count',
      '20',
      '--parallel',
      '20',
      '--optional',
      'all',
      '--lower-case-headers',
      '--chunked',
      '--keep-alive',
    ),
  },
  {
    name: 'python A: 3 jobs with and without optional fields, charset=utf-8, a new connection per attempt',
    interface: 'A',
    count: 3,
    command: python(
      'sender.py',
      '--interface',
      'A',
      '--identity',
      PLATFORM,
      '--count',
      '3',
      '--optional',
      'alternate',
      '--charset',
      '--base-delay',
      '50',
    ),
  },
];

interface Receiver {
  name: string;
  interface: Interface;
  command: Command;
  /** Warnings the spec supports for this receiver's choice (none but §4.2's 202 for a first-time event). */
  tolerate?: string[];
  /** The stdout line prefix it prints for each new document. */
  records: string;
}

const RECEIVERS: Receiver[] = [
  {
    name: 'node B: 202 {"ok":true}, JSON error bodies, keep-alive',
    interface: 'B',
    records: 'recorded ',
    command: node('receiver-b.mjs', ...receiverFlags('B')),
  },
  {
    name: 'node B: 202 with an empty body, empty error bodies, Connection: close after every answer',
    interface: 'B',
    records: 'recorded ',
    command: node('receiver-b.mjs', ...receiverFlags('B'), '--ack', 'empty', '--errors', 'empty', '--close'),
  },
  // §6.5: any 2xx means accepted; §4.2 names 202, so a warning for 200 or 201 is one the spec supports.
  {
    name: 'node B: 200 with extra fields, text error bodies',
    interface: 'B',
    records: 'recorded ',
    tolerate: ['B-ACCEPT-009'],
    command: node('receiver-b.mjs', ...receiverFlags('B'), '--success', '200', '--ack', 'extra', '--errors', 'text'),
  },
  {
    name: 'node B: 201 with an empty body, Connection: close',
    interface: 'B',
    records: 'recorded ',
    tolerate: ['B-ACCEPT-009'],
    command: node('receiver-b.mjs', ...receiverFlags('B'), '--success', '201', '--ack', 'empty', '--close'),
  },
  {
    name: 'python B: 202 with extra fields, text error bodies, HTTP/1.1 keep-alive',
    interface: 'B',
    records: 'recorded ',
    command: python('receiver_b.py', ...receiverFlags('B')),
  },
  {
    name: 'node A: 202 acknowledgment, calls back (three messages, then an ending), continues past a refused event',
    interface: 'A',
    records: 'job ',
    command: node('receiver-a.mjs', ...receiverFlags('A')),
  },
  {
    name: 'python A: 202 acknowledgment with an extra field, HTTP/1.0, calls back from a thread, stops at a refused event',
    interface: 'A',
    records: 'job ',
    command: python('receiver_a.py', ...receiverFlags('A')),
  },
];

const reproRoot = mkdtempSync(join(tmpdir(), 'cai-zoo-'));
let runs = 0;
/** What each case found, for the log and $ZOO_RESULTS: the checks that failed or warned. */
const results: Record<string, Record<string, string[]>> = {
  correctSenders: {},
  correctReceivers: {},
  silentProvider: {},
  brokenSenders: {},
  brokenReceivers: {},
};

/** `cai --json conformance run …` through the built binary. */
async function cai(argv: string[], env: NodeJS.ProcessEnv): Promise<Report> {
  runs += 1;
  const result = await spawnCli(
    ['--json', 'conformance', 'run', ...argv, '--repro-dir', join(reproRoot, `run-${runs}`)],
    { env },
  );
  if (result.code !== 0 && result.code !== 1)
    throw new Error(`cai exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as Report;
}

const flagged = (report: Report) =>
  report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning');
const edgeUntested = (report: Report) =>
  report.checks.some((check) =>
    (check.notes ?? []).some((note) => note.includes('one second outside') && note.includes('a later second')),
  );
const explain = (checks: Check[]) =>
  checks.map((check) => `${check.id} ${check.verdict}: expected ${check.expected}; actual ${check.actual}`).join('\n');

function judgeSender(iface: Interface, command: Command): Promise<Report> {
  const argv = [
    '--interface',
    iface,
    '--role',
    'sender',
    iface === 'B' ? '--provider' : '--source',
    identity(iface),
    '--trigger',
    shell(command),
    '--wait',
    '20s',
    '--observe',
    '1s',
  ];
  return cai(argv, { CAI_SECRET: senderSecret(iface) });
}

// The stateful phase at 400 requests (as wild-receivers.test.ts), 15 s at most on a busy machine: its fixed first
// conversation bears on every relation whatever the size; the rest, drawn, is the part a longer run explores further.
const PHASE_BUDGET = ['--generate', '400', '--budget', '15s'];

function judgeReceiver(iface: Interface, url: string, callbackWait = '15s'): Promise<Report> {
  const argv =
    iface === 'B'
      ? ['--interface', 'B', '--target', url, '--provider', PROVIDER]
      : [
          '--interface',
          'A',
          '--target',
          url,
          '--source',
          PLATFORM,
          '--provider',
          PROVIDER,
          '--branch-code',
          BRANCH,
          '--callback-secret-env',
          'CAI_CALLBACK_SECRET',
          '--callback-wait',
          callbackWait,
        ];
  return cai([...argv, ...PHASE_BUDGET], receiverEnv(iface));
}

/** Runs a zoo sender once against `url` (its CAI_TARGET_URL). */
function runSender(command: Command, iface: Interface, url: string) {
  return spawnProcess(command[0], command[1], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CAI_SECRET: senderSecret(iface), CAI_TARGET_URL: url },
  });
}

async function withProgram<T>(
  command: Command,
  env: NodeJS.ProcessEnv,
  use: (program: Program) => Promise<T>,
): Promise<T> {
  const program = await startProgram(command[0], command[1], env);
  try {
    return await use(program);
  } finally {
    await program.stop();
  }
}

// Reference points for the witnesses: one correct receiver of each kind, and a listener for the callbacks.
let correctB: Program;
let correctPythonB: Program;
let correctA: Program;
let listener: Awaited<ReturnType<typeof startListener>>;
beforeAll(async () => {
  [correctB, correctPythonB, correctA, listener] = await Promise.all([
    startProgram(...node('receiver-b.mjs', ...receiverFlags('B')), receiverEnv('B')),
    startProgram(...python('receiver_b.py', ...receiverFlags('B')), receiverEnv('B')),
    startProgram(...node('receiver-a.mjs', ...receiverFlags('A')), receiverEnv('A')),
    startListener(),
  ]);
});

afterAll(async () => {
  await Promise.all([correctB?.stop(), correctPythonB?.stop(), correctA?.stop(), listener?.close()]);
  stopAllPrograms();
  rmSync(reproRoot, { recursive: true, force: true });
  const file = process.env.ZOO_RESULTS ?? join(tmpdir(), 'cai-zoo-results.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const lines = Object.entries(results.brokenReceivers ?? {}).map(
    ([fault, ids]) => `  ${fault}: ${ids.length > 0 ? ids.join(' ') : 'NOT CAUGHT'}`,
  );
  console.log(`zoo: which checks caught each broken receiver (all results in ${file})\n${lines.join('\n')}`);
});

const SCRIPT: Scripted[] = [503, '429-date', 'cut', 202];

// A broken sender gives up after 15 s: one whose retries never succeed (a new event_id each time) ends its scenario sooner.
const BROKEN_SENDERS = SENDER_FAULTS.map((fault: ZooFault) => ({
  ...fault,
  command: node(
    'sender.mjs',
    '--interface',
    'B',
    '--identity',
    PROVIDER,
    '--count',
    '3',
    '--base-delay',
    '50',
    '--retry-for',
    '15000',
    '--fault',
    fault.name,
  ),
}));

interface BrokenReceiver extends ZooFault {
  interface: Interface;
  command: Command;
}

const BROKEN_RECEIVERS: BrokenReceiver[] = [
  ...B_RECEIVER_FAULTS.map((fault) => ({
    ...fault,
    interface: 'B' as const,
    command: node('receiver-b.mjs', ...receiverFlags('B'), '--fault', fault.name),
  })),
  ...PYTHON_B_RECEIVER_FAULTS.map((fault) => ({
    ...fault,
    interface: 'B' as const,
    command: python('receiver_b.py', ...receiverFlags('B'), '--fault', fault.name),
  })),
  ...A_RECEIVER_FAULTS.map((fault) => ({
    ...fault,
    interface: 'A' as const,
    command: node('receiver-a.mjs', ...receiverFlags('A'), '--fault', fault.name),
  })),
];

// Each sender against one receiver of its interface, and each receiver against one sender.
const PAIRS = (['B', 'A'] as Interface[]).flatMap((iface) => {
  const senders = SENDERS.filter((sender) => sender.interface === iface);
  const receivers = RECEIVERS.filter((receiver) => receiver.interface === iface);
  return Array.from({ length: Math.max(senders.length, receivers.length) }, (_, i) => {
    const [sender, receiver] = [senders[i % senders.length] as Sender, receivers[i % receivers.length] as Receiver];
    return { sender, receiver, name: `${sender.name} → ${receiver.name}` };
  });
});

// One flat list of concurrent tests, so that they all share the one limit (a describe block would run its tests only
// after the block before it), the longest waits first.

it.concurrent.each(SENDERS)('correct sender passes --role sender: $name', async (sender) => {
  const report = await judgeSender(sender.interface, sender.command);
  results.correctSenders![sender.name] = flagged(report).map(
    (check) => `${check.id} ${check.verdict}: ${check.actual}`,
  );
  expect(flagged(report), explain(flagged(report))).toEqual([]);
  expect(report.ok).toBe(true);
});

// A correct sender that its machine stopped for 2.5 s once, between signing a retry and sending it: its fresh signature
// arrives under the first attempt's timestamp, which cai cannot tell from a signature sent again (seen in CI, with 20
// retries held 5 s at once). Its other retries are signed afresh, so the held stage is played again, and the second
// play is the evidence; the first play's breach is a note, and the run passes. (On a machine that holds every first
// attempt up as long, the pair is not judged on the first play: a note too, and the run passes.)
it.concurrent('a correct sender held up once between signing and sending is not failed: played again, or the pair left open', async () => {
  const mark = join(mkdtempSync(join(tmpdir(), 'cai-zoo-hold-')), 'held');
  const command = node(
    'sender.mjs',
    '--interface',
    'B',
    '--identity',
    PROVIDER,
    '--base-delay',
    '50',
    '--hold-once',
    mark,
  );
  const report = await judgeSender('B', command);
  expect(existsSync(mark)).toBe(true);
  expect(flagged(report), explain(flagged(report))).toEqual([]);
  const fresh = report.checks.find((check) => check.id === 'BS-SIG-004');
  expect(fresh?.verdict).toBe('passed');
  // The held pair is a note: broken on the first play and not on the second; or, on a machine busy enough to hold
  // all the sender's first attempts up a second or more (seen in CI), not judged on the first play already.
  expect(fresh?.notes ?? []).toContainEqual(
    expect.stringMatching(
      /^(broken on a first play and not on the second.*|1 pair of attempts not judged: attempt #\d+ )arrived \d+\.\d\d s after #\d+ with the same timestamp/,
    ),
  );
});

it.concurrent.each(BROKEN_SENDERS)(
  'broken sender is caught by --role sender: $name ($clause: $description)',
  async (sender) => {
    const report = await judgeSender('B', sender.command);
    results.brokenSenders![sender.name] = flagged(report).map((check) => check.id);
    expect(flagged(report).length, `not caught: ${sender.description}`).toBeGreaterThan(0);
  },
);

it.concurrent.each(RECEIVERS)('correct receiver passes the receiver suite: $name', async (receiver) => {
  const report = await withProgram(receiver.command, receiverEnv(receiver.interface), (program) =>
    judgeReceiver(receiver.interface, program.url),
  );
  const wrong = flagged(report).filter((check) => !(receiver.tolerate ?? []).includes(check.id));
  results.correctReceivers![receiver.name] = flagged(report).map(
    (check) => `${check.id} ${check.verdict}: ${check.actual}`,
  );
  expect(wrong, explain(wrong)).toEqual([]);
  expect(report.ok).toBe(true);
});

it.concurrent('a provider that never calls back (node A, --no-callbacks) gets no passed check tagged callback', async () => {
  const report = await withProgram(
    node('receiver-a.mjs', ...receiverFlags('A'), '--no-callbacks'),
    receiverEnv('A'),
    (program) => judgeReceiver('A', program.url, '3s'),
  );
  const passed = report.checks.filter((check) => check.tags.includes('callback') && check.verdict === 'passed');
  results.silentProvider!['passed callback checks'] = passed.map((check) => check.id);
  expect(passed.map((check) => check.id)).toEqual([]);
});

/**
 * One process a fault: cai judges it, then a witness shows it differs from a correct receiver (witnesses.ts), so
 * that a fault cai misses is a real one. The witness sends its own fresh ids after cai's run.
 */
it.concurrent.each(BROKEN_RECEIVERS)(
  'broken receiver is caught by the receiver suite: $interface $name ($clause: $description)',
  async (receiver) => {
    await withProgram(receiver.command, receiverEnv(receiver.interface), async (program) => {
      const report = await judgeReceiver(receiver.interface, program.url);
      // A receiver that refuses every valid request is caught before any check: the run stops with the diagnosis.
      const caughtBy = report.diagnosis
        ? [`diagnosis: ${report.diagnosis.cause?.message ?? report.diagnosis.refused.actual}`]
        : flagged(report).map((check) => check.id);
      if (report.diagnosis) expect(report.ok).toBe(false);
      results.brokenReceivers![`${receiver.interface} ${receiver.name}`] = caughtBy;
      const [ours, theirs] = await witness(receiver, program.url);
      expect(theirs, `the witness: a correct receiver answers ${ours.join(' | ')}`).not.toEqual(ours);
      // A fault seen only on the window's edge may go uncaught where cai said the edge went untested (answered a
      // second late twice, on a busy machine), and only there.
      if (caughtBy.length === 0 && receiver.name === 'window-off-by-one' && edgeUntested(report)) return;
      expect(caughtBy.length, `not caught: ${receiver.description}`).toBeGreaterThan(0);
    });
  },
);

it.concurrent.each(SENDERS)(
  'correct sender, checked apart from cai: $name: every document delivered through 503, 429 with an HTTP-date, a cut connection, then 202',
  async (sender) => {
    const judge = await startJudge(senderSecret(sender.interface), SCRIPT);
    try {
      const result = await runSender(
        sender.command,
        sender.interface,
        sender.interface === 'B' ? `${judge.url}/events` : judge.url,
      );
      await sleep(500); // an attempt after the 202 would come now
      expect(result.code, result.stderr).toBe(0);
      expect(senderProblems(judge.byId, sender.count, SCRIPT)).toEqual([]);
      for (const attempts of judge.byId.values())
        for (const attempt of attempts)
          expect(attempt.path).toBe(sender.interface === 'B' ? '/events' : '/contact-jobs');
    } finally {
      await judge.close();
    }
  },
);

it.concurrent.each(PAIRS)(
  'correct sender against a correct receiver: $name: every document recorded once',
  async ({ sender, receiver }) => {
    const silent: Command = [
      receiver.command[0],
      [...receiver.command[1], ...(receiver.interface === 'A' ? ['--no-callbacks'] : [])],
    ];
    await withProgram(silent, receiverEnv(receiver.interface), async (program) => {
      const result = await runSender(sender.command, sender.interface, program.url);
      expect(result.code, result.stderr).toBe(0);
      await sleep(100);
      expect(program.lines.filter((line) => line.startsWith(receiver.records)).length).toBe(sender.count);
    });
  },
);

it.concurrent.each(BROKEN_SENDERS)(
  'broken sender, checked apart from cai: $name ($clause): the scripted judge sees it',
  async (sender) => {
    // The answers that show this fault (a 201, a 400, a 500, …), else the usual script; a fault across runs, in several.
    const script = (sender.witness as Scripted[] | undefined) ?? SCRIPT;
    const judge = await startJudge(EVENTS_SECRET, script);
    try {
      for (let run = 0; run < (sender.runs ?? 1); run += 1) await runSender(sender.command, 'B', `${judge.url}/events`);
      await sleep(500);
      expect(senderProblems(judge.byId, 3 * (sender.runs ?? 1), script)).not.toEqual([]);
    } finally {
      await judge.close();
    }
  },
);

it.concurrent.each(BROKEN_SENDERS.filter((sender) => sender.witness !== undefined))(
  'the witness of a broken sender is one a correct sender passes: $name',
  async (sender) => {
    const script = sender.witness as Scripted[];
    const correct: Command = [sender.command[0], sender.command[1].slice(0, sender.command[1].indexOf('--fault'))];
    const judge = await startJudge(EVENTS_SECRET, script);
    try {
      for (let run = 0; run < (sender.runs ?? 1); run += 1)
        expect((await runSender(correct, 'B', `${judge.url}/events`)).code).toBe(script.at(-1) === 400 ? 1 : 0);
      await sleep(500);
      expect(senderProblems(judge.byId, 3 * (sender.runs ?? 1), script)).toEqual([]);
    } finally {
      await judge.close();
    }
  },
);

/** The witness of a fault, seen on a correct receiver and on the broken one at `url`. */
/**
 * The witness, tried again with fresh ids while the two answer alike, three times at most: one on the window's edge
 * shows the difference only when both read the timestamp in the second it was stamped, which a busy machine can
 * delay for both.
 */
async function witness(receiver: BrokenReceiver, url: string): Promise<[string[], string[]]> {
  let seen = await witnessOnce(receiver, url);
  for (let again = 1; again < 3 && isDeepStrictEqual(seen[0], seen[1]); again += 1)
    seen = await witnessOnce(receiver, url);
  return seen;
}

async function witnessOnce(receiver: BrokenReceiver, url: string): Promise<[string[], string[]]> {
  if (receiver.interface === 'B') {
    const probes = B_WITNESSES[receiver.name];
    if (!probes) throw new Error(`no witness for ${receiver.name}`);
    const correct = receiver.command[0] === PYTHON ? correctPythonB : correctB;
    const id = freshId('witness');
    return Promise.all([observeEvents(correct.url, id, probes(id)), observeEvents(url, id, probes(id))]);
  }
  const observe = A_WITNESSES[receiver.name];
  if (!observe) throw new Error(`no witness for ${receiver.name}`);
  return Promise.all([
    observe({ endpoint: correctA.url, listener, id: freshId('witness') }),
    observe({ endpoint: url, listener, id: freshId('witness') }),
  ]);
}
