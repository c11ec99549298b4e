/**
 * The requests of a conversation's steps, built from their data (./receiver-steps.ts), and how a step names them:
 * the JSON's layout, a body broken by JSON's grammar, the forged credentials, an identifier transformed. Each turns
 * one valid request into the one the step means, so that whatever else it changes, the model judges the request as
 * it goes on the wire.
 */
import { compact, escapedField, looseLayout, reversedKeys, type Doc } from '../probe/bodies.js';
import { otherCase } from '../probe/mutations.js';
import type { RequestRecipe } from '../probe/recipe.js';
import type { ProbeScope } from '../probe/scope.js';

/** `a conversation.message`, `a job`: what a document is, in a step's words. */
export function documentName(doc: Doc): string {
  if (typeof doc.event !== 'string') return 'a job';
  const type = JSON.stringify(doc.event).slice(1, -1).slice(0, 40);
  return `${/^[aeiou]/i.test(type) ? 'an' : 'a'} ${type}`;
}

/** Beyond the default limit of common parsers (Python's json near 1,000; Jackson's 1,000), within JavaScript's. */
const DEEP_FIELD_DEPTH = 2_000;

/** The compact document with one more field, written as JSON text: `value` may be what JSON.stringify cannot write. */
function withFieldText(doc: Doc, name: string, value: string): Buffer {
  const text = compact(doc).toString('utf8');
  return Buffer.from(`${text.slice(0, -1)}${text === '{}' ? '' : ','}"${name}":${value}}`, 'utf8');
}

/** The ways of a table, in order, and the words of each: what the steps draw and what their text says of it. */
function waysOf<Way extends string>(table: Record<Way, readonly [string, unknown]>) {
  const entries = Object.entries<readonly [string, unknown]>(table);
  return {
    ways: entries.map(([way]) => way as Way),
    words: Object.fromEntries(entries.map(([way, [words]]) => [way, words])) as Record<Way, string>,
  };
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/**
 * How the JSON of a valid document is written: §5.2 signs the bytes whatever their layout. The last two add a field
 * §9.2 says to ignore, where parsers differ (RFC 8259 §9, §8.2): a receiver may refuse it, never answer it 5xx.
 */
const FORMS = {
  compact: ['compact JSON', (doc) => compact(doc)],
  loose: ['odd white space, tabs and CRLF', (doc) => utf8(looseLayout(doc))],
  'reversed-keys': ['keys in reverse order', (doc) => compact(reversedKeys(doc))],
  escaped: [
    'a string field written in \\u escapes',
    (doc, textField) => utf8(escapedField(doc, typeof doc[textField] === 'string' ? textField : 'event_id')),
  ],
  'escaped-id': ['its event_id written in \\u escapes', (doc) => utf8(escapedField(doc, 'event_id'))],
  'trailing-newline': ['a newline after the JSON', (doc) => Buffer.concat([compact(doc), Buffer.from('\n')])],
  'deep-field': [
    `an unknown field nested ${DEEP_FIELD_DEPTH} deep`,
    (doc) => withFieldText(doc, 'x_cai_deep', `${'['.repeat(DEEP_FIELD_DEPTH)}${']'.repeat(DEEP_FIELD_DEPTH)}`),
  ],
  'unpaired-surrogate': [
    'an unknown field holding an unpaired surrogate (\\ud800)',
    (doc) => withFieldText(doc, 'x_cai_note', '"a\\ud800b"'),
  ],
} satisfies Record<string, readonly [string, (doc: Doc, textField: string) => Buffer]>;
export type BodyForm = keyof typeof FORMS;
export const { words: FORM_TEXT, ways: BODY_FORMS } = waysOf(FORMS);

export function bodyIn(doc: Doc, form: BodyForm, textField: string): Buffer {
  return FORMS[form][1](doc, textField);
}

/**
 * Bodies that are not the JSON object §2 asks for, each a near miss of the valid one's bytes: cut short, a comma too
 * many, the quotes or keys of another syntax, a byte order mark, bytes that are not UTF-8, a value that is not an
 * object, nothing at all, text after the document. Each breaks the valid body's bytes (still signed correctly: only
 * the document is wrong).
 */
const MALFORMS = {
  'cut-short': ['cut short', (body, _text, at) => body.subarray(0, Math.max(1, Math.floor((body.length * at) / 1000)))],
  'trailing-comma': ['with a comma before its closing brace', (_body, text) => utf8(`${text.slice(0, -1)},}`)],
  'single-quotes': ['in single quotes', (_body, text) => utf8(text.replace(/"/g, "'"))],
  'unquoted-key': ['with a key unquoted', (_body, text) => utf8(text.replace(/"([a-z_]+)":/, '$1:'))],
  'byte-order-mark': ['after a byte order mark', (body) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body])],
  'not-utf8': [
    'with a byte that is not UTF-8 inside its event_id',
    (body, text) => {
      // Inside a string, where a reader that replaces what it cannot decode (or reads Latin-1) still finds JSON, and
      // takes another event_id than the one sent; before the closing brace, any JSON parser would refuse it.
      const at = /"event_id"\s*:\s*"/.exec(text);
      const cut = at ? Buffer.byteLength(text.slice(0, at.index + at[0].length)) : body.length - 1;
      return Buffer.concat([body.subarray(0, cut), Buffer.from([0xe9]), body.subarray(cut)]);
    },
  ],
  array: ['inside an array', (_body, text) => utf8(`[${text}]`)],
  string: ['as a JSON string', (_body, text) => utf8(JSON.stringify(text))],
  number: ['a number instead', (_body, _text, at) => utf8(String(at))],
  null: ['null instead', () => utf8('null')],
  empty: ['empty', () => Buffer.alloc(0)],
  comment: ['with a comment', (_body, text) => utf8(`/* cai */${text}`)],
  nan: ['with NaN for a value', (_body, text) => utf8(`${text.slice(0, -1)},"x_value":NaN}`)],
  // A reader that decodes the first value and stops (Python's raw_decode) takes the document before the text.
  'text-after': ['followed by text after its closing brace', (_body, text) => utf8(`${text} cai`)],
} satisfies Record<string, readonly [string, (body: Buffer, text: string, at: number) => Buffer]>;
export type Malformed = keyof typeof MALFORMS;
export const { words: MALFORMED_TEXT, ways: MALFORMED } = waysOf(MALFORMS);

/** The valid body's bytes, broken as `how` says. */
export function malformedBody(body: Buffer, how: Malformed, at: number): Buffer {
  return MALFORMS[how][1](body, body.toString('utf8'), at);
}

/** What is wrong with a request's credentials (§5, §4.1, §4.2). */
const FORGERY_WAYS = {
  'wrong-secret': [
    'signed with another secret',
    (scope) => ({ signature: { kind: 'wrong-secret', secret: `not-the-secret-${scope.eventId()}` } }),
  ],
  'other-body': [
    'with the signature of another body',
    (_scope, doc) => ({
      signature: { kind: 'other-body', body: compact({ ...doc, event_id: `${String(doc.event_id)}-other` }) },
    }),
  ],
  stale: ['a timestamp 360 s old', () => ({ timestamp: { kind: 'now', shiftSeconds: -360 } })],
  future: ['a timestamp 360 s ahead', () => ({ timestamp: { kind: 'now', shiftSeconds: 360 } })],
  'no-signature': ['without X-CAI-Signature', () => ({ signature: { kind: 'none' } })],
  'no-timestamp': ['without X-CAI-Timestamp', () => ({ timestamp: { kind: 'none' } })],
  milliseconds: ['a timestamp in milliseconds', () => ({ timestamp: { kind: 'milliseconds' } })],
  'other-identity': [
    'from another sender (identity header)',
    (scope) => ({ identity: { kind: 'value', value: `${scope.session.config.identity}-other` } }),
  ],
  'identity-case': [
    'the identity header in another case',
    // Another case of the identity, or one character more where it has no case.
    (scope) => ({
      identity: {
        kind: 'value',
        value: otherCase(scope.session.config.identity) ?? `${scope.session.config.identity}X`,
      },
    }),
  ],
  'no-identity': ['without the identity header', () => ({ identity: { kind: 'none' } })],
  'damaged-digest': [
    'the digest with its last hex digit changed',
    () => ({ signature: { kind: 'damaged', damage: 'last-digit' } }),
  ],
  // A secret left unset in a rotation's second slot (§5.9) is the empty string: a verifier that tries it too lets
  // anyone sign.
  'empty-secret': ['signed with the empty secret', () => ({ signature: { kind: 'wrong-secret', secret: '' } })],
  // The stale request replayed with a fresh header line added: a receiver that measures the window on one line and
  // signs the other takes it (§5.4, §5.5).
  'stale-and-fresh': [
    'signed with a timestamp 360 s old, then a second X-CAI-Timestamp of now',
    () => ({ timestamp: { kind: 'stale-and-fresh', shiftSeconds: -360 } }),
  ],
} satisfies Record<string, readonly [string, (scope: ProbeScope, doc: Doc) => Partial<RequestRecipe>]>;
export type Forgery = keyof typeof FORGERY_WAYS;
export const { words: FORGERY_TEXT, ways: FORGERIES } = waysOf(FORGERY_WAYS);

export function forge(forgery: Forgery, scope: ProbeScope, doc: Doc): Partial<RequestRecipe> {
  return FORGERY_WAYS[forgery][1](scope, doc);
}

/** The id with its first letter in the other case (unchanged where it has no letter). */
function firstLetterSwapped(id: string): string {
  const chars = [...id];
  const index = chars.findIndex((char) => char.toUpperCase() !== char.toLowerCase());
  if (index < 0) return id;
  const char = chars[index] as string;
  chars[index] = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
  return chars.join('');
}

/** `id` with `text` inserted after its first `at` characters. */
const inserted = (id: string, at: number, text: string): string =>
  `${[...id].slice(0, at).join('')}${text}${[...id].slice(at).join('')}`;

/** How a new event_id is made from an earlier one: what an identifier comparison that is not exact conflates. */
const TRANSFORMS = {
  'upper-case': ['in upper case', (id) => id.toUpperCase()],
  'lower-case': ['in lower case', (id) => (id.toLowerCase() !== id ? id.toLowerCase() : id.toUpperCase())],
  'first-letter-case': ['its first letter in the other case', firstLetterSwapped],
  decomposed: [
    'with an accent decomposed (NFD)',
    (id) => (id.normalize('NFD') !== id ? id.normalize('NFD') : `${id}-cafe\u0301`),
  ],
  composed: [
    'with an accent composed (NFC)',
    (id) => (id.normalize('NFC') !== id ? id.normalize('NFC') : `${id}-caf\u00e9`),
  ],
  'leading-space': ['a space before it', (id) => ` ${id}`],
  'trailing-space': ['a space after it', (id) => `${id} `],
  'inner-space': ['a space inside it', (id) => inserted(id, 1, ' ')],
  'one-more-character': ['one character more', (id) => `${id}0`],
  'one-less-character': ['one character less', (id) => ([...id].length > 1 ? [...id].slice(0, -1).join('') : `${id}0`)],
  'same-first-64': [
    'the same first 64 characters, then others',
    (id) => `${[...id].slice(0, 64).join('').padEnd(64, '_')}${'z'.repeat(8)}`,
  ],
  'zero-padded-number': [
    'its number with a leading zero',
    (id) => (/\d/.test(id) ? id.replace(/(\d+)(?!.*\d)/, '0$1') : `${id}-01`),
  ],
  'no-hyphens': ['its hyphens removed', (id) => (id.includes('-') ? id.replace(/-/g, '') : `${id}-`)],
  'hyphen-for-underscore': [
    'an underscore for each hyphen',
    (id) => (id.includes('-') ? id.replace(/-/g, '_') : id.replace(/_/g, '-')),
  ],
  'percent-encoded': [
    'a character percent-encoded',
    (id) => id.replace(/[-_.]/, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`),
  ],
  'zero-width-space': ['a zero-width space inside it', (id) => inserted(id, 3, '\u200b')],
  'full-width': [
    'its letters in full width (NFKC-equal)',
    (id) => id.replace(/[A-Za-z0-9]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0)),
  ],
  'tab-for-space': [
    'a tab for each space, or a tab added',
    (id) => (id.includes(' ') ? id.replace(/ /g, '\t') : `${id}\t`),
  ],
} satisfies Record<string, readonly [string, (id: string) => string]>;
export type IdTransform = keyof typeof TRANSFORMS;
export const { words: TRANSFORM_TEXT, ways: ID_TRANSFORMS } = waysOf(TRANSFORMS);

/** A new id made from `id` by `transform`: always different from `id` (and unique, with `fresh`, where needed). */
export function transformed(id: string, transform: IdTransform, fresh: string): string {
  const candidate = TRANSFORMS[transform][1](id);
  // Where the transform cannot change the id (no letters, nothing to decompose), a close one that surely differs.
  return candidate !== id ? candidate : `${id}${fresh.slice(-1)}`;
}
