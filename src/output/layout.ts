/**
 * Laying text out for a terminal of a given width: visible width (colour codes are invisible, CJK and emoji are
 * two columns), truncation with an ellipsis, word wrapping with a hanging indent, and the column widths of a table
 * that fits. Pure functions on strings; `Output` decides the width (a terminal's columns, or none when piped).
 */

/** A CSI sequence (colours, cursor moves) or an OSC one (titles, hyperlinks). */
const ANSI_SOURCE = String.raw`\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`;
const ANSI = new RegExp(ANSI_SOURCE, 'g');
const ANSI_AT_START = new RegExp(`^(?:${ANSI_SOURCE})`);
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI = /^\p{Emoji_Presentation}$/u;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Columns one character takes: 0 for combining marks and format characters, 2 for wide (East Asian, emoji). */
function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (code < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  if (isWide(code) || EMOJI.test(char)) return 2;
  return 1;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    code === 0x2329 ||
    code === 0x232a ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe10 && code <= 0xfe19) ||
    (code >= 0xfe30 && code <= 0xfe6b) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** The columns `text` takes on a terminal (the widest of its lines). */
export function visibleWidth(text: string): number {
  let widest = 0;
  for (const line of stripAnsi(text).split('\n')) {
    let width = 0;
    for (const char of line) width += charWidth(char);
    if (width > widest) widest = width;
  }
  return widest;
}

/** One piece of a line: a colour code (no width) or one character. */
interface Piece {
  text: string;
  width: number;
  code: boolean;
}

function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let rest = text;
  while (rest.length > 0) {
    const code = ANSI_AT_START.exec(rest);
    if (code) {
      out.push({ text: code[0], width: 0, code: true });
      rest = rest.slice(code[0].length);
      continue;
    }
    const char = String.fromCodePoint(rest.codePointAt(0) ?? 0);
    out.push({ text: char, width: charWidth(char), code: false });
    rest = rest.slice(char.length);
  }
  return out;
}

/** Colour codes that end a style (chalk closes each painted span with one of these). */
const CLOSING = /^\x1b\[(?:0|22|23|24|27|28|29|39|49)?m$/;

/** Tracks the colour codes open at a point of a line, to close and reopen them across a line break. */
class StyleState {
  private open: string[] = [];

  see(code: string): void {
    if (CLOSING.test(code)) this.open = [];
    else if (code.endsWith('m')) this.open.push(code);
  }

  get close(): string {
    return this.open.length > 0 ? '\x1b[0m' : '';
  }

  get reopen(): string {
    return this.open.join('');
  }
}

/** `text` cut to `width` columns, ending in `…` when cut. Colour codes are kept and closed. */
export function truncate(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  if (width <= 0) return '';
  const limit = width - 1;
  let used = 0;
  let out = '';
  const style = new StyleState();
  for (const piece of pieces(text)) {
    // A colour code takes no column: kept, whatever the room.
    if (piece.code) style.see(piece.text);
    else if (used + piece.width > limit) break;
    out += piece.text;
    used += piece.width;
  }
  return `${out}…${style.close}`;
}

export interface WrapOptions {
  /** Put before every line after the first (a hanging indent). Default: none. */
  indent?: string;
}

/**
 * Word-wraps one line of text to `width` columns. Breaks at spaces; a word longer than a whole line is broken
 * where it must be (nothing is lost). Continuation lines start with `indent`. Colour codes that span a break are
 * closed at the end of the line and reopened on the next.
 */
export function wrap(text: string, width: number, options: WrapOptions = {}): string[] {
  if (text.includes('\n')) return text.split('\n').flatMap((line) => wrap(line, width, options));
  if (visibleWidth(text) <= width) return [text];
  const indent = options.indent ?? '';
  // An indent that leaves less than 10 columns is dropped: narrow terminals get the text, not the margin.
  const hanging = width - visibleWidth(indent) >= 10 ? indent : '';
  const lines: string[] = [];
  const style = new StyleState();
  let line = '';
  let used = 0;
  let room = width;
  const newLine = () => {
    lines.push(line.replace(/ +$/, '') + style.close);
    line = hanging + style.reopen;
    used = visibleWidth(hanging);
    room = width;
  };
  for (const word of words(text)) {
    const wordWidth = visibleWidth(word);
    const isSpace = word.trim() === '' && stripAnsi(word) === word;
    if (isSpace) {
      // Spaces between words; at the very start, the line's own indent (kept, as the continuation lines get theirs).
      if ((used > 0 || lines.length === 0) && used + wordWidth <= room) {
        line += word;
        used += wordWidth;
      }
      continue;
    }
    if (used + wordWidth > room && used > visibleWidth(hanging)) newLine();
    if (used + wordWidth <= room) {
      for (const piece of pieces(word)) if (piece.code) style.see(piece.text);
      line += word;
      used += wordWidth;
      continue;
    }
    // Longer than a whole line: broken where it must be.
    for (const piece of pieces(word)) {
      if (piece.code) style.see(piece.text);
      else if (used + piece.width > room) newLine();
      line += piece.text;
      used += piece.width;
    }
  }
  lines.push(line.replace(/ +$/, '') + style.close);
  return lines;
}

/** Words and the runs of spaces between them, colour codes staying with their word. */
function words(text: string): string[] {
  return text.split(/( +)/).filter((part) => part !== '');
}

export type ColumnFit = 'wrap' | 'truncate' | 'fixed';

export interface ColumnSpec {
  /** How a cell that does not fit gets smaller: wrapped onto more lines (default), cut with `…`, or never. */
  fit?: ColumnFit;
  /** The narrowest the column may get (its content), before the table is shown as a list instead. */
  min?: number;
}

/**
 * The content width of each column so that a table with these natural widths fits in `available` columns,
 * counting `overhead` columns of borders and padding. Shrinks the widest shrinkable column first. Undefined when
 * even the narrowest widths do not fit.
 */
export function fitColumns(
  natural: readonly number[],
  specs: readonly ColumnSpec[],
  available: number,
  overhead: number,
): number[] | undefined {
  const widths = [...natural];
  const total = () => widths.reduce((sum, width) => sum + width, 0) + overhead;
  const floor = natural.map((width, index) => {
    const spec = specs[index] ?? {};
    return spec.fit === 'fixed' ? width : Math.min(width, spec.min ?? 8);
  });
  while (total() > available) {
    let widest = -1;
    for (const [index, width] of widths.entries())
      if (width > (floor[index] as number) && (widest === -1 || width > (widths[widest] as number))) widest = index;
    if (widest === -1) return undefined;
    widths[widest] = (widths[widest] as number) - 1;
  }
  return widths;
}

/** A cell's text for a column of `width`: wrapped onto lines or cut, as the column's spec says. */
export function fitCell(text: string, width: number, fit: ColumnFit = 'wrap'): string {
  if (visibleWidth(text) <= width) return text;
  if (fit === 'truncate')
    return text
      .split('\n')
      .map((line) => truncate(line, width))
      .join('\n');
  return wrap(text, width).join('\n');
}

/** `  --flag <x>  description`, `  send-event [options]  Send …`: a term, two spaces or more, its description. */
const HELP_ITEM = /^(\s+\S.*?\s{2,})\S/;

/**
 * Help text fitted to `width` columns: an example command (`  $ cai …`, and the lines that continue it after a
 * ` \`) is broken between shell words with a ` \` continuation, so that it stays one command to copy, its trailing
 * `# comment` moved above it; an option or command line wraps under its description; a paragraph of prose is
 * reflowed under its own indent (its second line's, when that one hangs). Lines that fit are left as they are.
 */
export function fitHelp(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const fits = (line: string) => visibleWidth(line) <= width;
  let continued = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as string;
    const example = /^(\s*)\$ /.exec(line);
    const isCommand: boolean = example !== null || continued;
    continued = isCommand && / \\$/.test(line);
    if (isCommand) {
      out.push(...(fits(line) ? [line] : wrapCommand(line, width, `${example?.[1] ?? leadOf(line).slice(0, -4)}    `)));
      continue;
    }
    // An option or command line wraps under its description (when that is not past the middle); any other line that
    // is not prose (blank, or laid out deeper), under its own indent.
    const item = HELP_ITEM.exec(line);
    if (item || !isProse(line)) {
      const column = item ? visibleWidth(item[1] as string) : leadOf(line).length;
      out.push(...(fits(line) ? [line] : wrapUnder(line, width, column <= width / 2 ? column : leadOf(line).length)));
      continue;
    }
    const paragraph = [line];
    while (index + 1 < lines.length && isProse(lines[index + 1] as string))
      paragraph.push(lines[(index += 1)] as string);
    out.push(...(paragraph.every(fits) ? paragraph : reflow(paragraph, width)));
  }
  return out.join('\n');
}

function leadOf(line: string): string {
  return /^\s*/.exec(line)?.[0] ?? '';
}

/** A line of a paragraph to reflow: text at the margin or a list's hanging indent, not a deeper, laid-out line. */
function isProse(line: string): boolean {
  return line.trim() !== '' && leadOf(line).length <= 2 && !/^\s*\$ /.test(line) && !HELP_ITEM.test(line);
}

/** A line wrapped to `width`, its own indent kept, continuation lines starting at `column`. */
function wrapUnder(line: string, width: number, column: number): string[] {
  const lead = leadOf(line);
  const hanging = ' '.repeat(Math.max(0, column - lead.length));
  return wrap(line.slice(lead.length), width - lead.length, { indent: hanging }).map((part) => `${lead}${part}`);
}

/** Lines of one paragraph as one text, wrapped under the first line's indent (the second's, when it hangs). */
function reflow(paragraph: readonly string[], width: number): string[] {
  const first = leadOf(paragraph[0] as string).length;
  const second = paragraph.length > 1 ? leadOf(paragraph[1] as string).length : first;
  return wrapUnder(
    paragraph.map((line, index) => (index === 0 ? line : line.trim())).join(' '),
    width,
    Math.max(first, second),
  );
}

/** One line of a shell command, broken between its words with ` \` continuations, never inside a word or a quoted string. */
function wrapCommand(line: string, width: number, indent: string): string[] {
  const ending = / \\$/.test(line) ? ' \\' : '';
  const body = ending ? line.slice(0, -2) : line;
  const comment = / {2,}(# .*)$/.exec(body);
  const command = comment ? body.slice(0, comment.index) : body;
  const lead = leadOf(command);
  const lines: string[] = comment ? [`${lead}${comment[1] as string}`] : [];
  let current = lead;
  for (const word of shellWords(command.slice(lead.length))) {
    if (current.trim() === '') current += word;
    else if (visibleWidth(`${current} ${word}`) <= width - 2) current += ` ${word}`;
    else {
      lines.push(`${current} \\`);
      current = `${indent}${word}`;
    }
  }
  lines.push(`${current}${ending}`);
  // A word wider than a line (a long quoted argument, a long URL) stays whole, wider than the line: broken, it would
  // paste as two commands (a quoted string cut in two runs its first half). Examples are written to fit instead.
  return lines;
}

/** The words of a shell command line, each quoted part kept inside its word. */
function shellWords(text: string): string[] {
  return text.match(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g) ?? [];
}
