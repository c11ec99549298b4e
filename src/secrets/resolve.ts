import { CaiError, errnoCode, usageError } from '../errors.js';
import { readFileCapped } from '../input.js';

/** Where one secret comes from, in the order the user gave it on the command line. */
export interface SecretSource {
  kind: 'env' | 'file' | 'value';
  /** Variable name, file path, or the literal value (never printed). */
  ref: string;
  /** Order of appearance across all secret flags of a command, so `--secret-file A --secret-env B` keeps A first. */
  order: number;
}

export interface Secret {
  value: string;
  /** Human description of where it came from, safe to print: `--secret-env CAI_NEW`, `--secret-file s.txt`, `--secret #2`. */
  label: string;
}

interface SecretFlagNames {
  /** `secret`, `callback-secret` or `other-secret`. */
  prefix: string;
  /** Environment variable used when no flag is given, e.g. `CAI_SECRET`. */
  defaultEnv?: string;
}

const registeredForRedaction = new Set<string>();

/** Every secret resolved in this process; error printing scrubs them from messages and stack traces. */
export function knownSecrets(): readonly string[] {
  return [...registeredForRedaction];
}

/**
 * Secrets shorter than this are not scrubbed from text: a 1-letter test secret would otherwise mangle every
 * message. Messages never interpolate secret values in the first place; this scrub is a second line of defence.
 */
const MIN_REDACTED_LENGTH = 6;

/** Replaces every known secret inside `text` with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[] = knownSecrets()): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_REDACTED_LENGTH) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * Resolves secret flags to values. Several secrets are a rotation overlap (§5.9): signing uses the first,
 * verification accepts any. Missing or empty secrets are usage errors that name the flags.
 */
export function resolveSecrets(
  sources: readonly SecretSource[],
  env: NodeJS.ProcessEnv,
  names: SecretFlagNames,
  cwd = process.cwd(),
): Secret[] {
  const ordered = [...sources].sort((a, b) => a.order - b.order);
  const hint = secretHint(names);
  if (ordered.length === 0) {
    const fallback = names.defaultEnv ? env[names.defaultEnv] : undefined;
    if (names.defaultEnv && fallback !== undefined && fallback !== '') {
      return [remember({ value: fallback, label: names.defaultEnv })];
    }
    const missing = names.defaultEnv ? `no ${names.prefix} given and ${names.defaultEnv} is not set` : `no ${names.prefix} given`;
    throw usageError('missing_secret', missing, hint);
  }
  let valueCount = 0;
  return ordered.map((source) => {
    switch (source.kind) {
      case 'env': {
        const value = env[source.ref];
        const label = `--${names.prefix}-env ${source.ref}`;
        if (value === undefined) throw usageError('missing_secret', `environment variable ${source.ref} (from ${label}) is not set`, hint);
        if (value === '') throw usageError('missing_secret', `environment variable ${source.ref} (from ${label}) is empty`, hint);
        return remember({ value, label });
      }
      case 'file': {
        const label = `--${names.prefix}-file ${source.ref}`;
        const value = readSecretFile(source.ref, label, cwd);
        if (value === '') throw usageError('missing_secret', `secret file ${source.ref} is empty`, hint);
        return remember({ value, label });
      }
      case 'value': {
        valueCount += 1;
        if (source.ref === '') throw usageError('missing_secret', `--${names.prefix} was given an empty value`, hint);
        return remember({ value: source.ref, label: `--${names.prefix} #${valueCount}` });
      }
    }
  });
}

function readSecretFile(path: string, label: string, cwd: string): string {
  let content: string;
  try {
    // At most INPUT_CAPS.secret bytes: a large file given by mistake is refused, and never echoed.
    content = readFileCapped(path.startsWith('/') ? path : `${cwd}/${path}`, 'secret', `${path} (from ${label})`, 'secret').toString('utf8');
  } catch (error) {
    if (error instanceof CaiError && error.code === 'input_too_large') throw error;
    const cause = error instanceof CaiError ? error.cause : error;
    const why = errnoCode(cause) === 'ENOENT' ? 'does not exist' : errnoCode(cause) === 'EACCES' ? 'is not readable' : errnoCode(cause) === 'EISDIR' ? 'is a directory' : 'cannot be read';
    throw usageError('unreadable_file', `secret file ${path} (from ${label}) ${why}`, 'check the path given to the secret file option', cause);
  }
  // One trailing newline is removed (editors add one); anything else is kept exactly.
  if (content.endsWith('\r\n')) return content.slice(0, -2);
  if (content.endsWith('\n')) return content.slice(0, -1);
  return content;
}

function remember(secret: Secret): Secret {
  registeredForRedaction.add(secret.value);
  return secret;
}

function secretHint(names: SecretFlagNames): string {
  const flags = `--${names.prefix}-env NAME, --${names.prefix}-file PATH or --${names.prefix} VALUE`;
  return names.defaultEnv ? `pass ${flags}, or set ${names.defaultEnv}` : `pass ${flags}`;
}

/** True when the secret has whitespace at either end: usually a copy-paste slip, but it is used exactly as given. */
export function hasSurroundingWhitespace(secret: string): boolean {
  return secret.trim() !== secret;
}
