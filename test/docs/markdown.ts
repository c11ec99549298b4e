/**
 * Reading the manual as data: the fenced code blocks of a Markdown file, the `cai …` command lines in them, and
 * the shell tokens of a line. Used by the docs tests (test/docs/*.test.ts); no I/O here.
 */

export interface CodeBlock {
  /** The info string after the opening fence (`console`, `sh`, `yaml`, …). */
  lang: string;
  /** 1-based line number of the first line inside the fence. */
  line: number;
  lines: string[];
  /** The HTML comment on the last non-blank line before the fence, e.g. `walkthrough` for `<!-- walkthrough -->`. */
  marker?: string;
}

export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let open: { fence: string; block: CodeBlock } | undefined;
  lines.forEach((text, index) => {
    if (open) {
      if (text.trim() === open.fence) {
        blocks.push(open.block);
        open = undefined;
      } else {
        open.block.lines.push(text);
      }
      return;
    }
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
    if (!fence) return;
    open = {
      fence: fence[1] as string,
      block: { lang: fence[2] ?? '', line: index + 2, lines: [], marker: markerBefore(lines, index) },
    };
  });
  return blocks;
}

function markerBefore(lines: readonly string[], fenceIndex: number): string | undefined {
  for (let i = fenceIndex - 1; i >= 0; i -= 1) {
    const text = (lines[i] as string).trim();
    if (text === '') continue;
    return /^<!--\s*(.*?)\s*-->$/.exec(text)?.[1];
  }
  return undefined;
}

/** Lines of a block with `\` continuations joined, each with the 1-based line number of its first line. */
export function logicalLines(block: CodeBlock): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | undefined;
  block.lines.forEach((raw, index) => {
    const line = block.line + index;
    const continued = /\\\s*$/.test(raw);
    const piece = continued ? raw.replace(/\\\s*$/, ' ') : raw;
    if (pending) pending.text += ` ${piece.trim()}`;
    else pending = { text: piece, line };
    if (!continued) {
      out.push(pending);
      pending = undefined;
    }
  });
  if (pending) out.push(pending);
  return out;
}

/**
 * Shell-like words of a line: quotes group (and are removed), a `#` that starts a word starts a comment.
 * Good enough for the documentation's command lines; not a shell.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word = (word ?? '') + char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      word = word ?? '';
      continue;
    }
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (char === '#' && word === undefined) break;
    word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

export interface CommandLine {
  /** The words after `cai`, up to the end of that command (a pipe, `;`, `&&`, `)`, a redirection). */
  words: string[];
  /** The whole `cai …` text, for messages. */
  text: string;
  line: number;
}

// A pipe is ` | ` followed by a word (a synopsis's `FILE|- | --sample` is an alternation, not a pipe).
const SEGMENT_BREAK = /\s\|\s+(?=[A-Za-z])|&&|\|\||;|\$\(|`/;
// `cai` (or `cai-toolkit`, the same command) opens the segment, after a list marker, a label (`repro:`, `run:`),
// variable assignments or `npx [flags]`.
const CAI_START =
  /^\s*(?:[-*]\s+)?(?:[\w-]+:\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:npx\s+(?:-\S+\s+)*)?cai(?:-toolkit)?\s+(?=\S)/;

/**
 * Every `cai …` command in a code block: at the start of a line (after a `$ ` prompt), after a pipe, `&&`, `;` or
 * `$(`, or after a label in a tool's output (`repro:    cai send-event …`). `cai` in the middle of a sentence
 * (`issued by cai test CA`) or followed by something that is not a command word (`cai conformance: interface B`)
 * is output text, not a command, and is left out.
 */
export function caiCommands(block: CodeBlock): CommandLine[] {
  const found: CommandLine[] = [];
  let previous: CommandLine | undefined;
  for (const { text, line } of logicalLines(block)) {
    // A synopsis continued on an indented line without `\`: `           [--format table|json|csv]`.
    if (previous && /^\s+[[(]?--?[A-Za-z]/.test(text)) {
      previous.words.push(...shellWords(text));
      previous.text = `cai ${previous.words.join(' ')}`;
      continue;
    }
    previous = undefined;
    for (const segment of text.replace(/^\s*\$\s+/, '').split(SEGMENT_BREAK)) {
      const start = CAI_START.exec(segment);
      if (!start) continue;
      const rest = segment.slice(start.index + start[0].length);
      const words: string[] = [];
      for (const word of shellWords(rest)) {
        // A redirection or the end of $( … ); `<event type>` is a placeholder, not a redirection.
        if (/^(\d?>|&|\))/.test(word) || word === '<') break;
        words.push(word);
      }
      const first = words.find((word) => !word.startsWith('-'));
      if (first !== undefined && !/^[a-z][a-z-]*$/.test(first) && !words.some((word) => word.startsWith('-'))) continue;
      if (first !== undefined && /[:,]$/.test(first)) continue;
      previous = { words, text: `cai ${words.join(' ')}`, line };
      found.push(previous);
    }
  }
  return found;
}
