/**
 * A response body as cai shows it: text that is JSON pretty-printed, other text as it is, both with
 * anything unsafe for a terminal escaped (src/output/safe-text.ts); a binary body (compressed, a non-text type, or
 * not UTF-8) summarised as type, size and a sha256 prefix, never dumped. Response header values are shown cut to
 * NETWORK_CAPS.shownHeaderCharacters.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { MAX_WALK_DEPTH, NETWORK_CAPS } from '../../bounds.js';
import { jsonNestingDepth } from '../../spec/json-syntax.js';
import { safeBlock, safeText } from '../../output/safe-text.js';

/** What a binary body is, instead of its bytes. */
export interface BinaryBody {
  bytes: number;
  sha256: string;
  contentType: string | null;
  contentEncoding: string | null;
  /** Why it is not shown as text. */
  why: 'encoded' | 'not-text-type' | 'not-utf8';
}

/** Content types shown as text; any other declared type is binary. No Content-Type: text when it is UTF-8. */
const TEXT_TYPES =
  /^\s*(text\/|application\/([a-z0-9.+-]*\+)?(json|xml)\b|application\/(x-www-form-urlencoded|javascript|ecmascript)\b)/i;

/** The body as a binary summary, or undefined when it is text to show. */
export function binaryBody(body: Uint8Array, headers: Readonly<Record<string, string>>): BinaryBody | undefined {
  const contentType = headers['content-type'] ?? null;
  const contentEncoding = headers['content-encoding'] ?? null;
  const why: BinaryBody['why'] | undefined =
    contentEncoding !== null && !/^\s*(identity)?\s*$/i.test(contentEncoding)
      ? 'encoded'
      : contentType !== null && !TEXT_TYPES.test(contentType)
        ? 'not-text-type'
        : !isUtf8(body)
          ? 'not-utf8'
          : undefined;
  if (why === undefined || body.length === 0) return undefined;
  return {
    bytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
    contentType,
    contentEncoding,
    why,
  };
}

/** `binary body not shown: application/octet-stream, gzip, 1 234 bytes, sha256 3f2a9c0b1d2e4f56…` */
export function describeBinaryBody(binary: BinaryBody): string {
  const parts = [
    binary.contentType ?? 'no Content-Type',
    ...(binary.contentEncoding ? [`Content-Encoding ${binary.contentEncoding}`] : []),
    `${binary.bytes} bytes`,
    `sha256 ${binary.sha256.slice(0, 16)}…`,
  ];
  const why = binary.why === 'not-utf8' ? 'not UTF-8' : binary.why === 'encoded' ? 'encoded' : 'not a text type';
  return `(binary body not shown, ${why}: ${safeText(parts.join(', '))})`;
}

/** The body for a terminal: `(empty)`, a binary summary, JSON pretty-printed (when it nests no deeper than MAX_WALK_DEPTH), or the text. */
export function bodyForTerminal(body: Buffer, headers: Readonly<Record<string, string>>): string {
  if (body.length === 0) return '(empty)';
  const binary = binaryBody(body, headers);
  if (binary) return describeBinaryBody(binary);
  const text = body.toString('utf8');
  if (
    (headers['content-type']?.includes('json') || /^\s*[[{]/.test(text)) &&
    jsonNestingDepth(text) <= MAX_WALK_DEPTH
  ) {
    try {
      return safeBlock(JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      return safeBlock(text);
    }
  }
  return safeBlock(text);
}

/** A response header value as shown on a terminal: escaped, and cut after NETWORK_CAPS.shownHeaderCharacters. */
export function headerForTerminal(value: string): string {
  const max = NETWORK_CAPS.shownHeaderCharacters;
  return value.length <= max
    ? safeText(value)
    : `${safeText(value.slice(0, max))}… (${value.length - max} more characters)`;
}

/**
 * The body for `--json`: the text, or null with the binary summary; the parsed JSON too when it parses and nests no
 * deeper than MAX_WALK_DEPTH (deeper, printing it would overflow the stack: the text says it all).
 */
export function bodyForJson(
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): { body: string | null; json?: unknown; binary?: BinaryBody } {
  const binary = binaryBody(body, headers);
  if (binary) return { body: null, binary };
  const text = body.toString('utf8');
  if (text.length === 0 || jsonNestingDepth(text) > MAX_WALK_DEPTH) return { body: text };
  try {
    return { body: text, json: JSON.parse(text) as unknown };
  } catch {
    return { body: text };
  }
}
