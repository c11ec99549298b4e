/**
 * Reading a body as the spec's JSON (§2: JSON, UTF-8), once for every part of cai: the parse that never throws,
 * the object test, and the `event_id` that identifies a document (§2.2, §2.4, §6.1).
 */
import { isUtf8 } from 'node:buffer';

export type JsonParse = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The body as JSON, or why not. Bytes that are not UTF-8 are refused before parsing (§2): `toString` would turn
 * them into U+FFFD silently, and a document would be judged on text that was never sent.
 */
export function parseJson(body: Uint8Array): JsonParse {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (!isUtf8(bytes)) return { ok: false, message: 'not UTF-8' };
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** The body as a JSON value, or undefined when it is not JSON. */
export function jsonValueOf(body: Uint8Array): unknown {
  const parsed = parseJson(body);
  return parsed.ok ? parsed.value : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object of a body, or undefined for anything else (not JSON, an array, a string). */
export function objectOf(body: Uint8Array): Record<string, unknown> | undefined {
  const value = jsonValueOf(body);
  return isObject(value) ? value : undefined;
}

/** The string `event_id` of a body that is a JSON object with one (a job's or an event's). Never throws. */
export function eventIdOf(body: Uint8Array): string | undefined {
  const id = objectOf(body)?.event_id;
  return typeof id === 'string' ? id : undefined;
}
