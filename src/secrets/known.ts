/**
 * The secrets resolved in this process, so that every line cai prints, every error and every report can be scrubbed
 * of them (mask.ts). No imports: the output of every command loads it.
 */
const registered = new Set<string>();

/** Every secret resolved in this process; error printing scrubs them from messages and stack traces. */
export function knownSecrets(): readonly string[] {
  return [...registered];
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

/** Remembers a resolved secret, to scrub it from all that is printed from now on. */
export function rememberSecret(value: string): void {
  registered.add(value);
}
