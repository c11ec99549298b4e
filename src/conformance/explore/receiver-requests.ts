/**
 * The requests of a conversation's steps, built from their data (./receiver-steps.ts), and how a step names them:
 * the JSON's layout, a body broken by JSON's grammar, the forged credentials, an identifier transformed. Each turns
 * one valid request into the one the step means, so that whatever else it changes, the model judges the request as
 * it goes on the wire.
 */
import { compact, escapedField, looseLayout, reversedKeys, type Doc } from '../probe/bodies.js';
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

/**
 * How the JSON of a valid document is written: §5.2 signs the bytes whatever their layout. The last two add a field
 * §9.2 says to ignore, where parsers differ (RFC 8259 §9, §8.2): a receiver may refuse it, never answer it 5xx.
 */
export const FORM_TEXT = {
  compact: 'compact JSON',
  loose: 'odd white space, tabs and CRLF',
  'reversed-keys': 'keys in reverse order',
  escaped: 'a string field written in \\u escapes',
  'escaped-id': 'its event_id written in \\u escapes',
  'trailing-newline': 'a newline after the JSON',
  'deep-field': `an unknown field nested ${DEEP_FIELD_DEPTH} deep`,
  'unpaired-surrogate': 'an unknown field holding an unpaired surrogate (\\ud800)',
} satisfies Record<string, string>;
export type BodyForm = keyof typeof FORM_TEXT;
export const BODY_FORMS = Object.keys(FORM_TEXT) as readonly BodyForm[];

export function bodyIn(doc: Doc, form: BodyForm, textField: string): Buffer {
  switch (form) {
    case 'compact':
      return compact(doc);
    case 'loose':
      return Buffer.from(looseLayout(doc), 'utf8');
    case 'reversed-keys':
      return compact(reversedKeys(doc));
    case 'escaped':
      return Buffer.from(escapedField(doc, typeof doc[textField] === 'string' ? textField : 'event_id'), 'utf8');
    case 'escaped-id':
      return Buffer.from(escapedField(doc, 'event_id'), 'utf8');
    case 'trailing-newline':
      return Buffer.concat([compact(doc), Buffer.from('\n')]);
    case 'deep-field':
      return withFieldText(doc, 'x_cai_deep', `${'['.repeat(DEEP_FIELD_DEPTH)}${']'.repeat(DEEP_FIELD_DEPTH)}`);
    case 'unpaired-surrogate':
      return withFieldText(doc, 'x_cai_note', '"a\\ud800b"');
  }
}

/**
 * Bodies that are not the JSON object §2 asks for, each a near miss of the valid one's bytes: cut short, a comma too
 * many, the quotes or keys of another syntax, a byte order mark, bytes that are not UTF-8, a value that is not an
 * object, nothing at all, text after the document.
 */
export const MALFORMED_TEXT = {
  'cut-short': 'cut short',
  'trailing-comma': 'with a comma before its closing brace',
  'single-quotes': 'in single quotes',
  'unquoted-key': 'with a key unquoted',
  'byte-order-mark': 'after a byte order mark',
  'not-utf8': 'with a byte that is not UTF-8 inside its event_id',
  array: 'inside an array',
  string: 'as a JSON string',
  number: 'a number instead',
  null: 'null instead',
  empty: 'empty',
  comment: 'with a comment',
  nan: 'with NaN for a value',
  'text-after': 'followed by text after its closing brace',
} satisfies Record<string, string>;
export type Malformed = keyof typeof MALFORMED_TEXT;
export const MALFORMED = Object.keys(MALFORMED_TEXT) as readonly Malformed[];

/** The valid body's bytes, broken as `how` says (still signed correctly: only the document is wrong). */
export function malformedBody(body: Buffer, how: Malformed, at: number): Buffer {
  const text = body.toString('utf8');
  switch (how) {
    case 'cut-short':
      return body.subarray(0, Math.max(1, Math.floor((body.length * at) / 1000)));
    case 'trailing-comma':
      return Buffer.from(`${text.slice(0, -1)},}`, 'utf8');
    case 'single-quotes':
      return Buffer.from(text.replace(/"/g, "'"), 'utf8');
    case 'unquoted-key':
      return Buffer.from(text.replace(/"([a-z_]+)":/, '$1:'), 'utf8');
    case 'byte-order-mark':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    case 'not-utf8': {
      // Inside a string, where a reader that replaces what it cannot decode (or reads Latin-1) still finds JSON, and
      // takes another event_id than the one sent; before the closing brace, any JSON parser would refuse it.
      const at = /"event_id"\s*:\s*"/.exec(text);
      const cut = at ? Buffer.byteLength(text.slice(0, at.index + at[0].length)) : body.length - 1;
      return Buffer.concat([body.subarray(0, cut), Buffer.from([0xe9]), body.subarray(cut)]);
    }
    case 'array':
      return Buffer.from(`[${text}]`, 'utf8');
    case 'string':
      return Buffer.from(JSON.stringify(text), 'utf8');
    case 'number':
      return Buffer.from(String(at), 'utf8');
    case 'null':
      return Buffer.from('null', 'utf8');
    case 'empty':
      return Buffer.alloc(0);
    case 'comment':
      return Buffer.from(`/* cai */${text}`, 'utf8');
    case 'nan':
      return Buffer.from(`${text.slice(0, -1)},"x_value":NaN}`, 'utf8');
    // A reader that decodes the first value and stops (Python's raw_decode) takes the document before the text.
    case 'text-after':
      return Buffer.from(`${text} cai`, 'utf8');
  }
}

/** What is wrong with a request's credentials (§5, §4.1, §4.2). */
export const FORGERY_TEXT = {
  'wrong-secret': 'signed with another secret',
  'other-body': 'with the signature of another body',
  stale: 'a timestamp 360 s old',
  future: 'a timestamp 360 s ahead',
  'no-signature': 'without X-CAI-Signature',
  'no-timestamp': 'without X-CAI-Timestamp',
  milliseconds: 'a timestamp in milliseconds',
  'other-identity': 'from another sender (identity header)',
  'identity-case': 'the identity header in another case',
  'no-identity': 'without the identity header',
  'damaged-digest': 'the digest with its last hex digit changed',
  'empty-secret': 'signed with the empty secret',
  'stale-and-fresh': 'signed with a timestamp 360 s old, then a second X-CAI-Timestamp of now',
} satisfies Record<string, string>;
export type Forgery = keyof typeof FORGERY_TEXT;
export const FORGERIES = Object.keys(FORGERY_TEXT) as readonly Forgery[];

export function forge(forgery: Forgery, scope: ProbeScope, doc: Doc): Partial<RequestRecipe> {
  const identity = scope.session.config.identity;
  switch (forgery) {
    case 'wrong-secret':
      return { signature: { kind: 'wrong-secret', secret: `not-the-secret-${scope.eventId()}` } };
    case 'other-body':
      return {
        signature: { kind: 'other-body', body: compact({ ...doc, event_id: `${String(doc.event_id)}-other` }) },
      };
    case 'stale':
      return { timestamp: { kind: 'now', shiftSeconds: -360 } };
    case 'future':
      return { timestamp: { kind: 'now', shiftSeconds: 360 } };
    case 'no-signature':
      return { signature: { kind: 'none' } };
    case 'no-timestamp':
      return { timestamp: { kind: 'none' } };
    case 'milliseconds':
      return { timestamp: { kind: 'milliseconds' } };
    case 'other-identity':
      return { identity: { kind: 'value', value: `${identity}-other` } };
    case 'identity-case': {
      const other =
        identity.toUpperCase() !== identity
          ? identity.toUpperCase()
          : identity.toLowerCase() !== identity
            ? identity.toLowerCase()
            : `${identity}X`;
      return { identity: { kind: 'value', value: other } };
    }
    case 'no-identity':
      return { identity: { kind: 'none' } };
    case 'damaged-digest':
      return { signature: { kind: 'damaged', damage: 'last-digit' } };
    // A secret left unset in a rotation's second slot (§5.9) is the empty string: a verifier that tries it too lets
    // anyone sign.
    case 'empty-secret':
      return { signature: { kind: 'wrong-secret', secret: '' } };
    // The stale request replayed with a fresh header line added: a receiver that measures the window on one line and
    // signs the other takes it (§5.4, §5.5).
    case 'stale-and-fresh':
      return { timestamp: { kind: 'stale-and-fresh', shiftSeconds: -360 } };
  }
}

/** How a new event_id is made from an earlier one: what an identifier comparison that is not exact conflates. */
export const TRANSFORM_TEXT = {
  'upper-case': 'in upper case',
  'lower-case': 'in lower case',
  'first-letter-case': 'its first letter in the other case',
  decomposed: 'with an accent decomposed (NFD)',
  composed: 'with an accent composed (NFC)',
  'leading-space': 'a space before it',
  'trailing-space': 'a space after it',
  'inner-space': 'a space inside it',
  'one-more-character': 'one character more',
  'one-less-character': 'one character less',
  'same-first-64': 'the same first 64 characters, then others',
  'zero-padded-number': 'its number with a leading zero',
  'hyphen-for-underscore': 'an underscore for each hyphen',
  'percent-encoded': 'a character percent-encoded',
  'zero-width-space': 'a zero-width space inside it',
  'full-width': 'its letters in full width (NFKC-equal)',
  'tab-for-space': 'a tab for each space, or a tab added',
} satisfies Record<string, string>;
export type IdTransform = keyof typeof TRANSFORM_TEXT;
export const ID_TRANSFORMS = Object.keys(TRANSFORM_TEXT) as readonly IdTransform[];

/** A new id made from `id` by `transform`: always different from `id` (and unique, with `fresh`, where needed). */
export function transformed(id: string, transform: IdTransform, fresh: string): string {
  const candidate = applyTransform(id, transform);
  // Where the transform cannot change the id (no letters, nothing to decompose), a close one that surely differs.
  return candidate !== id ? candidate : `${id}${fresh.slice(-1)}`;
}

function applyTransform(id: string, transform: IdTransform): string {
  switch (transform) {
    case 'upper-case':
      return id.toUpperCase();
    case 'lower-case':
      return id.toLowerCase() !== id ? id.toLowerCase() : id.toUpperCase();
    case 'first-letter-case': {
      const index = [...id].findIndex((char) => char.toUpperCase() !== char.toLowerCase());
      if (index < 0) return id;
      const chars = [...id];
      const char = chars[index] as string;
      chars[index] = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
      return chars.join('');
    }
    case 'decomposed':
      return id.normalize('NFD') !== id ? id.normalize('NFD') : `${id}-cafe\u0301`;
    case 'composed':
      return id.normalize('NFC') !== id ? id.normalize('NFC') : `${id}-caf\u00e9`;
    case 'leading-space':
      return ` ${id}`;
    case 'trailing-space':
      return `${id} `;
    case 'inner-space':
      return `${[...id].slice(0, 1).join('')} ${[...id].slice(1).join('')}`;
    case 'one-more-character':
      return `${id}0`;
    case 'one-less-character':
      return [...id].length > 1 ? [...id].slice(0, -1).join('') : `${id}0`;
    case 'same-first-64':
      return `${[...id].slice(0, 64).join('').padEnd(64, '_')}${'z'.repeat(8)}`;
    case 'zero-padded-number':
      return /\d/.test(id) ? id.replace(/(\d+)(?!.*\d)/, '0$1') : `${id}-01`;
    case 'hyphen-for-underscore':
      return id.includes('-') ? id.replace(/-/g, '_') : id.replace(/_/g, '-');
    case 'percent-encoded':
      return id.replace(/[-_.]/, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
    case 'zero-width-space':
      return `${[...id].slice(0, 3).join('')}\u200b${[...id].slice(3).join('')}`;
    case 'full-width':
      return id.replace(/[A-Za-z0-9]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
    case 'tab-for-space':
      return id.includes(' ') ? id.replace(/ /g, '\t') : `${id}\t`;
  }
}
