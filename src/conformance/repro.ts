/**
 * The one reproducer, for both roles: for each failing check, its evidence saved to files and a command that shows
 * the failure again, written beside them as a script (`sh DIR/ID.sh`). A receiver's failure: the bodies cai sent,
 * and the request again, signed when the command runs (never a stale signature): a plain `send-event` /
 * `send-job` where the check sent a normal signed request, a `curl` line whose deliberately wrong part is rebuilt
 * from `cai sign` otherwise. A check of several requests, and any check of a run against the built-in receiver
 * (`--mock`, gone when the run ends), is reproduced by running the check again. A sender's failure: each
 * attempt as it came (`<stage>/attempt-<n>.http`, readable by `cai verify --request`, and `.body`), each stage's
 * timeline, and a command that re-judges the saved request where one command can, or runs the check again.
 * Every command starts with the invocation that ran cai (an absolute path, or `npx cai-toolkit`) and every path is
 * absolute, so the script runs from any folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { curlCommand, shellQuote as quote, type CurlRequest } from '../http/curl.js';
import { HeaderNames, Headers, type InterfaceId } from '../spec/constants.js';
import { interfaceSpec } from '../spec/interfaces.js';
import type { Outcome } from './check.js';
import { attemptEventId, ms, timestampOf, type Attempt, type Exchange, type StageRecord } from './evidence.js';
import { describeScripted } from './listen/scenarios.js';
import { rebuiltBySign, type RequestRecipe } from './probe/recipe.js';
import type { Reproducer } from './runner.js';
import type { CheckResult, Reproduction } from './types.js';

export interface ReproContext {
  /** Absolute. */
  dir: string;
  /** How cai was run, already quoted: `'/usr/bin/node' '/…/bin/cai.js'`, `npx cai-toolkit`, or `cai`. */
  invocation: string;
  /** The command that runs one check again, as this run ran it (invocation included); `replay` a conversation's seed and path. */
  rerun(checkId: string, replay?: string): string;
  /** A receiver run: where requests went and how they were signed; `mock` when the receiver was the built-in one. */
  probes?: {
    interface: InterfaceId;
    /** The URL the user gave, and where requests were posted. */
    target: string;
    postUrl: string;
    /** B: the provider code; A: the platform id. */
    identity: string;
    /** How the signing secret is passed, e.g. `--secret-env CAI_SECRET` (never the value). */
    secretFlag: string;
    clockOffsetSeconds: number;
    mock: boolean;
  };
  /** Attempts cai received (a sender run, or an Interface A provider's callbacks): their documents' interface and secret. */
  received?: {
    interface: InterfaceId;
    secretFlag: string;
    records(): readonly StageRecord[];
  };
}

/** `--secret-env NAME` / `--secret-file PATH` as given; an inline or generated secret becomes `--secret-env CAI_SECRET`. */
export function secretFlagFor(label: string | undefined, prefix = 'secret', defaultEnv = 'CAI_SECRET'): string {
  if (label === undefined) return `--${prefix}-env ${defaultEnv}`;
  const flag = new RegExp(`^--${prefix}-(env|file) (.+)$`).exec(label);
  if (flag) return `--${prefix}-${flag[1]} ${quote(flag[2] as string)}`;
  if (/^[A-Z_][A-Z0-9_]*$/.test(label)) return `--${prefix}-env ${label}`;
  return `--${prefix}-env ${defaultEnv}`;
}

export function createReproducer(context: ReproContext): Reproducer {
  let prepared: Promise<unknown> | undefined;
  const sender = senderFiles(context);
  return async (result, outcome) => {
    prepared ??= mkdir(context.dir, { recursive: true });
    await prepared;
    const repro = outcome.attempts?.length ? await sender(result.id, outcome.attempts, outcome.replay) : outcome.exchanges?.length ? await receiverFiles(context, result, outcome) : undefined;
    return repro ? withScript(result, repro, context.dir) : undefined;
  };
}

/** The script beside the evidence: `sh DIR/ID.sh` is short enough to copy from any terminal. */
async function withScript(result: CheckResult, repro: Reproduction, dir: string): Promise<Reproduction> {
  const script = join(dir, `${result.id}.sh`);
  const comment = (text: string) => text.replace(/\s+/g, ' ');
  const text = [
    '#!/bin/sh',
    `# ${result.id}: ${comment(result.title)} (${result.level}, ${result.sections.join(' ')})`,
    `# expected: ${comment(result.expected)}`,
    '# Shows the failure again; the signing secret is read as the run read it.',
    repro.command,
    '',
  ].join('\n');
  await writeFile(script, text, { mode: 0o755 });
  return { ...repro, script };
}

// --- A receiver's failure ------------------------------------------------------------------------------------

async function receiverFiles(context: ReproContext, result: CheckResult, outcome: Outcome): Promise<Reproduction> {
  const probes = context.probes as NonNullable<ReproContext['probes']>;
  const exchanges = outcome.exchanges as readonly Exchange[];
  // A mutation that `cai sign` and curl cannot rebuild afresh (recipe.ts) is shown again by running the check.
  const rebuilt = exchanges.every((exchange) => rebuiltBySign(exchange.request.recipe));
  const bodies: string[] = [];
  const commands: string[] = [];
  for (const [index, exchange] of exchanges.entries()) {
    const suffix = exchanges.length === 1 ? '' : `-${index + 1}`;
    const bodyFile = join(context.dir, `${result.id}${suffix}.body`);
    await writeFile(bodyFile, exchange.request.body);
    bodies.push(bodyFile);
    const recipe = exchange.request.recipe;
    let otherFile: string | undefined;
    if (recipe.signature?.kind === 'other-body') {
      otherFile = join(context.dir, `${result.id}${suffix}.signed-body`);
      await writeFile(otherFile, recipe.signature.body);
    }
    if (rebuilt) commands.push(requestCommand(context.invocation, probes, recipe, exchange, bodyFile, otherFile));
  }
  // One request is sent again as it was (signed afresh). A check of several requests (a repeat, a burst) runs again
  // whole, with fresh event_ids: sent again as they were, its first request would now be a repeat. The built-in
  // receiver is gone with the run: the check runs again against a fresh one. Either way the exit status is the verdict.
  // A burst of concurrent repeats keeps as evidence the one answer that was wrong, which sent alone would not show
  // the failure (`runAgain`).
  const command = context.probes?.mock || commands.length !== 1 || outcome.runAgain ? context.rerun(result.id, outcome.replay) : (commands[0] as string);
  return { command, bodyFile: bodies[0] as string };
}

function isPlain(recipe: RequestRecipe): boolean {
  const signature = recipe.signature?.kind ?? 'valid';
  const timestamp = recipe.timestamp ?? { kind: 'now' as const };
  const identity = recipe.identity?.kind ?? 'default';
  return (
    signature === 'valid' &&
    timestamp.kind === 'now' &&
    !timestamp.shiftSeconds &&
    !timestamp.prefix &&
    identity === 'default' &&
    !recipe.sourceAddress &&
    recipe.contentType === undefined &&
    !recipe.chunked
  );
}

function requestCommand(cai: string, context: NonNullable<ReproContext['probes']>, recipe: RequestRecipe, exchange: Exchange, bodyFile: string, otherFile: string | undefined): string {
  const spec = interfaceSpec(context.interface);
  if (isPlain(recipe)) {
    // The sending commands sign at send time; --no-validate keeps deliberately odd bodies, --no-retry shows the first answer.
    const command = spec.document === 'event' ? 'send-event' : 'send-job';
    return `${cai} ${command} --to ${quote(context.target)} ${spec.identityFlag} ${quote(context.identity)} ${context.secretFlag} --body ${quote(bodyFile)} --no-validate --no-retry`;
  }
  const lines: string[] = [];
  const timestamp = recipe.timestamp ?? { kind: 'now' as const };
  const shift = (timestamp.kind === 'now' ? (timestamp.shiftSeconds ?? 0) : 0) + context.clockOffsetSeconds;
  lines.push(shift === 0 ? 'ts=$(date +%s)' : `ts=$(( $(date +%s) ${shift < 0 ? '-' : '+'} ${Math.abs(shift)} ))`);
  if (timestamp.kind === 'milliseconds') lines.push('ts_sent=$(( ts * 1000 + 123 ))');
  // Inside double quotes: `$ts` expands; a literal (an ISO date in the malformed-timestamp checks) has no `$` or `"`.
  const prefix = timestamp.kind === 'now' ? (timestamp.prefix ?? '').replace(/["$`\\]/g, '') : '';
  const sentTimestamp = timestamp.kind === 'literal' ? timestamp.value.replace(/["$`\\]/g, '') : timestamp.kind === 'milliseconds' ? '$ts_sent' : `${prefix}$ts`;
  const signTimestamp = timestamp.kind === 'milliseconds' ? '$ts_sent' : '$ts';
  const signWith = (file: string, ts: string, cut = '') =>
    `"${HeaderNames.signature}: $(${cai} sign ${context.secretFlag} --body ${quote(file)} --timestamp ${ts} | sed -n 's/^${HeaderNames.signature}: //p'${cut})"`;
  const sent = quote(`${HeaderNames.signature}: ${exchange.request.headers[Headers.signature] ?? ''}`);
  const signature = recipe.signature ?? { kind: 'valid' as const };
  const signatureHeader = {
    valid: () => (timestamp.kind === 'literal' ? sent : signWith(bodyFile, prefix === '' ? signTimestamp : `${prefix}${signTimestamp}`)),
    'bare-timestamp': () => signWith(bodyFile, signTimestamp),
    'other-body': () => signWith(otherFile ?? bodyFile, signTimestamp),
    'other-timestamp': () => signWith(bodyFile, '$((ts - 7))'),
    truncated: () => signWith(bodyFile, signTimestamp, ' | cut -c1-70'),
    // Deliberately wrong whatever the time: the value used in the run is shown as is.
    'wrong-secret': () => sent,
    literal: () => sent,
    none: () => undefined,
    // Not rebuilt by sign (receiverFiles runs the check again): listed so that every kind has its line.
    respelled: () => sent,
    rotation: () => sent,
    damaged: () => sent,
    'other-string': () => sent,
  }[signature.kind]();
  const identity = recipe.identity ?? { kind: 'default' as const };
  const identityValue = identity.kind === 'default' ? context.identity : identity.kind === 'value' ? identity.value : undefined;
  const headers: CurlRequest['headers'] = [
    ['Content-Type', recipe.contentType ?? 'application/json'],
    ...(recipe.chunked ? [['Transfer-Encoding', 'chunked'] as const] : []),
    ...(identityValue !== undefined ? [[spec.identityHeaderName, identityValue] as const] : []),
    ...(timestamp.kind !== 'none' ? [{ shell: `"${HeaderNames.timestamp}: ${sentTimestamp}"` }] : []),
    ...(signatureHeader !== undefined ? [{ shell: signatureHeader }] : []),
  ];
  const options = recipe.sourceAddress ? [['--interface', recipe.sourceAddress] as const] : [];
  const curl = curlCommand({ url: context.postUrl, headers, options, data: { file: bodyFile } }, 'one-line');
  return `(${[...lines, curl].join('; ')})`;
}

// --- A sender's failure --------------------------------------------------------------------------------------

function senderFiles(context: ReproContext): (checkId: string, evidence: readonly Attempt[], replay?: string) => Promise<Reproduction> {
  const received = context.received;
  const saved = new Map<Attempt, Promise<{ request: string; body: string }>>();
  const timelines = new Map<string, Promise<void>>();
  const save = (attempt: Attempt) => {
    let files = saved.get(attempt);
    if (!files) {
      files = saveAttempt(context.dir, attempt);
      saved.set(attempt, files);
    }
    return files;
  };
  const saveTimeline = (record: StageRecord) => {
    let done = timelines.get(record.id);
    if (!done) {
      done = mkdir(join(context.dir, record.id), { recursive: true }).then(() => writeFile(join(context.dir, record.id, 'timeline.txt'), timeline(record, received?.interface ?? 'B')));
      timelines.set(record.id, done);
    }
    return done;
  };
  return async (checkId, evidence, replay) => {
    const files = await Promise.all(evidence.map(save));
    const stages = new Set(evidence.map((attempt) => attempt.stage));
    await Promise.all((received?.records() ?? []).filter((record) => stages.has(record.id)).map(saveTimeline));
    const first = evidence[0] as Attempt;
    const firstFiles = files[0] as { request: string; body: string };
    return { command: senderCommand(context, checkId, first, firstFiles, replay), bodyFile: firstFiles.body };
  };
}

async function saveAttempt(dir: string, attempt: Attempt): Promise<{ request: string; body: string }> {
  const folder = join(dir, attempt.stage);
  await mkdir(folder, { recursive: true });
  const base = join(folder, `attempt-${attempt.number}`);
  // The request as it came; a chunked body is saved whole with its length, so `cai verify --request` reads it.
  const headers = attempt.rawHeaders.filter(([name]) => name.toLowerCase() !== 'transfer-encoding');
  if (!headers.some(([name]) => name.toLowerCase() === 'content-length')) headers.push(['Content-Length', String(attempt.body.length)]);
  const head = [`${attempt.method} ${attempt.path} HTTP/${attempt.httpVersion}`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join('\r\n');
  await writeFile(`${base}.http`, Buffer.concat([Buffer.from(head, 'latin1'), attempt.body]));
  await writeFile(`${base}.body`, attempt.body);
  return { request: `${base}.http`, body: `${base}.body` };
}

/** One line per attempt: when it came (from the stage's start), its document, timestamp and size, cai's answer. */
export function timeline(record: StageRecord, iface: InterfaceId): string {
  const lines = [`scenario ${record.id}: ${record.targetUrl}`];
  for (const attempt of record.attempts) {
    const at = ms(attempt.arrivedMono - record.startedMono);
    const facts = [`event_id ${attemptEventId(attempt) ?? '-'}`, `X-CAI-Timestamp ${timestampOf(attempt) ?? '-'}`, `${attempt.bodyBytes} bytes`];
    lines.push(`+${at} #${attempt.number}${attempt.late ? ' (late)' : ''} ${attempt.method} ${attempt.path} ${facts.join(', ')} → ${describeScripted(attempt.answer, iface)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The saved request re-judged where one command can (the signature, the document); otherwise the check run again. */
function senderCommand(context: ReproContext, checkId: string, attempt: Attempt, files: { request: string; body: string }, replay?: string): string {
  const cai = context.invocation;
  const received = context.received;
  const area = checkId.split('-')[1];
  if (received && area === 'SIG' && !checkId.endsWith('-004')) return `${cai} verify ${received.secretFlag} --request ${quote(files.request)} --now ${Math.floor(attempt.arrivedAt / 1000)}`;
  if (received && checkId.endsWith('DOC-001')) return `${cai} validate ${interfaceSpec(received.interface).document} ${quote(files.body)}`;
  // A generated conversation runs again from its seed and path.
  return context.rerun(checkId, replay);
}
