/**
 * The one masking of cai's output: every secret resolved in this process (src/secrets/known.ts) and
 * every password inside a URL (`https://user:pass@host/…` → `https://user:***@host/…`), in every line cai prints,
 * `--json` included (Output applies it to all it writes), in error messages, reproduction commands and reports.
 * Pure string work, no imports beyond the registry of secrets: the HTML writers use it too.
 */
import { knownSecrets, redactSecrets } from './known.js';

/**
 * `scheme://user:password@`: the user is kept (it names the account), the password replaced. Neither part spans
 * whitespace, a quote (a JSON string's or a shell word's end), `/`, `?`, `#` or `@`, so the match never leaves the URL.
 * Groups: 1 the part up to the user, 2 the password; a reproduction script replaces the password with a variable.
 */
export const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s"'`<>/?#@:]*):([^\s"'`<>/?#@]+)@/gi;

export const MASK = '***';

/** Every `user:password@` of a URL in `text`, with the password as `***`. */
export function maskUrlPasswords(text: string): string {
  return text.includes('://') ? text.replace(URL_PASSWORD, `$1:${MASK}@`) : text;
}

/** Known secrets (as they are, and as they appear inside JSON strings) as `[redacted]`, and URL passwords as `***`. */
export function maskSecrets(text: string): string {
  const secrets = knownSecrets();
  const forms =
    secrets.length === 0
      ? secrets
      : secrets.flatMap((secret) => {
          const inJson = JSON.stringify(secret).slice(1, -1);
          return inJson === secret ? [secret] : [secret, inJson];
        });
  return maskUrlPasswords(forms.length === 0 ? text : redactSecrets(text, forms));
}
