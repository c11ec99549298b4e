/**
 * Finds where JSON text first breaks the grammar (RFC 8259), with line and column, because V8's
 * JSON.parse messages give a position only for some errors and never a line. Runs only after JSON.parse
 * has failed, so it is off the hot path. Iterative (an explicit stack), so deep nesting cannot overflow.
 *
 * It never quotes the text: a file given by mistake may be a secret, so an error says where (line and
 * column) and what kind of character is there. Only JSON's own punctuation and ASCII punctuation are shown, one
 * character; a letter, a digit, a control or a non-ASCII character is named by its kind.
 */

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

type State = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'after';

/** The first break of the grammar as `<reason> at line L, column C` (both 1-based, in characters), or undefined. */
function locateJsonSyntaxError(text: string): string | undefined {
  const fail = (offset: number, reason: string): string => at(text, offset, reason);
  const stack: ('{' | '[')[] = [];
  let state: State = 'value';
  let i = 0;
  const n = text.length;
  for (;;) {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    if (i >= n) {
      if (state === 'after' && stack.length === 0) return undefined;
      return fail(n, n === 0 || text.trim() === '' ? 'empty input' : 'unexpected end of input');
    }
    const ch = text[i] as string;
    if (state === 'after') {
      const top = stack[stack.length - 1];
      if (top === undefined) return fail(i, `found ${show(ch)} after the JSON value`);
      if (ch === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if ((ch === '}' && top === '{') || (ch === ']' && top === '[')) {
        stack.pop();
        i++;
      } else {
        return fail(i, `expected ',' or '${top === '{' ? '}' : ']'}' but found ${show(ch)}`);
      }
      continue;
    }
    // An empty object or array closes where its first key or value would be.
    if ((state === 'key-or-end' && ch === '}') || (state === 'value-or-end' && ch === ']')) {
      stack.pop();
      i++;
      state = 'after';
      continue;
    }
    if (state === 'key-or-end' || state === 'key') {
      if (ch !== '"') return fail(i, `expected a property name in double quotes but found ${show(ch)}`);
      const end = scanString(text, i);
      if (typeof end !== 'number') return fail(end.offset, end.reason);
      i = end;
      while (i < n && /[ \t\n\r]/.test(text[i] as string)) i++;
      if (i >= n) return fail(n, 'unexpected end of input');
      if (text[i] !== ':') return fail(i, `expected ':' after the property name but found ${show(text[i] as string)}`);
      i++;
      state = 'value';
      continue;
    }
    // state is 'value' or 'value-or-end'
    if (ch === '{' || ch === '[') {
      stack.push(ch);
      i++;
      state = ch === '{' ? 'key-or-end' : 'value-or-end';
      continue;
    }
    // A string, a literal or a number: then what follows a value.
    const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
    NUMBER.lastIndex = i;
    if (ch === '"') {
      const end = scanString(text, i);
      if (typeof end !== 'number') return fail(end.offset, end.reason);
      i = end;
    } else if (literal) i += literal.length;
    else if (NUMBER.test(text)) i = NUMBER.lastIndex;
    else return fail(i, `found ${show(ch)} where a value was expected`);
    state = 'after';
  }
}

function scanString(text: string, start: number): number | { offset: number; reason: string } {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          return { offset: i, reason: 'bad \\u escape in a string' };
        i += 6;
        continue;
      }
      if (next === undefined || !ESCAPES.has(next)) return { offset: i, reason: 'bad escape in a string' };
      i += 2;
      continue;
    }
    if (code < 0x20) return { offset: i, reason: 'unescaped control character in a string' };
    i++;
  }
  return { offset: text.length, reason: 'unterminated string' };
}

/** The character at an error, as safe to show: JSON or ASCII punctuation itself, anything else by its kind. */
function show(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (/^[A-Za-z]$/.test(ch)) return 'a letter';
  if (/^[0-9]$/.test(ch)) return 'a digit';
  if (code < 0x20 || code === 0x7f)
    return `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  if (code > 0x7f) return code === 0xfeff ? 'a byte order mark (U+FEFF)' : 'a non-ASCII character';
  return JSON.stringify(ch);
}

/**
 * Why JSON text does not parse, as safe to print: `found a letter where a value was expected at line 1,
 * column 1`. For every reader of a JSON file (documents, the config, catalogs, waivers, examples).
 */
export function describeJsonFailure(text: string): string {
  if (text.charCodeAt(0) === 0xfeff) return 'it starts with a byte order mark (U+FEFF) at line 1, column 1';
  return locateJsonSyntaxError(text) ?? 'a syntax error';
}

function at(text: string, offset: number, reason: string): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${reason} at line ${line}, column ${offset - lineStart + 1}`;
}

/**
 * How deeply JSON text nests arrays and objects, counted without parsing or recursing (so any depth is safe to
 * measure). For text that is not JSON, the depth of its brackets outside strings. Callers that walk a parsed value
 * recursively (pretty-printers, re-serialisers) compare it with MAX_WALK_DEPTH (src/bounds.ts) first.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}

/** A name given more than once in one object of JSON text: its path (the object's, then the name) and how often. */
export interface DuplicateKey {
  path: string;
  count: number;
}

const TOKEN = /"(?:[^"\\]|\\.)*"|[{}[\],]/g;

const NAME_END = /"[ \t\n\r]*:/g;

/**
 * False when no object of `text` can give a name twice, judged without tokenizing: every name ends with `"` and
 * `:`, and inside a string a `"` is escaped, so the count of `"…:` in the text is at least the count of names
 * written; when it equals the names of the parsed value, none was lost. Native scans, a fraction of the pass below.
 */
function mayRepeatNames(text: string, parsed: unknown): boolean {
  const written = text.match(NAME_END)?.length ?? 0;
  let kept = 0;
  const pending: unknown[] = [parsed];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    for (const key in value) {
      kept++;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return written !== kept;
}

/**
 * The names given more than once in one object of JSON text that parses (RFC 8259 §4: names should be unique).
 * JSON.parse keeps the last value, other parsers the first: a receiver may read another document than the one
 * judged. Names compare as decoded (`"a"` and `"\u0061"` are one). One pass over the tokens, no recursion; given the
 * parsed value, none when the count of names shows none was lost.
 */
export function duplicateKeys(text: string, parsed?: unknown): DuplicateKey[] {
  if (parsed !== undefined && !mayRepeatNames(text, parsed)) return [];
  type Frame = { path: string; names?: Map<string, number>; expectName: boolean; name: string; index: number };
  const stack: Frame[] = [];
  const found = new Map<string, DuplicateKey>();
  let top: Frame | undefined;
  const childPath = (frame: Frame | undefined): string => {
    if (frame === undefined) return '';
    if (frame.names === undefined) return `${frame.path}[${frame.index}]`;
    return frame.path === '' ? frame.name : `${frame.path}.${frame.name}`;
  };
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const token = match[0];
    if (token === '{' || token === '[') {
      const frame: Frame = { path: childPath(top), expectName: token === '{', name: '', index: 0 };
      if (token === '{') frame.names = new Map();
      stack.push(frame);
      top = frame;
    } else if (token === '}' || token === ']') {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (token === ',') {
      if (top?.names) top.expectName = true;
      else if (top) top.index++;
    } else if (top?.names && top.expectName) {
      const name = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
      const count = (top.names.get(name) ?? 0) + 1;
      top.names.set(name, count);
      top.name = name;
      top.expectName = false;
      if (count > 1) {
        const path = childPath(top);
        found.set(`${path}\0${stack.length}`, { path, count });
      }
    }
  }
  return [...found.values()];
}
