/** The record of a mock's log and the one line it is written as (docs/mock-log.md). */
import type { InterfaceId } from '../spec/constants.js';
import { safeJson } from '../output/safe-text.js';

/**
 * One line of the mock log (docs/mock-log.md): NDJSON, appended before the 202 is answered (written, and synced
 * to disk as the fsync mode says), read back by the mocks on restart (dedupe) and by `cai report`.
 */
export interface MockLogRecord {
  v: 1;
  received_at: string;
  space: 'live' | 'test';
  interface: InterfaceId;
  kind: 'event' | 'job';
  status: number;
  verdict: 'accepted' | 'duplicate';
  provider_code: string;
  event_id: string;
  event?: string;
  lead_id?: string;
  /** §6.3: present on Interface B records when a lead registry was given; false = logged for reconciliation. */
  lead_known?: boolean;
  /** Interface A only. */
  branch_code?: string;
  provider_job_id?: string;
  assigned_number_e164?: string;
  /** The byte length of the body as received (records written by the mocks since cai 0.2; absent before). */
  body_bytes?: number;
  headers: Record<string, string>;
  /**
   * The body as received, spliced in unchanged. JSON allows CR and LF only as whitespace between tokens; where
   * the body had them, the document has a space at each (the same JSON value, the same length, one line).
   */
  document: unknown;
  /** Only when the body had CR or LF bytes: its exact bytes, base64 (§5.2: what the signature covers). */
  body_base64?: string;
}

/** The fields of a record a mock writes before the document: everything but the body and its derivatives. */
export type MockLogRecordHead = Omit<MockLogRecord, 'document' | 'body_bytes' | 'body_base64'>;

export const MOCK_LOG_VERSION = 1;

/** How every record line starts (JSON.stringify of a MockLogRecord): where a torn line's next record begins. */
export const RECORD_START = '{"v":1,"received_at":';

/**
 * The line of a record whose document is `body`, as received (never parsed and serialised again: a deeply
 * nested body cannot overflow anything, and the bytes the signature covers are kept). `body` must be one JSON
 * value, as the receive pipeline guarantees (it stores only what parsed).
 */
export function recordLine(record: MockLogRecordHead, body: Buffer): string {
  return recordBytes(record, body).toString('utf8');
}

/**
 * recordLine's bytes, built without decoding the body (the receive pipeline checked it is UTF-8, so its text
 * encodes back to the same bytes): the head, the body as received, then the end of the line.
 */
export function recordBytes(record: MockLogRecordHead, body: Buffer): Buffer {
  const breaks = body.includes(0x0a) || body.includes(0x0d);
  // The head encoded straight into the line: one buffer a record, not two.
  const head = `${headText(record, body.length)},"document":`;
  const headBytes = Buffer.byteLength(head, 'utf8');
  const tail = breaks ? `,"body_base64":"${body.toString('base64')}"}\n` : '}\n';
  const line = Buffer.allocUnsafe(headBytes + body.length + tail.length);
  line.write(head, 0, headBytes, 'utf8');
  if (breaks) spacesForLineBreaks(body).copy(line, headBytes);
  else body.copy(line, headBytes);
  line.write(tail, headBytes + body.length, 'latin1');
  return line;
}

/**
 * The record without its closing brace, `body_bytes` and then `headers` last (where a restart stops reading).
 * Spliced into JSON.stringify's text when `headers` is its last key already (the receivers' records): `headers`
 * is the one field whose value is an object, so the text ends `}}` exactly then, and its first `,"headers":` is
 * that key, as a quote inside a string is escaped.
 */
function headText(record: MockLogRecordHead, bodyBytes: number): string {
  // Header values and ids come from the network: the C1 and bidi controls JSON.stringify leaves raw are escaped, so
  // that `tail -f` on the log shows them as the terminal output does (the same JSON values).
  const json = safeHead(JSON.stringify(record));
  if (json.charCodeAt(json.length - 2) === CLOSING_BRACE) {
    const at = json.indexOf(HEADERS_TEXT);
    return `${json.slice(0, at)},"body_bytes":${bodyBytes}${json.slice(at, -1)}`;
  }
  const { headers, ...fields } = record;
  return safeJson(JSON.stringify({ ...fields, body_bytes: bodyBytes, headers })).slice(0, -1);
}

/** safeJson, but ASCII text without DEL (nearly every record) is returned as is: that test costs less than its scan. */
function safeHead(json: string): string {
  return Buffer.byteLength(json, 'utf8') === json.length && !json.includes('\u007f') ? json : safeJson(json);
}

const CLOSING_BRACE = 0x7d;
const HEADERS_TEXT = ',"headers":';

function spacesForLineBreaks(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  for (let i = 0; i < copy.length; i += 1) if (copy[i] === 0x0a || copy[i] === 0x0d) copy[i] = 0x20;
  return copy;
}

/** Whether a parsed line is a record of this version (the readers skip anything else). */
export function isLogRecord(value: unknown): value is MockLogRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return record.v === MOCK_LOG_VERSION && typeof record.event_id === 'string' && typeof record.verdict === 'string';
}
