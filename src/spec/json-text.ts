/**
 * The JSON text of a file (a config, a catalog, a report, a log line): its value, or where and what fails to parse
 * (describeJsonFailure), never the bytes: the file may be a secret given by mistake. Once, for every such reader.
 */
import { usageError } from '../errors.js';
import { describeJsonFailure } from './json-syntax.js';

export type JsonTextParse = { ok: true; value: unknown } | { ok: false; failure: string };

/** What JSON text can start with, after its white space (RFC 8259 §2): a value's first character. */
const JSON_START = /^[\t\n\r ]*[[{"\-0-9tfn]/;

export function parseJsonText(text: string): JsonTextParse {
  // A line that cannot start a JSON value is refused without JSON.parse: its thrown error costs tens of
  // microseconds, and a file that is no log (100 000 lines of it) took seconds to say so.
  if (!JSON_START.test(text)) return { ok: false, failure: describeJsonFailure(text) };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, failure: describeJsonFailure(text) };
  }
}

/** The value of JSON text, or a usage error (as `usageError`) whose message `describe` words from the failure. */
export function jsonOrUsageError(
  text: string,
  code: string,
  describe: (failure: string) => string,
  hint: string,
): unknown {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw usageError(code, describe(parsed.failure), hint);
  return parsed.value;
}
