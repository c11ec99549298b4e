/**
 * The signature's rules, by their parts (§5.2, §5.3): the signed string is the timestamp, one literal dot and the raw
 * body; the header is `sha256=` and the 64 lowercase hex digits of the HMAC, compared in full.
 */
import { changedBy, type Mutation } from './mutations.js';
import type { DigestDamage, SignatureRecipe, SignatureSpelling, SignedStringChange } from './recipe.js';

/**
 * §5.2: each part of the signed string removed, replaced or moved, the HMAC made with the right secret over what is
 * left: a verifier that builds the string otherwise (no dot, the body alone, another separator) accepts one.
 */
const STRING_CHANGES: readonly [SignedStringChange, string][] = [
  ['no-timestamp', 'the HMAC over "." + body (the timestamp left out)'],
  ['no-dot', 'the HMAC over timestamp + body (the dot left out)'],
  ['no-body', 'the HMAC over timestamp + "." (the body left out)'],
  ['body-only', 'the HMAC over the body alone'],
  ['colon-for-dot', 'the HMAC over timestamp + ":" + body (another separator)'],
  ['body-first', 'the HMAC over body + "." + timestamp (the parts swapped)'],
];

export const SIGNED_STRING: readonly Mutation[] = changedBy(STRING_CHANGES, ['§5.2-1'], 'authentication', (change) => ({
  signature: { kind: 'other-string', change },
}));

/**
 * §5.3, §5.5: the digest compared in full. One hex digit wrong at its end, its start or its middle: a verifier that
 * compares a prefix, a suffix or a half accepts one.
 */
const DAMAGES: readonly [DigestDamage, string][] = [
  ['last-digit', 'the valid digest with its last hex digit changed'],
  ['first-digit', 'the valid digest with its first hex digit changed'],
  ['middle-digit', 'the valid digest with its 33rd hex digit changed'],
];

export const DIGEST: readonly Mutation[] = changedBy(DAMAGES, ['§5.3-1'], 'authentication', (damage) => ({
  signature: { kind: 'damaged', damage },
}));

/** §5.3: the digest cut short (a truncated MAC is not the MAC). */
export const DIGEST_LENGTH: readonly Mutation[] = changedBy<SignatureRecipe>(
  [
    [{ kind: 'truncated' }, 'the valid digest cut to 63 hex digits'],
    [{ kind: 'damaged', damage: 'first-half' }, 'the valid digest cut to its first 32 hex digits'],
  ],
  ['§5.3-1'],
  'header',
  (signature) => ({ signature }),
);

/**
 * §5.3: the header is `sha256=` then lowercase hex, one value. The right MAC spelled otherwise: the prefix left out,
 * in upper case or naming another algorithm; the hex in upper case; base64; a digit too many; two values, the first
 * wrong (two header lines, or one line joined with a comma). A verifier that compares the header as §5.3 writes it
 * refuses each; one that decodes, folds or splits it first does not.
 */
const SPELLINGS: readonly [SignatureSpelling, string][] = [
  ['upper-case-hex', 'the hex digits in upper case'],
  ['no-prefix', 'the hex digits without sha256='],
  ['upper-case-prefix', 'the prefix in upper case (SHA256=)'],
  ['sha1-prefix', 'the prefix of another algorithm (sha1=)'],
  ['base64', 'the digest in base64'],
  ['one-digit-more', 'a 65th hex digit after the valid 64'],
  ['two-headers', 'two X-CAI-Signature lines, a wrong digest first, then the valid one'],
  ['comma-joined', 'a wrong digest and the valid one in one header, comma-separated'],
];

export const SIGNATURE_SPELLING: readonly Mutation[] = changedBy(SPELLINGS, ['§5.3-1'], 'header', (spelling) => ({
  signature: { kind: 'respelled', spelling },
}));
