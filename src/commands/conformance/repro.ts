/**
 * The one reproducer, for both roles: for each failing check, its evidence saved to files and a command that shows
 * the failure again, written beside them as a script (`sh DIR/ID.sh`). The script's exit status is the verdict on
 * the target as it is now, never assumed: 0 the rule holds, 1 the failure shows again, 2 the script cannot tell
 * (a helper failed, or the receiver asks to wait), 3 no answer came.
 *
 * A receiver's failure judged on one answer's status (./probe/expectations.ts), against a receiver of the user's:
 * the body cai sent, and the request again, signed when the script runs (never a stale signature: `cai sign`, or a
 * raw HMAC for what `cai sign` refuses, a timestamp in milliseconds), its answer judged as the check judged it. Any
 * other failure, a check of several requests, and any check of a run against the built-in receiver (`--mock`, gone
 * when the run ends) is reproduced by running the check again (`--fail-on warnings` for a `should` check, so that
 * its failure is exit 1 too). A sender's failure: each attempt as it came (`<stage>/attempt-<n>.http`, readable by
 * `cai verify --request`, and `.body`), each stage's timeline, and a command that re-judges the saved request where
 * one command can; the events an Interface A provider sent back are judged by running the check again (a saved
 * event cannot show a fix), the command that re-judges the saved one written beside it.
 * Every command starts with the invocation that ran cai (an absolute path, or `npx cai-toolkit`) and every path is
 * absolute, so the script runs from any folder.
 */
import { join } from 'node:path';
import { shellQuote as quote } from '../../output/curl.js';
import { safeText } from '../../output/safe-text.js';
import { MASK, maskUrlPasswords, URL_PASSWORD } from '../../secrets/mask.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { Outcome } from '../../conformance/check.js';
import {
  attemptEventId,
  ms,
  timestampOf,
  type Attempt,
  type Exchange,
  type StageRecord,
} from '../../conformance/evidence.js';
import { describeScripted } from '../../conformance/listen/scenarios.js';
import type { Reproducer, ReproducerFactory, ReproSetup } from '../../conformance/runner.js';
import type { CheckResult, Reproduction } from '../../conformance/types.js';
import { makeDirs } from '../common/report-files.js';
import { secretFlagFor } from '../common/secret-options.js';
import { removePreviousReproductions, writeReproFile } from './repro-dir.js';
import { judgedRequest, sentAgainShows, statusRuleOf, type ShellProbes } from './repro-request.js';

/** The command line that runs one check again as the run ran it; `replay` a conversation's seed and path. */
export type Rerun = (checkId: string, replay?: string) => string;

/** A run's setup (ReproSetup) in the CLI's words: the secrets' sources as flags, the invocation and the rerun line. */
interface ReproContext {
  /** Absolute. */
  dir: string;
  /** How cai was run, already quoted: `'/usr/bin/node' '/…/bin/cai.js'`, `npx cai-toolkit`, or `cai`. */
  invocation: string;
  rerun: Rerun;
  probes?: ShellProbes;
  received?: { interface: InterfaceId; secretFlag: string; records(): readonly StageRecord[] };
}

/**
 * The CLI's reproductions: every command starts with `invocation`, and a check runs again by the line `rerunOf`
 * makes for the run (the command line as the user wrote it, ./rerun.ts; a library caller's: ./repro-defaults.ts).
 */
export function reproducerOf(invocation: string, rerunOf: (setup: ReproSetup) => Rerun): ReproducerFactory {
  return (setup) => {
    const { probes, received } = setup;
    return createReproducer({
      dir: setup.dir,
      invocation,
      rerun: rerunOf(setup),
      ...(probes ? { probes: { ...probes, secretFlag: secretFlagFor(probes.secretLabel) } } : {}),
      ...(received
        ? {
            received: {
              interface: received.interface,
              records: received.records,
              secretFlag: received.callbacks
                ? secretFlagFor(received.secretLabel, 'callback-secret', 'CAI_CALLBACK_SECRET')
                : secretFlagFor(received.secretLabel),
            },
          }
        : {}),
    });
  };
}

function createReproducer(context: ReproContext): Reproducer {
  // A directory used again holds this run's reproductions only (./repro-dir.ts), whether any check fails or none.
  removePreviousReproductions(context.dir);
  let prepared: Promise<unknown> | undefined;
  const sender = senderFiles(context);
  return async (result, outcome) => {
    prepared ??= makeDirs(context.dir);
    await prepared;
    const repro = outcome.attempts?.length
      ? await sender(result, outcome.attempts, outcome.replay)
      : outcome.exchanges?.length
        ? await receiverFiles(context, result, outcome)
        : undefined;
    return repro ? withScript(result, repro, context.dir) : undefined;
  };
}

/** A reproduction as written: the one-line command, the script's lines (the command itself by default), comments. */
interface Written {
  command: string;
  bodyFile: string;
  lines?: readonly string[];
  notes?: readonly string[];
}

/** The check run again: its exit status is its verdict; a `should` check's failure (a warning) is exit 1 too. */
function runAgain(context: ReproContext, result: CheckResult, replay?: string): string {
  const command = context.rerun(result.id, replay);
  return result.level === 'should' && !command.includes('--fail-on warnings')
    ? `${command} --fail-on warnings`
    : command;
}

/** The script beside the evidence: `sh DIR/ID.sh` is short enough to copy from any terminal; the user's alone. */
async function withScript(result: CheckResult, written: Written, dir: string): Promise<Reproduction> {
  const script = join(dir, `${result.id}.sh`);
  const comment = (text: string) => maskUrlPasswords(text.replace(/\s+/g, ' '));
  const { guards, lines } = withoutUrlPasswords(written.lines ?? [written.command]);
  const text = [
    '#!/bin/sh',
    `# ${result.id}: ${comment(result.title)} (${result.level}, ${result.sections.join(' ')})`,
    `# expected: ${comment(result.expected)}`,
    ...(written.notes ?? []).map((note) => `# ${comment(note)}`),
    '# Exit status: 0 the rule holds now, 1 the failure shows again, 2 this cannot tell, 3 no answer came.',
    ...guards,
    ...lines,
    '',
  ].join('\n');
  await writeReproFile(dir, script, text, { mode: 0o700 });
  return { command: written.command, bodyFile: written.bodyFile, script };
}

/**
 * A script holds no URL password (docs/limits.md): each is read when it runs from a variable the script names
 * (CAI_URL_PASSWORD, then CAI_URL_PASSWORD_2 …), as the secret is, and a message shows it masked. Without the
 * variable the script says which to set and exits 2 (it cannot tell).
 */
export function withoutUrlPasswords(lines: readonly string[]): { guards: string[]; lines: string[] } {
  const names = new Map<string, string>();
  const guards: string[] = [];
  const variable = (shown: string, password: string) => {
    let name = names.get(password);
    if (name === undefined) {
      name = names.size === 0 ? 'CAI_URL_PASSWORD' : `CAI_URL_PASSWORD_${names.size + 1}`;
      names.set(password, name);
      const why = quote(`set ${name} to the password of ${shown}`);
      guards.push(`[ -n "\${${name}+set}" ] || { echo ${why} >&2; exit 2; }`);
    }
    return name;
  };
  const bare = lines.map((line) =>
    line
      .replace(/echo '[^']*'/g, maskUrlPasswords)
      .replace(URL_PASSWORD, (match: string, url: string, password: string, at: number, whole: string) => {
        if (password === MASK) return match;
        const name = variable(maskUrlPasswords(/^[^\s'"]*/.exec(whole.slice(at))?.[0] ?? url), password);
        const quoting = quotingAt(whole, at);
        return `${url}:${quoting === "'" ? `'"\${${name}}"'` : quoting === '"' ? `\${${name}}` : `"\${${name}}"`}@`;
      }),
  );
  return { guards, lines: bare };
}

/** The quotes open at `end` in a line of shell: `'`, `"`, or none. */
function quotingAt(line: string, end: number): string {
  let open = '';
  for (let index = 0; index < end; index += 1) {
    const char = line[index];
    if (open === "'") open = char === "'" ? '' : open;
    else if (char === '\\') index += 1;
    else if (char === open) open = '';
    else if (open === '' && (char === "'" || char === '"')) open = char as string;
  }
  return open;
}

// --- A receiver's failure ------------------------------------------------------------------------------------

async function receiverFiles(context: ReproContext, result: CheckResult, outcome: Outcome): Promise<Written> {
  const probes = context.probes as NonNullable<ReproContext['probes']>;
  const exchanges = outcome.exchanges as readonly Exchange[];
  const base = (index: number) => join(context.dir, `${result.id}${exchanges.length === 1 ? '' : `-${index + 1}`}`);
  for (const [index, exchange] of exchanges.entries()) {
    await writeReproFile(context.dir, `${base(index)}.body`, exchange.request.body);
    const signature = exchange.request.recipe.signature;
    if (signature?.kind === 'other-body')
      await writeReproFile(context.dir, `${base(index)}.signed-body`, signature.body);
  }
  const exchange = exchanges[0] as Exchange;
  const bodyFile = `${base(0)}.body`;
  const otherFile = exchange.request.recipe.signature?.kind === 'other-body' ? `${base(0)}.signed-body` : undefined;
  // One request judged on its status, against the user's receiver, built again in the shell (recipe.ts), is sent
  // again as it was (signed afresh) and judged the same way. Anything else runs the check again: a check of several
  // requests (sent again as they were, its first request would now be a repeat), a burst whose one wrong answer
  // alone would not show the failure (`runAgain`), a judgement beyond the status, and any run against the built-in
  // receiver, gone with the run (the check runs against a fresh one with the same faults).
  const rule = exchanges.length === 1 ? statusRuleOf(exchange, result) : undefined;
  if (rule && !probes.mock && !outcome.runAgain && sentAgainShows(exchange, rule)) {
    const lines = judgedRequest(context.invocation, probes, exchange, { bodyFile, otherFile }, rule);
    return {
      command: `(${lines.join('; ')})`,
      bodyFile,
      lines,
      notes: [
        `Sends the request of the check again (${bodyFile}), signed as the check signed it with the secret as the run read it, and judges its answer as the check did.`,
      ],
    };
  }
  if (outcome.replay !== undefined) {
    // The conversation replayed meets the receiver in another state than the run left it in (what the run's other
    // conversations stored there): where it no longer breaks the relation, the whole phase runs again from its seed,
    // so that the script says 0 only when the rule holds.
    const replayed = runAgain(context, result, outcome.replay);
    const seed = outcome.replay.split(/[:~]/)[0] as string;
    return {
      command: replayed,
      bodyFile,
      lines: [`${replayed} && exec ${runAgain(context, result, seed)}`],
      notes: [
        'Plays again the conversation that broke the relation, then, if it no longer does, the whole stateful phase from its seed: the exit status is the verdict.',
      ],
    };
  }
  return {
    command: runAgain(context, result, outcome.replay),
    bodyFile,
    notes: ['Runs the check again against the receiver: its exit status is the verdict.'],
  };
}

// --- A sender's failure --------------------------------------------------------------------------------------

function senderFiles(
  context: ReproContext,
): (result: CheckResult, evidence: readonly Attempt[], replay?: string) => Promise<Written> {
  const received = context.received;
  // Each attempt (by itself) and each stage's timeline (by the stage's id) is saved once, however many checks cite it.
  const saved = new Map<unknown, Promise<unknown>>();
  const once = <V>(key: unknown, save: () => Promise<V>) => {
    if (!saved.has(key)) saved.set(key, save());
    return saved.get(key) as Promise<V>;
  };
  const saveTimeline = (record: StageRecord) =>
    makeDirs(join(context.dir, record.id)).then(() =>
      writeReproFile(
        context.dir,
        join(context.dir, record.id, 'timeline.txt'),
        timeline(record, received?.interface ?? 'B'),
      ),
    );
  return async (result, evidence, replay) => {
    const files = await Promise.all(evidence.map((attempt) => once(attempt, () => saveAttempt(context.dir, attempt))));
    const stages = new Set(evidence.map((attempt) => attempt.stage));
    await Promise.all(
      (received?.records() ?? [])
        .filter((record) => stages.has(record.id))
        .map((record) => once(record.id, () => saveTimeline(record))),
    );
    const first = evidence[0] as Attempt;
    const firstFiles = files[0] as { request: string; body: string };
    const rejudge = rejudgeCommand(context, result.id, first, firstFiles);
    // The events a provider sent back to a receiver run: a saved event cannot show a fix, the check run again can.
    if (context.probes) {
      return {
        command: runAgain(context, result, replay),
        bodyFile: firstFiles.body,
        notes: [
          `The ${received?.interface === 'B' ? 'event' : 'request'} as it came: ${firstFiles.request}${rejudge ? `; judged again by: ${rejudge}` : ''}.`,
          'Runs the check again against the provider (a new job, its events judged): its exit status is the verdict.',
        ],
      };
    }
    return {
      command: rejudge ?? runAgain(context, result, replay),
      bodyFile: firstFiles.body,
      ...(rejudge ? { notes: ['Judges the saved request again.'] } : {}),
    };
  };
}

async function saveAttempt(dir: string, attempt: Attempt): Promise<{ request: string; body: string }> {
  const folder = join(dir, attempt.stage);
  await makeDirs(folder);
  const base = join(folder, `attempt-${attempt.number}`);
  // The request as it came; a chunked body is saved whole with its length, so `cai verify --request` reads it.
  const headers = attempt.rawHeaders.filter(([name]) => name.toLowerCase() !== 'transfer-encoding');
  if (!headers.some(([name]) => name.toLowerCase() === 'content-length'))
    headers.push(['Content-Length', String(attempt.body.length)]);
  const head = [
    `${attempt.method} ${attempt.path} HTTP/${attempt.httpVersion}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  await writeReproFile(dir, `${base}.http`, Buffer.concat([Buffer.from(head, 'latin1'), attempt.body]));
  await writeReproFile(dir, `${base}.body`, attempt.body);
  return { request: `${base}.http`, body: `${base}.body` };
}

/**
 * One line per attempt: when it came (from the stage's start), its document, timestamp and size, cai's answer. What
 * the sender chose (the path, the event_id, the timestamp) is escaped as on the terminal (safeText): read with `cat`
 * it can move no cursor, and no field can begin a line of its own that reads as another attempt.
 */
export function timeline(record: StageRecord, iface: InterfaceId): string {
  const lines = [`scenario ${record.id}: ${safeText(record.targetUrl)}`];
  for (const attempt of record.attempts) {
    const at = ms(attempt.arrivedMono - record.startedMono);
    const facts = [
      `event_id ${safeText(attemptEventId(attempt) ?? '-')}`,
      `X-CAI-Timestamp ${safeText(timestampOf(attempt) ?? '-')}`,
      `${attempt.bodyBytes} bytes`,
    ];
    lines.push(
      `+${at} #${attempt.number}${attempt.late ? ' (late)' : ''} ${safeText(attempt.method)} ${safeText(attempt.path)} ${facts.join(', ')} → ${describeScripted(attempt.answer, iface)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The command that judges a saved attempt again, where one can (the signature, the document): `cai verify` takes
 * the secret as `--secret-env`/`--secret-file` whichever direction it is (a receiver run reads the events with its
 * callback secret).
 */
function rejudgeCommand(
  context: ReproContext,
  checkId: string,
  attempt: Attempt,
  files: { request: string; body: string },
): string | undefined {
  const cai = context.invocation;
  const received = context.received;
  const area = checkId.split('-')[1];
  if (received && area === 'SIG' && !checkId.endsWith('-004')) {
    const secretFlag = received.secretFlag.replace(/^--[a-z-]*secret-(env|file) /, '--secret-$1 ');
    return `${cai} verify ${secretFlag} --request ${quote(files.request)} --now ${Math.floor(attempt.arrivedAt / 1000)}`;
  }
  if (received && checkId.endsWith('DOC-001'))
    return `${cai} validate ${interfaceSpec(received.interface).document} ${quote(files.body)}`;
  return undefined;
}
