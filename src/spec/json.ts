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

/** The value if it is a JSON object (not an array, not null), else undefined. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}

/** The JSON object of a body, or undefined for anything else (not JSON, an array, a string). */
export function objectOf(body: Uint8Array): Record<string, unknown> | undefined {
  return asObject(jsonValueOf(body));
}

/** The string `event_id` of a body that is a JSON object with one (a job's or an event's). Never throws. */
export function eventIdOf(body: Uint8Array): string | undefined {
  const id = objectOf(body)?.event_id;
  return typeof id === 'string' ? id : undefined;
}

/** A piece of canonicalJson's text, told apart from the values still to write. */
class Piece {
  constructor(readonly text: string) {}
}

/**
 * A JSON value as one text whatever its keys' order, written without recursion: a document from the network may
 * nest 100 000 levels deep (MAX_WALK_DEPTH, src/bounds.ts), past any recursive walk's stack. Two values are the same
 * (as isDeepStrictEqual tells them: -0 is not 0) exactly when their texts are equal.
 */
export function canonicalJson(value: unknown): string {
  let text = '';
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Piece) text += item.text;
    else if (Array.isArray(item)) {
      stack.push(new Piece(']'));
      for (let index = item.length - 1; index >= 0; index -= 1) {
        stack.push(item[index]);
        if (index > 0) stack.push(new Piece(','));
      }
      stack.push(new Piece('['));
    } else if (isObject(item)) {
      const keys = Object.keys(item).sort();
      stack.push(new Piece('}'));
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index] as string;
        stack.push(item[key], new Piece(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
      stack.push(new Piece('{'));
    } else if (typeof item === 'string') text += JSON.stringify(item);
    else text += Object.is(item, -0) ? '-0' : String(item);
  }
  return text;
}

/** Whether two JSON values are the same value (canonicalJson): deep documents are compared like any other. */
export function sameJson(a: unknown, b: unknown): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first string (a value or a name) of a parsed JSON value that is not well-formed Unicode: an unpaired surrogate,
 * which JSON's grammar lets through as a `\ud83e` escape and no UTF-8 can carry (RFC 8259 §8.2: its receivers behave
 * unpredictably). Its path (`text`, `notes[2]`, `` for the value itself), or undefined. Walked without recursion.
 */
export function illFormedTextPath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [item, path] = stack.pop() as [unknown, string];
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return path;
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1) stack.push([item[index], `${path}[${index}]`]);
    } else if (isObject(item)) {
      for (const [key, child] of Object.entries(item)) {
        const at = path === '' ? key : `${path}.${key}`;
        if (LONE_SURROGATE.test(key)) return at;
        stack.push([child, at]);
      }
    }
  }
  return undefined;
}
