import { loadPalette, plainPalette, type Palette } from './palette.js';
import type { Io } from '../io.js';

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
 */
export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly debug: boolean;
  /** Colour for stdout. */
  readonly color: Palette;
  /** Colour for stderr (it may be a TTY when stdout is piped, and vice versa). */
  readonly errColor: Palette;
  private readonly io: Io;

  /** Without palettes, output is plain; `Output.create` loads colour when a stream will show it. */
  constructor(io: Io, options: OutputOptions, palettes: { stdout: Palette; stderr: Palette } = { stdout: plainPalette, stderr: plainPalette }) {
    this.io = io;
    this.json = options.json;
    this.quiet = options.quiet;
    this.debug = options.debug;
    this.color = palettes.stdout;
    this.errColor = palettes.stderr;
  }

  static async create(io: Io, options: OutputOptions): Promise<Output> {
    // chalk does not read NO_COLOR itself, so the level is decided here (STYLE.md).
    const [stdout, stderr] = await Promise.all([
      loadPalette(colorLevel(io, io.stdout.isTTY === true, options)),
      loadPalette(colorLevel(io, io.stderr.isTTY === true, options)),
    ]);
    return new Output(io, options, { stdout, stderr });
  }

  get stdoutIsTTY(): boolean {
    return this.io.stdout.isTTY === true;
  }

  get stderrIsTTY(): boolean {
    return this.io.stderr.isTTY === true;
  }

  /** A line of the command's result, on stdout. Ignored in `--json` mode, where `printJson` is the result. */
  result(line = ''): void {
    if (!this.json) this.io.stdout.write(line + '\n');
  }

  /** Raw result bytes on stdout, exactly as given (no newline added). */
  resultRaw(text: string | Uint8Array): void {
    this.io.stdout.write(text);
  }

  /** The one JSON document (or one NDJSON line) of `--json` mode. */
  printJson(document: unknown): void {
    this.io.stdout.write(JSON.stringify(document) + '\n');
  }

  /** Progress and context on stderr; silenced by `--quiet`. */
  info(line: string): void {
    if (!this.quiet) this.io.stderr.write(line + '\n');
  }

  /** Something the user should know about their input; shown even with `--quiet`. */
  note(line: string): void {
    this.io.stderr.write(`${this.errColor.cyan('note:')} ${line}\n`);
  }

  warn(line: string): void {
    this.io.stderr.write(`${this.errColor.yellow('warning:')} ${line}\n`);
  }

  /** `error:` then `hint:`, on stderr (or inside the JSON document in `--json` mode; see main.ts). */
  error(message: string, hint?: string): void {
    this.io.stderr.write(`${this.errColor.red('error:')} ${printable(message)}\n`);
    if (hint) this.io.stderr.write(`${this.errColor.dim('hint:')} ${printable(hint)}\n`);
  }

  debugLine(line: string): void {
    if (this.debug) this.io.stderr.write(`${this.errColor.dim('debug:')} ${line}\n`);
  }

  /** A spinner on stderr, only when stderr is a TTY and neither `--json` nor `--quiet` is set. */
  async spinner(text: string): Promise<Spinner> {
    if (!this.stderrIsTTY || this.json || this.quiet) return silentSpinner;
    // A terminal that reports no width (some `script` or CI pseudo-terminals) sends ora's line count to Infinity.
    if (!((this.io.stderr.columns ?? 0) > 0)) return silentSpinner;
    const { default: ora } = await import('ora');
    const spinner = ora({ text, stream: this.io.stderr, color: 'cyan' }).start();
    return {
      update: (next) => {
        spinner.text = next;
      },
      succeed: (done) => spinner.succeed(done),
      fail: (done) => spinner.fail(done),
      stop: () => spinner.stop(),
    };
  }

  /** Renders rows as a table (cli-table3, loaded only when a table is drawn). */
  async table(head: string[], rows: (string | number)[][]): Promise<string> {
    const { default: Table } = await import('cli-table3');
    const table = new Table({
      head: head.map((h) => this.color.bold(h)),
      style: { head: [], border: [] },
      // No rule between body rows: long check lists stay readable at a glance.
      chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    });
    for (const row of rows) table.push(row.map(String));
    return table.toString();
  }
}

function colorLevel(io: Io, isTTY: boolean, options: OutputOptions): 0 | 1 | 2 | 3 {
  if (options.json || options.color === false) return 0;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return 0;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return 1;
  if (!isTTY || io.env.TERM === 'dumb') return 0;
  return 1;
}

/** Control characters quoted from a file or an answer (a binary file's NUL bytes, ESC) are shown as \xNN, not sent to the terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
