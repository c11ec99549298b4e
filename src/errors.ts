/**
 * Exceptions are for what stops a command (bad usage, missing secret, unreadable file, unreachable target).
 * Verdicts (bad signature, invalid document, failed check) are returned values, never thrown.
 * `src/main.ts` is the one place that maps these to exit codes.
 */

export const ExitCode = {
  ok: 0,
  negative: 1,
  usage: 2,
  delivery: 3,
  internal: 4,
  /** Ctrl-C: 128 + SIGINT's number, as a shell reports a command it interrupted. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

type ErrorKind = 'usage' | 'delivery' | 'internal';

const exitCodeOfKind: Record<ErrorKind, ExitCode> = {
  usage: ExitCode.usage,
  delivery: ExitCode.delivery,
  internal: ExitCode.internal,
};

/** What a domain tells of an error beside its code, for the command to word the hint with (no flag names). */
export type ErrorData = Readonly<Record<string, string | number | boolean | undefined>>;

interface CaiErrorOptions {
  /** Stable machine-readable code, shown in `--json` output, e.g. `missing_secret`. */
  code: string;
  /**
   * The next step for the user, printed as `hint:`. A domain leaves it out where the step is a flag to pass: the
   * command's words for the code give it (useWords), from `data`.
   */
  hint?: string;
  data?: ErrorData;
  kind?: ErrorKind;
  cause?: unknown;
}

/**
 * The words of the interface in use, by key: the hints of coded errors (by code), and the names of its options
 * (`option:config`). The CLI's are its flags (src/commands/common/hints.ts and each command's hints.ts); a domain names
 * no flag, it asks here. A word returns undefined to leave the key to the next table.
 */
export type Words = Readonly<Record<string, (data: ErrorData) => string | undefined>>;

let words: readonly Words[] = [];

/** The tables of words in use from now on, the first that answers winning. */
export function useWords(...tables: Words[]): void {
  words = tables;
}

function wordOf(key: string, data: ErrorData): string | undefined {
  for (const table of words) {
    const word = table[key]?.(data);
    if (word !== undefined) return word;
  }
  return undefined;
}

/** What a coded hint says when no table words it (a library caller's): the message is all there is. */
const UNWORDED_HINT = 'see the message above';

/**
 * The hint of a code in the words in use: for errors, and for the codes a domain returns in its results (a
 * delivery's failure, a doctor's check). `fallback` when no table words it.
 */
export function hintOf(code: string, data: ErrorData = {}, fallback = UNWORDED_HINT): string {
  return wordOf(code, data) ?? fallback;
}

/** How the interface in use names one of its options (`--config` on the command line; `the config option` else). */
export function optionName(option: string): string {
  return wordOf(`option:${option}`, {}) ?? `the ${option} option`;
}

export class CaiError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly data: ErrorData;
  readonly #hint: string | undefined;

  constructor(message: string, options: CaiErrorOptions) {
    super(message, { cause: options.cause });
    this.name = 'CaiError';
    this.code = options.code;
    this.#hint = options.hint;
    this.data = options.data ?? {};
    this.kind = options.kind ?? 'usage';
  }

  /** The hint given, else the words in use for the code and data (read when printed, not when thrown). */
  get hint(): string {
    return this.#hint ?? hintOf(this.code, this.data);
  }

  get exitCode(): ExitCode {
    return exitCodeOfKind[this.kind];
  }
}

export function usageError(code: string, message: string, hint: string, cause?: unknown): CaiError {
  return new CaiError(message, { code, hint, kind: 'usage', cause });
}

export function deliveryError(code: string, message: string, hint: string, cause?: unknown): CaiError {
  return new CaiError(message, { code, hint, kind: 'delivery', cause });
}

/** A domain's error whose hint is a step in the interface's words (a flag to pass): a code and data, no hint. */
export function codedError(
  kind: ErrorKind,
  code: string,
  message: string,
  data: ErrorData = {},
  cause?: unknown,
): CaiError {
  return new CaiError(message, { code, kind, data, cause });
}

/** Node's errno-style errors carry a `code` string; this narrows `unknown` without `any`. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
