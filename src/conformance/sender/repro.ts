/**
 * What the sender sent, saved for every failing check: each attempt of its evidence as a raw HTTP request
 * (`<scenario>/attempt-<n>.http`, readable by `cai verify --request`) and its body alone (`.body`), plus each
 * scenario's timeline. The command of a reproduction re-judges the saved request where one command can (the
 * signature with `cai verify`, the document with `cai validate`), and otherwise runs the check again.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { shellQuote as quote } from '../../http/curl.js';
import type { InterfaceId } from '../../spec/constants.js';
import type { Reproduction } from '../types.js';
import { ms, eventIdOf, timestampOf, type Attempt, type ScenarioRecord } from './evidence.js';
import { describeAnswer } from './scenarios.js';

export interface SenderReproContext {
  dir: string;
  interface: InterfaceId;
  identity: string;
  /** How the secret is passed, e.g. `--secret-env CAI_SECRET` (never the value). */
  secretFlag: string;
  trigger?: string;
  /** Flags of the run worth repeating (`--wait 10s`, `--tls-cert …`), already quoted. */
  extraFlags: readonly string[];
  records: readonly ScenarioRecord[];
}

export type SenderReproducer = (checkId: string, evidence: readonly Attempt[]) => Promise<Reproduction>;

export function createSenderReproducer(context: SenderReproContext): SenderReproducer {
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
  const saveTimeline = (record: ScenarioRecord) => {
    let done = timelines.get(record.scenario.id);
    if (!done) {
      done = writeFile(join(context.dir, record.scenario.id, 'timeline.txt'), timeline(record, context.interface));
      timelines.set(record.scenario.id, done);
    }
    return done;
  };
  return async (checkId, evidence) => {
    const files = await Promise.all(evidence.map(save));
    const scenarios = new Set(evidence.map((attempt) => attempt.scenario));
    await Promise.all(context.records.filter((record) => scenarios.has(record.scenario.id)).map(saveTimeline));
    const first = evidence[0] as Attempt;
    const firstFiles = files[0] as { request: string; body: string };
    return { command: commandFor(context, checkId, first, firstFiles), bodyFile: firstFiles.body };
  };
}

async function saveAttempt(dir: string, attempt: Attempt): Promise<{ request: string; body: string }> {
  const folder = join(dir, attempt.scenario);
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

/** One line per attempt: when it came (from the scenario's start), its event_id and timestamp, cai's answer. */
export function timeline(record: ScenarioRecord, iface: InterfaceId): string {
  const lines = [`scenario ${record.scenario.id}: ${record.targetUrl}`];
  for (const attempt of record.attempts) {
    const at = ms(attempt.arrivedMono - record.startedMono);
    const facts = [`event_id ${eventIdOf(attempt) ?? '-'}`, `X-CAI-Timestamp ${timestampOf(attempt) ?? '-'}`, `${attempt.bodyBytes} bytes`];
    lines.push(`+${at} #${attempt.number}${attempt.late ? ' (late)' : ''} ${attempt.method} ${attempt.path} ${facts.join(', ')} → ${describeAnswer(attempt.answer, iface)}`);
  }
  return `${lines.join('\n')}\n`;
}

function commandFor(context: SenderReproContext, checkId: string, attempt: Attempt, files: { request: string; body: string }): string {
  const area = checkId.split('-')[1];
  if (area === 'SIG' && checkId.endsWith('-004') === false) {
    return `cai verify ${context.secretFlag} --request ${quote(files.request)} --now ${Math.floor(attempt.arrivedAt / 1000)}`;
  }
  if (checkId.endsWith('DOC-001')) return `cai validate ${context.interface === 'B' ? 'event' : 'job'} ${quote(files.body)}`;
  const identity = context.interface === 'B' ? `--provider ${quote(context.identity)}` : `--source ${quote(context.identity)}`;
  const trigger = context.trigger !== undefined ? ` --trigger ${quote(context.trigger)}` : '';
  const extra = context.extraFlags.length > 0 ? ` ${context.extraFlags.join(' ')}` : '';
  return `cai conformance run --interface ${context.interface} --role sender ${identity} ${context.secretFlag} --only ${checkId}${extra}${trigger}`;
}
