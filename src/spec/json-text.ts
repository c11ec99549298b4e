/**
 * The JSON text of a file (a config, a catalog, a report, a log line): its value, or where and what fails to parse
 * (describeJsonFailure), never the bytes: the file may be a secret given by mistake. Once, for every such reader.
 */
import { usageError } from '../errors.js';
import { describeJsonFailure } from './json-syntax.js';

export type JsonTextParse = { ok: true; value: unknown } | { ok: false; failure: string };

export function parseJsonText(text: string): JsonTextParse {
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
