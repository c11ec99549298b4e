import { MAX_WALK_DEPTH } from '../bounds.js';
import { SIGNATURE_PREFIX } from '../spec/constants.js';
import { jsonNestingDepth } from '../spec/json-syntax.js';
import { hmacHex, signedPayload } from './sign.js';
import type { VerifyResult } from './verify.js';

/**
 * When a signature does not verify, tries the usual mistakes and names the ones that explain it.
 * Each candidate recomputes the HMAC for one mistaken variant and compares it with what was received.
 * Pure; never throws.
 */

export type DiagnosisCode =
  | 'uppercase_hex'
  | 'missing_prefix'
  | 'wrong_prefix'
  | 'base64_signature'
  | 'timestamp_in_milliseconds'
  | 'body_reserialised'
  | 'trailing_newline_added'
  | 'trailing_newline_removed'
  | 'line_endings_changed'
  | 'missing_timestamp_prefix'
  | 'timestamp_without_dot'
  | 'secret_whitespace'
  | 'other_direction_secret'
  | 'clock_skew'
  | 'reserialisation_skipped'
  | 'correct_after_format_fix'
  | 'signature_over_other_content';

export interface Diagnosis {
  code: DiagnosisCode;
  message: string;
}

export interface DiagnoseInput {
  secrets: readonly string[];
  /** The other direction's secrets (§5.1: one secret per direction), when given. */
  otherSecrets?: readonly string[];
  signature: string | null | undefined;
  timestamp: string | number | null | undefined;
  rawBody: Buffer;
  result: VerifyResult;
}

interface Candidate {
  code: DiagnosisCode;
  message: string;
  secret: string;
  timestamp: string | undefined;
  body: Buffer;
  /** Sign without the `timestamp.` prefix (or without the dot). */
  payload?: 'body-only' | 'no-dot';
}

export function diagnose(input: DiagnoseInput): Diagnosis[] {
  if (input.result.valid) return [];
  try {
    return collect(input);
  } catch {
    return [];
  }
}

function collect(input: DiagnoseInput): Diagnosis[] {
  const found: Diagnosis[] = [];
  // The re-serialisations walk the parsed body recursively: a body nested deeper than MAX_WALK_DEPTH is not
  // re-serialised (it would overflow the stack), and the diagnosis says so; the other candidates still run.
  const depth = jsonNestingDepth(input.rawBody.toString('latin1'));
  const received = normaliseReceived(input.signature, found);
  const timestampText =
    input.timestamp === null || input.timestamp === undefined ? undefined : String(input.timestamp).trim();
  const { result } = input;

  if (result.reason === 'timestamp_too_old' || result.reason === 'timestamp_in_future') {
    const age = result.ageSeconds ?? 0;
    const outside = Math.abs(age) - result.windowSeconds;
    const way =
      age > 0
        ? "in the past: the sender's clock is behind, or the request was delayed or replayed"
        : "in the future: the sender's clock is ahead";
    found.push({
      code: 'clock_skew',
      message: `the timestamp is ${Math.abs(age)} s ${way}; that is ${outside} s outside the ±${result.windowSeconds} s window (§5.5)`,
    });
    if (result.signatureMatches)
      found.push({
        code: 'clock_skew',
        message: 'the signature itself is correct for this body and timestamp; only the time is off',
      });
  }

  if (timestampText && /^[0-9]{13}$/.test(timestampText)) {
    found.push({
      code: 'timestamp_in_milliseconds',
      message: `the timestamp ${timestampText} has 13 digits: it looks like milliseconds; §4 wants unix seconds (${timestampText.slice(0, 10)})`,
    });
  }
  if (received === undefined) return dedupe(found);

  for (const candidate of candidates(input, timestampText, depth <= MAX_WALK_DEPTH)) {
    const payload =
      candidate.payload === 'body-only'
        ? candidate.body
        : candidate.payload === 'no-dot'
          ? Buffer.concat([Buffer.from(candidate.timestamp ?? '', 'utf8'), candidate.body])
          : signedPayload(candidate.timestamp ?? '', candidate.body);
    if (hmacHex(candidate.secret, payload) === received)
      found.push({ code: candidate.code, message: candidate.message });
  }
  if (depth > MAX_WALK_DEPTH && result.reason === 'signature_mismatch') {
    found.push({
      code: 'reserialisation_skipped',
      message: `the body nests ${depth} levels deep, over the ${MAX_WALK_DEPTH} cai re-serialises: whether the sender signed another JSON layout was not checked`,
    });
  }
  if (found.every((item) => item.code === 'reserialisation_skipped') && result.reason === 'signature_mismatch') {
    found.push({
      code: 'signature_over_other_content',
      message:
        'none of the usual mistakes explains it: the signature was made with another secret, or over other bytes or another timestamp',
    });
  }
  return dedupe(found);
}

/** The received signature as lowercase hex, after noting format mistakes; undefined when it is not hex at all. */
function normaliseReceived(signature: string | null | undefined, found: Diagnosis[]): string | undefined {
  if (typeof signature !== 'string' || signature.trim() === '') return undefined;
  const value = signature.trim();
  const prefixed = /^sha256=(.*)$/i.exec(value);
  let hex = prefixed ? (prefixed[1] as string) : value;
  if (!prefixed) {
    const other = /^([a-z0-9-]+)[=:](.+)$/i.exec(value);
    if (other) {
      found.push({
        code: 'wrong_prefix',
        message: `the signature starts with "${other[1]}${value[(other[1] as string).length]}"; §5.3 wants "${SIGNATURE_PREFIX}"`,
      });
      hex = other[2] as string;
    } else if (/^[0-9a-fA-F]{64}$/.test(value)) {
      found.push({ code: 'missing_prefix', message: `the signature has no "${SIGNATURE_PREFIX}" prefix (§5.3)` });
    }
  } else if (!value.startsWith(SIGNATURE_PREFIX)) {
    found.push({
      code: 'wrong_prefix',
      message: `the prefix is "${value.slice(0, 7)}"; §5.3 wants "${SIGNATURE_PREFIX}" in lowercase`,
    });
  }
  if (/^[0-9a-fA-F]{64}$/.test(hex)) {
    if (/[A-F]/.test(hex))
      found.push({ code: 'uppercase_hex', message: 'the hex digits are uppercase; §5.3 wants lowercase hex' });
    return hex.toLowerCase();
  }
  const base64 = Buffer.from(hex, 'base64');
  if (base64.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(hex)) {
    found.push({
      code: 'base64_signature',
      message: 'the signature looks like base64; §5.3 wants lowercase hexadecimal',
    });
    return base64.toString('hex');
  }
  return undefined;
}

function candidates(input: DiagnoseInput, timestamp: string | undefined, reserialise: boolean): Candidate[] {
  const body = input.rawBody;
  const list: Candidate[] = [];
  for (const secret of input.secrets) {
    const base = { secret, timestamp, body };
    const add = (code: DiagnosisCode, message: string, change: Partial<Candidate> = {}) =>
      list.push({ ...base, ...change, code, message });
    // The exact bytes with the right secret: only the header's format (uppercase, prefix, base64) was wrong.
    if (input.result.reason === 'malformed_signature')
      add(
        'correct_after_format_fix',
        'the HMAC itself is right for this body, timestamp and secret; only the header format is wrong',
      );
    for (const variant of reserialise ? reserialisations(body) : [])
      add(
        'body_reserialised',
        `the sender signed the ${variant.name} form of the JSON, not the bytes it sent; sign the raw body exactly as transmitted (§5.2)`,
        { body: variant.body },
      );
    list.push(...newlineVariants(base));
    add('missing_timestamp_prefix', 'the sender signed the body alone; §5.2 signs timestamp + "." + body', {
      payload: 'body-only',
    });
    add('timestamp_without_dot', 'the sender signed timestamp + body without the "." between them (§5.2)', {
      payload: 'no-dot',
    });
    if (timestamp && /^[0-9]{10}$/.test(timestamp))
      add('timestamp_in_milliseconds', 'the sender signed with the timestamp in milliseconds; §4 wants unix seconds', {
        timestamp: `${timestamp}000`,
      });
    if (timestamp && /^[0-9]{13}$/.test(timestamp))
      add(
        'timestamp_in_milliseconds',
        'the header carries milliseconds but the signature was made over seconds; send unix seconds in the header (§4)',
        { timestamp: timestamp.slice(0, 10) },
      );
    for (const variant of secretWhitespaceVariants(secret))
      add(
        'secret_whitespace',
        'one side has whitespace (a space or newline) around the secret; compare the secrets byte for byte',
        { secret: variant },
      );
  }
  for (const secret of input.otherSecrets ?? []) {
    list.push({
      secret,
      timestamp,
      body,
      code: 'other_direction_secret',
      message: "the request was signed with the other direction's secret; each direction has its own (§5.1)",
    });
  }
  return list;
}

function reserialisations(body: Buffer): { name: string; body: Buffer }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return [];
  }
  const forms: [string, string][] = [
    ['minified', JSON.stringify(parsed)],
    ['pretty-printed (2 spaces)', JSON.stringify(parsed, null, 2)],
    ['pretty-printed (4 spaces)', JSON.stringify(parsed, null, 4)],
    ['pretty-printed (tabs)', JSON.stringify(parsed, null, '\t')],
    ['key-sorted', JSON.stringify(sortKeys(parsed))],
    ['ASCII-escaped', asciiEscape(JSON.stringify(parsed))],
    ['Python json.dumps default', asciiEscape(stringifySpaced(parsed))],
    ['spaced (", " and ": ")', stringifySpaced(parsed)],
  ];
  const original = body.toString('utf8');
  const seen = new Set<string>([original]);
  return (
    forms
      .filter(([, text]) => !seen.has(text) && seen.add(text) !== undefined)
      .flatMap(([name, text]) => [
        { name, body: Buffer.from(text, 'utf8') },
        { name: `${name} (with a trailing newline)`, body: Buffer.from(`${text}\n`, 'utf8') },
      ])
      // A variant equal to the bytes sent is no mistake (a compact body that ends with a newline, say).
      .filter((variant) => !variant.body.equals(body))
  );
}

function newlineVariants(base: { secret: string; timestamp: string | undefined; body: Buffer }): Candidate[] {
  const text = base.body.toString('latin1');
  const list: Candidate[] = [];
  const add = (code: DiagnosisCode, message: string, variant: string) => {
    if (variant !== text) list.push({ ...base, body: Buffer.from(variant, 'latin1'), code, message });
  };
  add(
    'trailing_newline_added',
    'the sender signed the body with a trailing newline that was not sent (or the receiver stripped it)',
    `${text}\n`,
  );
  add('trailing_newline_added', 'the sender signed the body with a trailing CRLF that was not sent', `${text}\r\n`);
  if (text.endsWith('\n')) {
    add(
      'trailing_newline_removed',
      'the sender signed the body without its trailing newline, then sent one (or the receiver added it)',
      text.replace(/\r?\n$/, ''),
    );
  }
  if (text.includes('\r\n'))
    add('line_endings_changed', 'the sender signed LF line endings but sent CRLF', text.replace(/\r\n/g, '\n'));
  if (/(^|[^\r])\n/.test(text))
    add('line_endings_changed', 'the sender signed CRLF line endings but sent LF', text.replace(/\r?\n/g, '\r\n'));
  return list;
}

function secretWhitespaceVariants(secret: string): string[] {
  const variants = new Set([secret.trim(), `${secret}\n`, `${secret}\r\n`, ` ${secret}`, `${secret} `]);
  variants.delete(secret);
  return [...variants];
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** JSON with ", " and ": " separators, as Python's json.dumps writes by default. */
export function stringifySpaced(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stringifySpaced).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${JSON.stringify(key)}: ${stringifySpaced(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

export function asciiEscape(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function dedupe(list: Diagnosis[]): Diagnosis[] {
  const seen = new Set<string>();
  return list.filter((item) => {
    const key = `${item.code}:${item.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
