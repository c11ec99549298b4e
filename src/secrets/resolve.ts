import { formatCap, INPUT_CAPS } from '../bounds.js';
import { CaiError, codedError, errnoCode, usageError } from '../errors.js';
import { readSecretText, whyUnreadable } from '../input.js';
import { rememberSecret } from './known.js';

export { knownSecrets, redactSecrets } from './known.js';

/** Where one secret comes from, in the order the user gave it on the command line. */
export interface SecretSource {
  kind: 'env' | 'file' | 'value';
  /**
   * How the user named sources of this kind, for the labels and messages: the CLI's `--secret-env`,
   * `--secret-file`, `--secret`; `environment variable`, `file`, `value` when not given.
   */
  named?: string;
  /** Variable name, file path, or the literal value (never printed). */
  ref: string;
  /** Order of appearance across all secret flags of a command, so `--secret-file A --secret-env B` keeps A first. */
  order: number;
}

export interface Secret {
  value: string;
  /** Human description of where it came from, safe to print: `--secret-env CAI_NEW`, `--secret-file s.txt`, or `--secret` with its place among the values given. */
  label: string;
}

interface SecretFlagNames {
  /** What the secret is, as its options name it: `secret`, `callback-secret`, `other-secret`, `test-secret`. */
  prefix: string;
  /** Environment variable used when no flag is given, e.g. `CAI_SECRET`. */
  defaultEnv?: string;
}

/**
 * Resolves secret sources to values. Several secrets are a rotation overlap (§5.9): signing uses the first,
 * verification accepts any. Missing or empty secrets are usage errors that name the sources as the user named them.
 */
export function resolveSecrets(
  sources: readonly SecretSource[],
  env: NodeJS.ProcessEnv,
  names: SecretFlagNames,
  cwd = process.cwd(),
): Secret[] {
  const ordered = [...sources].sort((a, b) => a.order - b.order);
  if (ordered.length === 0) {
    const fallback = names.defaultEnv ? env[names.defaultEnv] : undefined;
    if (names.defaultEnv && fallback !== undefined && fallback !== '') {
      return [
        remember({ value: bounded(fallback, `environment variable ${names.defaultEnv}`), label: names.defaultEnv }),
      ];
    }
    const missing = names.defaultEnv
      ? `no ${names.prefix} given and ${names.defaultEnv} is ${fallback === '' ? 'empty' : 'not set'}`
      : `no ${names.prefix} given`;
    throw missingSecret(missing, names);
  }
  let valueCount = 0;
  return ordered.map((source) => {
    switch (source.kind) {
      case 'env': {
        const value = env[source.ref];
        const label = `${source.named ?? 'environment variable'} ${source.ref}`;
        const where = `environment variable ${source.ref} (from ${label})`;
        if (value === undefined || value === '')
          throw missingSecret(`${where} ${value === undefined ? 'is not set' : 'is empty'}`, names);
        return remember({ value: bounded(value, where), label });
      }
      case 'file': {
        const label = `${source.named ?? 'file'} ${source.ref}`;
        const value = readSecretFile(source.ref, label, cwd);
        if (value === '') throw missingSecret(`secret file ${source.ref} is empty`, names);
        return remember({ value, label });
      }
      case 'value': {
        valueCount += 1;
        const named = source.named ?? 'value';
        if (source.ref === '') throw missingSecret(`${named} was given an empty value`, names);
        return remember({ value: bounded(source.ref, `${named} #${valueCount}`), label: `${named} #${valueCount}` });
      }
    }
  });
}

/** The errors of the secret file reader that say what is wrong in their own words. */
const OWN_WORDS = new Set(['input_too_large', 'silent_pipe', 'not_utf8']);

function readSecretFile(path: string, label: string, cwd: string): string {
  if (path === '')
    throw usageError(
      'empty_path',
      `the secret file's path is empty (from ${label})`,
      'give the path of the file that holds the secret',
    );
  let content: string;
  try {
    // At most INPUT_CAPS.secret bytes: a large file given by mistake is refused, and never echoed.
    content = readSecretText(path.startsWith('/') ? path : `${cwd}/${path}`, `${path} (from ${label})`);
  } catch (error) {
    if (error instanceof CaiError && OWN_WORDS.has(error.code)) throw error;
    const cause = error instanceof CaiError ? error.cause : error;
    const why = errnoCode(cause) === 'EACCES' ? 'is not readable' : whyUnreadable(cause);
    throw usageError(
      'unreadable_file',
      `secret file ${path} (from ${label}) ${why}`,
      'check the path given to the secret file option',
      cause,
    );
  }
  // One trailing newline is removed (editors add one); anything else is kept exactly.
  if (content.endsWith('\r\n')) return content.slice(0, -2);
  if (content.endsWith('\n')) return content.slice(0, -1);
  return content;
}

/**
 * A secret from a variable or a value has the cap of a secret file (INPUT_CAPS.secret), bytes counted as UTF-8: a
 * larger one is the wrong variable, refused and never echoed.
 */
function bounded(value: string, where: string): string {
  if (Buffer.byteLength(value, 'utf8') <= INPUT_CAPS.secret.bytes) return value;
  throw usageError(
    'input_too_large',
    `${where} is over the ${formatCap(INPUT_CAPS.secret.bytes)} cap for a secret; not used`,
    'a secret is one line: check that this is the secret you meant (caps: docs/limits.md)',
  );
}

function remember(secret: Secret): Secret {
  rememberSecret(secret.value);
  return secret;
}

/** No usable secret: the command words the hint from which secret it is and its default variable. */
function missingSecret(message: string, names: SecretFlagNames): CaiError {
  return codedError('usage', 'missing_secret', message, { secret: names.prefix, defaultEnv: names.defaultEnv });
}

/** True when the secret has whitespace at either end: usually a copy-paste slip, but it is used exactly as given. */
export function hasSurroundingWhitespace(secret: string): boolean {
  return secret.trim() !== secret;
}
