/**
 * The files of a batch: the NDJSON input (exact bytes, one document a line) and its validation, the results file
 * of `--output` (one record a document), and what a previous results file records as accepted (`--resume`).
 */
import { hash } from 'node:crypto';
import { createWriteStream, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { codedError, usageError } from '../errors.js';
import { eventIdOf, isObject } from '../spec/json.js';
import { isBlankLine, NdjsonSplitter } from '../spec/ndjson.js';
import { readFileInput, whyNotWritten } from '../input.js';
import type { Io } from '../io.js';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import { describeIssue } from '../spec/issues.js';
import type { BatchDocument, BatchRecord } from './batch.js';
import type { SendKind } from '../http/send.js';

/**
 * Splits NDJSON into documents: one per non-blank line, exact bytes, without the line ending.
 * `eventIds: false` leaves `eventId` for the caller to fill (it parses each document anyway to validate it).
 */
export function splitNdjson(bytes: Buffer, options: { eventIds?: boolean } = {}): BatchDocument[] {
  const withIds = options.eventIds !== false;
  // No cap on a line here: the file was read whole within its cap, and validation judges each document's size (§8).
  const splitter = new NdjsonSplitter(Number.POSITIVE_INFINITY);
  const documents: BatchDocument[] = [];
  for (const line of [...splitter.push(bytes), ...splitter.end()])
    if (!isBlankLine(line.bytes)) documents.push(documentOf(line.number, Buffer.from(line.bytes), withIds));
  return documents;
}

function documentOf(line: number, body: Buffer, withEventId: boolean): BatchDocument {
  // One-shot hash (Node ≥ 20.12): a third of createHash's cost on a small body, paid for every document.
  const document: BatchDocument = { line, body, bodySha256: hash('sha256', body, 'hex') };
  const eventId = withEventId ? eventIdOf(body) : undefined;
  if (eventId !== undefined) document.eventId = eventId;
  return document;
}

/**
 * Validates every document before anything is sent, parsing each once: the parsed value also gives its
 * event_id. Bodies that do not parse (or are over the size limit) go through validateBody for its messages.
 */
export async function validateDocuments(kind: SendKind, documents: BatchDocument[]): Promise<void> {
  const { validateBody, validateDocument } = await import('../spec/validate.js');
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (const document of documents) {
    let value: unknown;
    if (document.body.length <= MAX_BODY_BYTES) {
      try {
        value = JSON.parse(decoder.decode(document.body));
      } catch {
        value = undefined;
      }
    }
    const verdict = value !== undefined ? validateDocument(value, { kind }) : validateBody(document.body, { kind });
    if (isObject(value) && typeof value.event_id === 'string') document.eventId = value.event_id;
    if (!verdict.valid) document.invalid = verdict.errors.map(describeIssue);
  }
}

/**
 * The documents a previous `--output` file records as accepted (or duplicate: the receiver has it).
 * Lines that are not result records are ignored, and counted so the caller can say so.
 */
export function acceptedKeysFromResults(text: string): { keys: Set<string>; records: number; unreadable: number } {
  const keys = new Set<string>();
  let records = 0;
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      unreadable += 1;
      continue;
    }
    if (!isObject(record) || !('verdict' in record) || !('bodySha256' in record)) {
      unreadable += 1;
      continue;
    }
    records += 1;
    const { verdict, eventId, bodySha256 } = record;
    if (verdict !== 'accepted' && verdict !== 'duplicate' && verdict !== 'skipped') continue;
    if (typeof eventId === 'string') keys.add(`event:${eventId}`);
    if (typeof bodySha256 === 'string') keys.add(`sha256:${bodySha256}`);
  }
  return { keys, records, unreadable };
}

/** `--resume FILE`: the keys it records as accepted, and how many of its lines are not result records. */
export async function readResume(path: string, io: Io): Promise<{ keys: Set<string>; unreadable: number }> {
  const text = (await readFileInput(path, io, 'resume')).toString('utf8');
  const { keys, records, unreadable } = acceptedKeysFromResults(text);
  if (records === 0 && text.trim() !== '') {
    throw codedError('usage', 'bad_resume_file', `${path} holds no result records`);
  }
  return { keys, unreadable };
}

interface ResultsFile {
  write(record: BatchRecord): void;
  /** Ends the file once everything written is flushed. */
  close(): Promise<void>;
  /** The first write error, when one came: the file is incomplete. */
  failure(): Error | undefined;
}

/**
 * `--output FILE`, opened before anything is sent: a file that cannot be written stops the run instead of losing
 * records. Resuming into the same file appends, so it keeps the record of what was accepted before.
 */
export function openResultsFile(
  path: string,
  resumePath: string | undefined,
  cwd: string,
  onError: (error: Error) => void,
): ResultsFile {
  // An empty path would resolve to the working directory: refused as such (docs/limits.md).
  if (path === '')
    throw usageError(
      'empty_path',
      "the results file's path is empty",
      'give the path of the file to write the results to',
    );
  const full = resolve(cwd, path);
  const append = resumePath !== undefined && resolve(cwd, resumePath) === full;
  let fd: number;
  try {
    fd = openSync(full, append ? 'a' : 'w');
  } catch (error) {
    throw usageError(
      'unwritable_file',
      `cannot write the results file ${path}: ${whyNotWritten(error, full)}`,
      'check the path and its permissions',
      error,
    );
  }
  const stream = createWriteStream(full, { fd });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure ??= error;
    onError(error);
  });
  return {
    write: (record) => stream.write(`${JSON.stringify(record)}\n`),
    // end's callback gets the write error itself; the 'error' event may come a tick after it.
    close: () =>
      new Promise((done) =>
        stream.end((error?: Error | null) => {
          if (error) failure ??= error;
          done();
        }),
      ),
    failure: () => failure,
  };
}
