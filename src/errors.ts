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
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

type ErrorKind = 'usage' | 'delivery' | 'internal';

const exitCodeOfKind: Record<ErrorKind, ExitCode> = {
  usage: ExitCode.usage,
  delivery: ExitCode.delivery,
  internal: ExitCode.internal,
};

interface CaiErrorOptions {
  /** Stable machine-readable code, shown in `--json` output, e.g. `missing_secret`. */
  code: string;
  /** The next step for the user, printed as `hint:`. */
  hint: string;
  kind?: ErrorKind;
  cause?: unknown;
}

export class CaiError extends Error {
  readonly code: string;
  readonly hint: string;
  readonly kind: ErrorKind;

  constructor(message: string, options: CaiErrorOptions) {
    super(message, { cause: options.cause });
    this.name = 'CaiError';
    this.code = options.code;
    this.hint = options.hint;
    this.kind = options.kind ?? 'usage';
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
