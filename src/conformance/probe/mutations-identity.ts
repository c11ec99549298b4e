/**
 * The sender's identity, by its parts (§5.6, §4.1): the code in X-CAI-Provider (B) or the platform id in X-CAI-Source
 * (A) is compared exactly. Another code, the right one in another case, with a character more or one less: each is
 * not the sender the credential was issued to. (White space around a header value is not sent: HTTP strips it.)
 */
import { randomBytes } from 'node:crypto';
import { compact } from './bodies.js';
import type { Intent, Mutation } from './mutations.js';
import type { ProbeScope } from './scope.js';

/** The code in another case: upper case, or lower case when it has no lower-case letter; undefined without letters. */
function otherCase(code: string): string | undefined {
  const upper = code.toUpperCase();
  if (upper !== code) return upper;
  const lower = code.toLowerCase();
  return lower !== code ? lower : undefined;
}

const VARIANTS: readonly [string, (code: string) => string | undefined][] = [
  ['an unknown code', (code) => `not-${code}-${randomBytes(3).toString('hex')}`],
  ['the code in another case', otherCase],
  ['the code with a character more', (code) => `${code}x`],
  ['the code without its last character', (code) => (code.length > 1 ? code.slice(0, -1) : undefined)],
];

/** The identity header set to each variant of the run's own identity (`--provider`, `--source`). */
export function identityVariants(header: string, clauses: readonly string[], intent: Intent): Mutation[] {
  return VARIANTS.map(([what, variant]) => {
    const value = (scope: ProbeScope) => variant(scope.session.config.identity);
    return {
      name: `${header}: ${what}`,
      clauses,
      intent,
      request: ({ scope, doc }) => ({ body: compact(doc), identity: { kind: 'value', value: value(scope) ?? '' } }),
      unjudgeable: (scope) =>
        value(scope) === undefined
          ? `the code ${JSON.stringify(scope.session.config.identity)} has no such variant`
          : undefined,
    };
  });
}
