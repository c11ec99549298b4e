/**
 * The one escaping function of every XML and HTML writer cai has: the HTML reports, the inspector's page and views,
 * and the JUnit report. Text from a target or a file → markup text, or a double-quoted attribute value, that always
 * parses (XML 1.0 and HTML alike) and that a page, a CI viewer or a terminal showing it takes for text only:
 *
 * - what XML 1.0 cannot carry (§2.2 Char: C0 controls other than tab, LF and CR; lone UTF-16 surrogates; U+FFFE and
 *   U+FFFF): a C0 control is shown as its Unicode "control picture" (NUL → ␀, ESC → ␛), a lone surrogate (it
 *   cannot be encoded at all) as U+FFFD, U+FFFE and U+FFFF as `\ufffe`, `\uffff`;
 * - what a page or a terminal would act on: DEL (␡), the C1 controls (U+0080–U+009F; a terminal reads U+009B as
 *   CSI), and the bidi controls that reorder what is shown around them (the embeddings, overrides and isolates
 *   U+202A–U+202E, U+2066–U+2069, and the marks U+200E, U+200F, U+061C), written as the terminal shows them (`\u009b`,
 *   `\u202e`; src/output/safe-text.ts): visibly, never as a character reference a parser would turn back;
 * - the markup characters `& < > " '` as entities.
 * Tab, LF and CR are kept (they lay text out), and so is every other character.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The source of the pattern of what is shown visibly (not the markup characters), for the inspector's own script. */
export const VISIBLE_PATTERN = '[\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufffe\\uffff]';

const UNSAFE = new RegExp(
  String.raw`[\u0000-\u0008\u000b\u000c\u000e-\u001f]|${VISIBLE_PATTERN}|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[&<>"']`,
  'g',
);

function replacement(char: string): string {
  const entity = ENTITIES[char];
  if (entity !== undefined) return entity;
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  if (code >= 0xd800 && code <= 0xdfff) return '\ufffd';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text → XML or HTML text, or a double-quoted attribute value (see above). */
export function escapeMarkup(text: string): string {
  return text.replace(UNSAFE, replacement);
}
