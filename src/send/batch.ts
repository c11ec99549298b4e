/**
 * Batch sending: many documents over one keep-alive pool, `concurrency` in flight, optionally paced to a
 * rate, each with its own retries. A stop signal (the first Ctrl-C) starts nothing new and makes no further
 * attempts, while attempts already on the wire finish: so nothing is sent twice, and every document ends
 * with a record saying what happened to it, "not-sent" included.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { AttemptRecord, DeliverOptions, DeliveryError } from '../http/deliver.js';
import { documentSender, type SendRequest, type SendResult, type SendVerdict } from '../http/send.js';
import { pool } from '../pool.js';

export interface BatchDocument {
  /** 1-based line in the NDJSON input. */
  line: number;
  body: Buffer;
  eventId?: string;
  /** Identifies a document across runs when it has no event_id (and, with it, guards against edits). */
  bodySha256: string;
  /** Validation errors, when the document is refused before sending. */
  invalid?: string[];
}

export type BatchVerdict = SendVerdict | 'invalid' | 'skipped' | 'not-sent';

export interface BatchRecord {
  line: number;
  eventId?: string;
  bodySha256: string;
  verdict: BatchVerdict;
  /** Whether a request for it reached the wire in this run. */
  sent: boolean;
  status?: number;
  attempts: number;
  latencyMs?: number;
  elapsedMs?: number;
  providerJobId?: string;
  problems?: string[];
  error?: DeliveryError;
}

export interface BatchSummary {
  total: number;
  accepted: number;
  duplicate: number;
  rejected: number;
  /** Rejections by status (or `ack` for a 2xx whose body broke the rules). */
  rejectedBy: Record<string, number>;
  failed: number;
  invalid: number;
  skipped: number;
  notSent: number;
  interrupted: boolean;
  /** Set when `stopWhen` ended the batch early: the record that did, and why. */
  halted?: { line: number; error?: DeliveryError };
  elapsedMs: number;
  attempts: number;
}

interface BatchSendSignals {
  stopSignal: AbortSignal;
  signal: AbortSignal;
}

export interface BatchOptions {
  concurrency: number;
  /** Documents started per second at most. */
  ratePerSecond?: number;
  /** The first Ctrl-C: finish what is on the wire, start nothing else. */
  stopSignal?: AbortSignal;
  /** The second Ctrl-C: abort the requests in flight too. */
  signal?: AbortSignal;
  /** Keys (event_id or body hash) already accepted in an earlier run (`--resume`). */
  alreadyAccepted?: ReadonlySet<string>;
  onRecord?: (record: BatchRecord) => void;
  /** A document goes on the wire (its first attempt starts). */
  onStart?: (document: BatchDocument) => void;
  /** Each attempt of a document, as `deliver` reports it (`decision: 'retry'`: it now waits to try again). */
  onAttempt?: (document: BatchDocument, attempt: AttemptRecord) => void;
  /** A record after which nothing more is started (e.g. nothing listens at the target): the rest is not sent. */
  stopWhen?: (record: BatchRecord) => boolean;
  clock?: () => number;
  /** The wait for a --rate slot; it ends early, without an error, when `signal` is aborted. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

type SendOne = (
  document: BatchDocument,
  signals: BatchSendSignals,
  onAttempt?: (attempt: AttemptRecord) => void,
) => Promise<SendResult>;

/**
 * Sends every document as `request` says, over the one dispatcher of `deliver`. No per-request abort listener
 * (thousands of them on one signal cost more than the requests): a second Ctrl-C destroys the pool instead, which
 * fails every request in flight at once; the first (`stopSignal`) ends each document's retries.
 */
export function sendBatch(
  request: Omit<SendRequest, 'body' | 'eventId'>,
  documents: readonly BatchDocument[],
  deliver: Pick<DeliverOptions, 'retry' | 'timeoutMs' | 'dispatcher'>,
  options: BatchOptions,
): Promise<{ records: BatchRecord[]; summary: BatchSummary }> {
  const send = documentSender(request);
  const { retry, timeoutMs, dispatcher } = deliver;
  return runBatch(
    documents,
    (document, signals, onAttempt) => {
      const each: DeliverOptions = { retry, timeoutMs, dispatcher, stopSignal: signals.stopSignal };
      if (onAttempt) each.onAttempt = onAttempt;
      return send(document.body, document.eventId, each);
    },
    options,
  );
}

/** The keys a document is known by across runs. */
function keysOf(document: Pick<BatchDocument, 'eventId' | 'bodySha256'>): string[] {
  return document.eventId !== undefined
    ? [`event:${document.eventId}`, `sha256:${document.bodySha256}`]
    : [`sha256:${document.bodySha256}`];
}

export async function runBatch(
  documents: readonly BatchDocument[],
  send: SendOne,
  options: BatchOptions,
): Promise<{ records: BatchRecord[]; summary: BatchSummary }> {
  const clock = options.clock ?? Date.now;
  const sleep = options.sleep ?? pace;
  const stop = options.stopSignal ?? new AbortController().signal;
  const abort = options.signal ?? new AbortController().signal;
  // The waits for a --rate slot end on either: a stop starts nothing new, so a slot waited for is not waited for.
  const wake = AbortSignal.any([stop, abort]);
  // Every request in flight listens to both, and each lane waiting for its slot to `wake`: as many listeners as
  // `concurrency`, by design.
  setMaxListeners(0, stop, abort, wake);
  const started = clock();
  const records: BatchRecord[] = new Array<BatchRecord>(documents.length);
  let halted: BatchSummary['halted'];
  const emit = (index: number, record: BatchRecord) => {
    records[index] = record;
    options.onRecord?.(record);
    if (halted === undefined && record.sent && options.stopWhen?.(record))
      halted = { line: record.line, ...(record.error ? { error: record.error } : {}) };
  };
  const stopped = () => stop.aborted || abort.aborted || halted !== undefined;
  const interval = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
  let nextSlot = started;

  await pool(
    documents,
    Math.max(1, options.concurrency),
    async (document, index) => {
      const unsent = unsentRecord(document, options.alreadyAccepted);
      if (unsent) return emit(index, unsent);
      if (interval > 0) {
        const now = clock();
        const slot = Math.max(now, nextSlot);
        nextSlot = slot + interval;
        if (slot > now) await sleep(slot - now, wake);
        // Taken but not started: handed back, so that it is reported as not sent.
        if (stopped()) return emit(index, notSent(document));
      }
      options.onStart?.(document);
      const onAttempt = options.onAttempt;
      const result = await send(
        document,
        { stopSignal: stop, signal: abort },
        onAttempt ? (attempt) => onAttempt(document, attempt) : undefined,
      );
      emit(index, recordOf(document, result));
    },
    stopped,
  );
  documents.forEach((document, index) => {
    if (records[index] === undefined) emit(index, unsentRecord(document, options.alreadyAccepted) ?? notSent(document));
  });
  const summary = summarize(records, clock() - started, stop.aborted || abort.aborted);
  if (halted) summary.halted = halted;
  return { records, summary };
}

/** A real wait for a --rate slot, cut short by `signal`. */
async function pace(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => {});
}

/** The record of a document no request went out for. */
function notSent(document: BatchDocument, verdict: BatchVerdict = 'not-sent'): BatchRecord {
  return {
    line: document.line,
    ...(document.eventId !== undefined ? { eventId: document.eventId } : {}),
    bodySha256: document.bodySha256,
    verdict,
    sent: false,
    attempts: 0,
  };
}

/** Documents that are never sent: refused by validation, or accepted in an earlier run (`--resume`). */
function unsentRecord(
  document: BatchDocument,
  alreadyAccepted: ReadonlySet<string> | undefined,
): BatchRecord | undefined {
  if (document.invalid) return { ...notSent(document, 'invalid'), problems: document.invalid };
  if (alreadyAccepted && keysOf(document).some((key) => alreadyAccepted.has(key))) return notSent(document, 'skipped');
  return undefined;
}

function recordOf(base: Pick<BatchDocument, 'line' | 'eventId' | 'bodySha256'>, result: SendResult): BatchRecord {
  const { delivery } = result;
  const last = delivery.attempts[delivery.attempts.length - 1];
  const sent = delivery.attempts.length > 0;
  // An interruption before any attempt reached the receiver is "not sent"; after one, the outcome is unknown: failed.
  const verdict: BatchVerdict = delivery.interrupted && !sent ? 'not-sent' : result.verdict;
  const record: BatchRecord = {
    line: base.line,
    bodySha256: base.bodySha256,
    verdict,
    sent,
    attempts: delivery.attempts.length,
  };
  if (base.eventId !== undefined) record.eventId = base.eventId;
  if (delivery.response) record.status = delivery.response.status;
  if (last) record.latencyMs = Math.round(last.latencyMs * 10) / 10;
  record.elapsedMs = Math.round(delivery.elapsedMs);
  if (result.ack?.providerJobId !== undefined) record.providerJobId = result.ack.providerJobId;
  if (result.ack && result.ack.problems.length > 0) record.problems = result.ack.problems;
  if (delivery.error) record.error = delivery.error;
  return record;
}

export function summarize(records: readonly BatchRecord[], elapsedMs: number, interrupted: boolean): BatchSummary {
  const summary: BatchSummary = {
    total: records.length,
    accepted: 0,
    duplicate: 0,
    rejected: 0,
    rejectedBy: {},
    failed: 0,
    invalid: 0,
    skipped: 0,
    notSent: 0,
    interrupted,
    elapsedMs: Math.round(elapsedMs),
    attempts: 0,
  };
  for (const record of records) {
    summary.attempts += record.attempts;
    // The summary counts each verdict under its name (`not-sent` as notSent).
    summary[record.verdict === 'not-sent' ? 'notSent' : record.verdict] += 1;
    if (record.verdict === 'rejected') {
      // By status, or `ack` for a 2xx whose body broke the rules.
      const key =
        record.status !== undefined && (record.status < 200 || record.status >= 300) ? String(record.status) : 'ack';
      summary.rejectedBy[key] = (summary.rejectedBy[key] ?? 0) + 1;
    }
  }
  return summary;
}
