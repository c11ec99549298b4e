/**
 * Text from the network or from user files made safe for a terminal: the one place that decides which
 * characters are escaped, used by every renderer and, as the last step, by Output for everything it writes.
 *
 * Escaped visibly, never passed through:
 * - C0 controls (U+0000–U+001F) as `\x1b`, `\x00`…; in a block of lines, LF, HTAB and a CR before an LF are
 *   kept (they lay text out; a lone CR would move back over what is shown, so it is escaped);
 * - DEL and the C1 controls (U+007F–U+009F) as `\u007f`, `\u009b`: some terminals read U+009B as CSI;
 * - the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what is shown
 *   around them ("Trojan Source"), as `\u202e`; the marks (U+200E, U+200F, U+061C) are kept: they reorder nothing
 *   and belong to right-to-left names;
 * - the line and paragraph separators (U+2028, U+2029), which some terminals and viewers break lines at;
 * - a lone surrogate (half of a pair, `"\ud800"` in a JSON string), as `\ud800`: written as UTF-8 it would become
 *   U+FFFD, showing another character than the one that came (JSON.stringify escapes it so already).
 * So an ESC never reaches the terminal: no CSI, no OSC (titles, OSC 8 hyperlinks), no cursor moves. A backslash
 * itself is not escaped (bodies are full of `\"`): a literal `\x1b` in the text reads the same as an escaped ESC,
 * which is harmless. Every escape is also a valid JSON escape but `\xNN`, which is only used for C0 controls, and
 * JSON.stringify never leaves one of those raw: escaping JSON text never breaks it.
 */

/** A surrogate that is not half of a pair. */
const LONE_SURROGATE = '[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]';
/** DEL, the C1 controls, the separators and the bidi controls: unsafe everywhere. */
const UNSAFE_ABOVE_ASCII = '\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069';
/** Everything unsafe on one line: every control, the bidi controls, the separators, a lone surrogate. */
const UNSAFE_IN_LINE = new RegExp(`[\u0000-\u001f${UNSAFE_ABOVE_ASCII}]|${LONE_SURROGATE}`, 'g');
/** Unsafe in a block of lines: the same, but LF, HTAB and the CR of a CRLF. */
const UNSAFE_BLOCK_SOURCE = `[\u0000-\u0008\u000b\u000c\u000e-\u001f${UNSAFE_ABOVE_ASCII}]|\r(?!\n)|${LONE_SURROGATE}`;
const UNSAFE_IN_BLOCK = new RegExp(UNSAFE_BLOCK_SOURCE, 'g');
/**
 * The same, with the colour sequences cai itself writes kept, on a stream cai colours: SGR (`ESC [ … m`) with only
 * the parameters of the palette (src/output/palette.ts: reset, bold, dim, underline, red, green, yellow, blue,
 * magenta, cyan, default colour, gray), so even a colour sequence from outside that a renderer failed to escape can
 * at most colour text, never hide it (SGR 8) or do anything else.
 */
const SGR_PARAM = '(?:0|1|2|4|22|24|31|32|33|34|35|36|39|90)';
const UNSAFE_BUT_SGR = new RegExp(`(\u001b\\[(?:${SGR_PARAM}(?:;${SGR_PARAM})*)?m)|${UNSAFE_BLOCK_SOURCE}`, 'g');
/** The characters JSON.stringify leaves raw that a terminal may act on. */
const UNSAFE_IN_JSON = new RegExp(`[${UNSAFE_ABOVE_ASCII}]`, 'g');

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return SHORT[char] ?? `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * GitHub Actions runs a line of a step's output that starts (after blanks) with `::` as a workflow command, and
 * `##[` anywhere in a line as one of its older commands. cai never writes either of its own but through
 * `Output.annotation`, so in everything else the first colon of a leading `::` and the first `#` of `##[` are
 * written as their `\u` escapes: text from outside (an answer wrapped onto a line of its own, a `::stop-commands::`
 * that would silence cai's own annotations) can never start one.
 */
const LEADING_COMMAND = /^([^\S\r\n]*):(?=:)/gm;
const OLD_COMMAND = /#(?=#\[)/g;

export function withoutWorkflowCommands(text: string): string {
  return withoutOldWorkflowCommands(text.replace(LEADING_COMMAND, '$1\\u003a'));
}

/** Only the older `##[` commands: for cai's own workflow commands, and JSON text (whose lines never start `::`). */
export function withoutOldWorkflowCommands(text: string): string {
  return text.replace(OLD_COMMAND, '\\u0023');
}

/** One line of text from outside (an event_id, a header value, a table cell, a quoted value): nothing unsafe, no line break. */
export function safeText(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeChar);
}

/** Lines of text from outside (a response body): their line breaks and tabs kept, everything else unsafe escaped. */
export function safeBlock(text: string): string {
  return text.replace(UNSAFE_IN_BLOCK, escapeChar);
}

/**
 * What Output writes, as its last step: `safeBlock`, except that on a stream cai colours, the SGR colour sequences
 * are kept (renderers escape what they take from outside with `safeText`/`safeBlock` before colouring it, so any
 * SGR left is cai's own; anything else, from anywhere, is escaped here).
 */
export function safeForTerminal(text: string, keepColour: boolean): string {
  if (!keepColour) return withoutWorkflowCommands(safeBlock(text));
  return withoutWorkflowCommands(
    text.replace(UNSAFE_BUT_SGR, (match: string, sgr: string | undefined) => sgr ?? escapeChar(match)),
  );
}

/**
 * JSON text with the characters JSON.stringify leaves raw that a terminal may act on (DEL, C1, the bidi controls,
 * U+2028/2029) written as `\uXXXX` escapes: the same JSON value, safe to print. C0 controls, ESC included, are
 * escaped by JSON.stringify itself. Strings only ever hold these characters, so replacing them keeps the JSON valid.
 */
export function jsonText(value: unknown, space?: number): string {
  return safeJson(JSON.stringify(value, null, space) ?? 'null');
}

/** JSON text as JSON.stringify wrote it, with what jsonText escapes escaped: the same value, safe to `tail -f`. */
export function safeJson(text: string): string {
  // `#` only ever stands in strings of JSON text, where `\u0023` is the same value (no line of it starts `::`).
  return withoutOldWorkflowCommands(text.replace(UNSAFE_IN_JSON, escapeChar));
}
