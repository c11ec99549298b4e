import { loadPalette, plainPalette, type Palette } from './palette.js';
import { fitCell, fitColumns, visibleWidth, wrap, type ColumnFit, type ColumnSpec } from './layout.js';
import {
  jsonText,
  safeBlock,
  safeForTerminal,
  safeText,
  withoutOldWorkflowCommands,
  withoutWorkflowCommands,
} from './safe-text.js';
import type { Io } from '../io.js';
import { maskSecrets } from '../secrets/mask.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  debug: boolean;
  /** `--no-color` sets this false; `undefined` means decide from NO_COLOR / FORCE_COLOR / TTY. */
  color?: boolean;
}

interface Spinner {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
}

const silentSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/**
 * The one way a command talks to the terminal (STYLE.md "Output"):
 * stdout carries the result only; logs, progress, warnings and errors go to stderr.
 * Colour and spinners only on a TTY and never in `--json` mode.
 *
 * Everything it writes goes through two last steps: secrets and URL passwords masked (src/secrets/mask.ts),
 * and every control character, escape sequence and bidi control escaped (src/output/safe-text.ts), but the colours
 * cai itself paints on a coloured stream; `--json` documents are escaped as JSON. Renderers escape what they take
 * from outside before they colour it, so what cai prints from the network or a user's file never drives the terminal.
 */
export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly debug: boolean;
  /** Colour for stdout. */
  readonly color: Palette;
  /** Colour for stderr (it may be a TTY when stdout is piped, and vice versa). */
  readonly errColor: Palette;
  /**
   * The width results are laid out for: the terminal's columns when stdout is one, undefined when it is not (a
   * pipe, a file, CI): then nothing is wrapped or cut, and the output is complete.
   */
  readonly width: number | undefined;
  /** The same for stderr (progress, notes, warnings, errors). */
  readonly errWidth: number | undefined;
  private readonly io: Io;

  /** Without palettes, output is plain; `Output.create` loads colour when a stream will show it. */
  constructor(
    io: Io,
    options: OutputOptions,
    palettes: { stdout: Palette; stderr: Palette } = { stdout: plainPalette, stderr: plainPalette },
  ) {
    this.io = io;
    this.json = options.json;
    this.quiet = options.quiet;
    this.debug = options.debug;
    this.color = palettes.stdout;
    this.errColor = palettes.stderr;
    this.width = terminalWidth(io.stdout);
    this.errWidth = terminalWidth(io.stderr);
  }

  static async create(io: Io, options: OutputOptions): Promise<Output> {
    // chalk does not read NO_COLOR itself, so the level is decided here (STYLE.md).
    const [stdout, stderr] = await Promise.all([
      loadPalette(colorLevel(io.env, io.stdout.isTTY === true, options)),
      loadPalette(colorLevel(io.env, io.stderr.isTTY === true, options)),
    ]);
    return new Output(io, options, { stdout, stderr });
  }

  get stdoutIsTTY(): boolean {
    return this.io.stdout.isTTY === true;
  }

  get stderrIsTTY(): boolean {
    return this.io.stderr.isTTY === true;
  }

  /**
   * Whether stderr can show a line redrawn in place (`\r`, erase to the end of the line): a terminal that reports
   * its width and is not `TERM=dumb` (Emacs shells, some CI consoles print those codes as they are). Without it,
   * progress is plain lines, as when piped.
   */
  get cursorControl(): boolean {
    return this.stderrIsTTY && this.io.env.TERM !== 'dumb' && (this.io.stderr.columns ?? 0) > 0;
  }

  /** A line of the command's result, on stdout. Ignored in `--json` mode, where `printJson` is the result. */
  result(line = ''): void {
    if (!this.json) this.io.stdout.write(this.printable(line) + '\n');
  }

  /** `text` as Output writes it to stdout: secrets masked, unsafe characters escaped (for a command's own stdout writer). */
  printable(text: string): string {
    return safeForTerminal(maskSecrets(text), this.color !== plainPalette);
  }

  /**
   * As `printable`, for stderr. `info` keeps cai's colours (the live progress paints its lines); the labelled lines
   * (`error:`, `warning:`, `note:`) and debug lines are never painted by their callers, so nothing is kept there.
   */
  printableErr(text: string, keepColour = false): string {
    return keepColour
      ? safeForTerminal(maskSecrets(text), this.errColor !== plainPalette)
      : withoutWorkflowCommands(safeBlock(maskSecrets(text)));
  }

  /**
   * A line of prose on stdout, word-wrapped to the terminal (continuation lines start with `indent`); as is when
   * stdout is not a terminal. Not for data a user copies (commands, headers, JSON): those go through `result`.
   */
  resultWrapped(line: string, indent = ''): void {
    this.result(this.fit(line, indent));
  }

  /** `text` wrapped to the width of stdout, or as is when stdout is not a terminal. */
  fit(text: string, indent = ''): string {
    return wrapTo(this.width, text, indent);
  }

  /** Result text on stdout, as given but made printable (no newline added): NDJSON lines, CSV, scripts. */
  resultRaw(text: string): void {
    this.io.stdout.write(this.printable(text));
  }

  /**
   * Bytes that are the product itself (a `--dry-run` capture that `cai replay` reads back): exact when stdout is a
   * file or a pipe; on a terminal, shown as text with anything unsafe escaped.
   */
  resultExact(bytes: Uint8Array): void {
    // Bytes from outside that cai never colours: no SGR is cai's own here, so none is kept, the palette's included.
    this.io.stdout.write(this.stdoutIsTTY ? safeBlock(maskSecrets(Buffer.from(bytes).toString('utf8'))) : bytes);
  }

  /** The one JSON document (or one NDJSON line) of `--json` mode. */
  printJson(document: unknown): void {
    this.io.stdout.write(maskSecrets(jsonText(document)) + '\n');
  }

  /** Progress and context on stderr; silenced by `--quiet`. */
  info(line: string): void {
    if (!this.quiet)
      this.io.stderr.write(
        wrapTo(this.errWidth, this.printableErr(line, true), `${/^ */.exec(line)?.[0] ?? ''}  `) + '\n',
      );
  }

  /** Something the user may want to know about their input; silenced by `--quiet`, as progress is. */
  note(line: string): void {
    if (!this.quiet) this.labelled(this.errColor.cyan('note:'), line);
  }

  /** Something that may be wrong (a secret given inline, a report that could not be written): shown even with `--quiet`. */
  warn(line: string): void {
    this.labelled(this.errColor.yellow('warning:'), line);
  }

  /**
   * A CI's workflow command (GitHub Actions' `::error …::…`), on stderr where the runner reads it as it reads stdout:
   * one line as given (the caller escapes it), secrets masked; shown even with `--quiet`, never wrapped.
   */
  annotation(line: string): void {
    // Its own leading `::` is the command; an older `##[` inside it is not cai's.
    this.io.stderr.write(`${withoutOldWorkflowCommands(safeText(maskSecrets(line)))}\n`);
  }

  /** `error:` then `hint:`, on stderr (or inside the JSON document in `--json` mode; see main.ts). */
  error(message: string, hint?: string): void {
    this.labelled(this.errColor.red('error:'), message);
    if (hint) this.labelled(this.errColor.dim('hint:'), hint);
  }

  /** `label: text` on stderr, continuation lines aligned under the text on a terminal. */
  private labelled(label: string, text: string): void {
    const line = `${label} ${this.printableErr(text)}`;
    this.io.stderr.write(wrapTo(this.errWidth, line, ' '.repeat(visibleWidth(label) + 1)) + '\n');
  }

  debugLine(line: string): void {
    if (this.debug) this.io.stderr.write(`${this.errColor.dim('debug:')} ${this.printableErr(line)}\n`);
  }

  /** A spinner on stderr, only when stderr can redraw a line (`cursorControl`) and neither `--json` nor `--quiet` is set. */
  async spinner(text: string): Promise<Spinner> {
    // A terminal that reports no width (some `script` or CI pseudo-terminals) sends ora's line count to Infinity.
    if (!this.cursorControl || this.json || this.quiet) return silentSpinner;
    const { default: ora } = await import('ora');
    const clean = (line: string) => safeText(maskSecrets(line));
    const spinner = ora({ text: clean(text), stream: this.io.stderr, color: 'cyan' }).start();
    return {
      update: (next) => {
        spinner.text = clean(next);
      },
      succeed: (done) => spinner.succeed(clean(done)),
      fail: (done) => spinner.fail(clean(done)),
      stop: () => spinner.stop(),
    };
  }

  /**
   * Renders rows as a table (cli-table3, loaded only when a table is drawn). On a terminal the table fits its
   * width: the columns that may shrink (`columns[i].fit`, default `wrap`) wrap or cut their cells, widest first;
   * when even that cannot fit, each row is shown as a list of `name value` lines instead. Not on a terminal, every
   * cell is shown whole.
   */
  async table(head: string[], rows: (string | number)[][], columns: readonly ColumnSpec[] = []): Promise<string> {
    const cells = rows.map((row) => row.map(String));
    const natural = head.map((name, index) =>
      cells.reduce((widest, row) => Math.max(widest, visibleWidth(row[index] ?? '')), visibleWidth(name)),
    );
    // Each column takes its content, one space each side and a border; plus the border on the right.
    // A column shrinks no narrower than its longest word (4 at least) unless its spec says otherwise.
    const specs = head.map((name, index) => ({
      min: Math.max(4, longestWord([name, ...cells.map((row) => row[index] ?? '')])),
      ...columns[index],
    }));
    const widths = this.width === undefined ? natural : fitColumns(natural, specs, this.width, 3 * head.length + 1);
    if (widths === undefined) return this.listRows(head, cells, this.width as number);
    const fitted = (text: string, index: number, fit?: ColumnFit) =>
      widths === natural ? text : fitCell(text, widths[index] as number, fit);
    const { default: Table } = await import('cli-table3');
    const draw = (body: string[][], colWidths?: number[], withHead = true): string => {
      const table = new Table({
        ...(withHead ? { head: head.map((name, index) => this.color.bold(fitted(name, index))) } : {}),
        style: { head: [], border: [] },
        // No rule between body rows: long check lists stay readable at a glance.
        chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
        ...(colWidths === undefined ? {} : { colWidths }),
      });
      for (const row of body) table.push(row.map((cell, index) => fitted(cell, index, columns[index]?.fit)));
      return table.toString();
    };
    const fixed = widths === natural ? undefined : widths.map((width) => width + 2);
    if (cells.length <= TABLE_CHUNK_ROWS) return draw(cells, fixed);
    return drawInChunks(cells, fixed, draw);
  }

  /** A table too wide for the terminal, as one block of `name  value` lines per row. */
  private listRows(head: string[], rows: string[][], width: number): string {
    const nameWidth = Math.max(...head.map((name) => visibleWidth(name)));
    const blocks = rows.map((row) =>
      head
        .flatMap((name, index) => {
          const label = this.color.bold(name.padEnd(nameWidth));
          return wrap(`${label}  ${row[index] ?? ''}`, width, { indent: ' '.repeat(nameWidth + 2) });
        })
        .join('\n'),
    );
    return blocks.join('\n\n');
  }
}

/**
 * cli-table3 lays a table out in time quadratic in its rows (each cell looks for row spans in every row): 20 000
 * rows took minutes. A longer table is drawn in chunks of TABLE_CHUNK_ROWS rows with the same column widths, the
 * borders where they meet removed: the same text as one table, in linear time. The widths are cli-table3's own
 * (read off each chunk's top border), so no cell is measured differently, and none is cut.
 */
const TABLE_CHUNK_ROWS = 200;

function drawInChunks(
  cells: string[][],
  fixed: number[] | undefined,
  draw: (body: string[][], colWidths?: number[], withHead?: boolean) => string,
): string {
  const chunks: string[][][] = [];
  for (let start = 0; start < cells.length; start += TABLE_CHUNK_ROWS)
    chunks.push(cells.slice(start, start + TABLE_CHUNK_ROWS));
  let widths = fixed;
  if (widths === undefined) {
    const measured = chunks.map((chunk, index) => borderWidths(draw(chunk, undefined, index === 0)));
    widths = measured[0]?.map((_, column) => Math.max(...measured.map((chunkWidths) => chunkWidths[column] ?? 0)));
  }
  const lines = chunks.map((chunk, index) => draw(chunk, widths, index === 0).split('\n'));
  return lines
    .map((chunk, index) => chunk.slice(index === 0 ? 0 : 1, index === lines.length - 1 ? undefined : -1).join('\n'))
    .join('\n');
}

/** The column widths (padding included) of a drawn table, from its top border `┌───┬──┐`. */
function borderWidths(drawn: string): number[] {
  const top = drawn.slice(0, drawn.indexOf('\n'));
  return top
    .slice(1, -1)
    .split('┬')
    .map((segment) => segment.length);
}

/** `text` wrapped to `width` columns, or as is when the stream is not a terminal (no width). */
function wrapTo(width: number | undefined, text: string, indent: string): string {
  return width === undefined ? text : wrap(text, width, { indent }).join('\n');
}

function longestWord(texts: readonly string[]): number {
  return Math.max(0, ...texts.flatMap((text) => text.split(/\s+/)).map((word) => visibleWidth(word)));
}

/** A terminal's width; 80 when it reports none (some CI pseudo-terminals); undefined when not a terminal. */
function terminalWidth(stream: Io['stdout']): number | undefined {
  if (stream.isTTY !== true) return undefined;
  const columns = stream.columns ?? 0;
  return columns > 0 ? columns : 80;
}

/**
 * The colour level of one stream (STYLE.md): off for --json, --no-color, NO_COLOR (any non-empty value) and
 * FORCE_COLOR=0/false; on for FORCE_COLOR=1/2/3/true even when piped; otherwise on only for a terminal.
 */
export function colorLevel(
  env: NodeJS.ProcessEnv,
  isTTY: boolean,
  options: Pick<OutputOptions, 'json' | 'color'>,
): 0 | 1 | 2 | 3 {
  if (options.json || options.color === false) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force === '0' || force === 'false') return 0;
  if (force === '2' || force === '3') return Number(force) as 2 | 3;
  if (force !== undefined && force !== '') return 1;
  if (!isTTY || env.TERM === 'dumb') return 0;
  return 1;
}
