/**
 * How a receiver check describes a request: a valid, correctly signed request unless the recipe changes one thing
 * (the signature, the timestamp, the identity header, the framing). The session builds it afresh at each send, so
 * a request sent again after a 429 is signed again.
 */

/**
 * Another spelling of the valid signature header (§5.3: `sha256=` and the lowercase hex of the HMAC), the MAC itself
 * right: what a verifier that compares the header exactly refuses.
 */
export type SignatureSpelling =
  | 'upper-case-hex'
  | 'no-prefix'
  | 'upper-case-prefix'
  | 'sha1-prefix'
  | 'base64'
  | 'one-digit-more'
  /** Two X-CAI-Signature header lines: a wrong digest first, then the valid one. */
  | 'two-headers'
  /** One header holding a wrong digest and the valid one, comma-separated (how a proxy joins two lines). */
  | 'comma-joined';

/** The valid digest with some of it wrong (§5.3, §5.5: compared in full): what a verifier comparing a part accepts. */
export type DigestDamage =
  /** One hex digit changed: the last, the first, one in the middle (a comparison of a prefix, a suffix, a half). */
  | 'last-digit'
  | 'first-digit'
  | 'middle-digit'
  /** The first 32 hex digits only (a truncated MAC). */
  | 'first-half';

/**
 * The HMAC made with the right secret over another string than §5.2's `timestamp "." raw_body`: one part of it
 * removed, replaced or moved.
 */
export type SignedStringChange = 'no-timestamp' | 'no-dot' | 'no-body' | 'body-only' | 'colon-for-dot' | 'body-first';

export type SignatureRecipe =
  | { kind: 'valid' }
  /** Valid, made with the run's secret at this place (§5.9: any secret of a rotation verifies). */
  | { kind: 'rotation'; index: number }
  | { kind: 'none' }
  | { kind: 'literal'; value: string }
  | { kind: 'wrong-secret'; secret: string }
  | { kind: 'other-body'; body: Buffer }
  /** Valid signature computed over another timestamp than the one sent. */
  | { kind: 'other-timestamp'; timestamp: number }
  /** Valid signature over the timestamp's number as plain digits, whatever prefix the header carries (§5.2, §5.4). */
  | { kind: 'bare-timestamp' }
  | { kind: 'truncated' }
  | { kind: 'respelled'; spelling: SignatureSpelling }
  | { kind: 'damaged'; damage: DigestDamage }
  | { kind: 'other-string'; change: SignedStringChange };

/** Another way to write the integer of unix seconds (§4.1, §4.2, §5.4), signed as sent. */
export type TimestampNotation = 'plus-sign' | 'decimal' | 'exponent' | 'hex';

export type TimestampRecipe =
  /** Now on the target's clock; `prefix` is written before the digits (e.g. a leading zero). */
  | { kind: 'now'; shiftSeconds?: number; prefix?: string }
  /** Now, written in another notation than plain digits. */
  | { kind: 'written'; notation: TimestampNotation }
  | { kind: 'milliseconds' }
  /** Two header lines: now shifted by `shiftSeconds`, which the signature covers, then now. */
  | { kind: 'stale-and-fresh'; shiftSeconds: number }
  | { kind: 'none' }
  | { kind: 'literal'; value: string };

export interface RequestRecipe {
  body: Buffer;
  signature?: SignatureRecipe;
  timestamp?: TimestampRecipe;
  /** The identity header (X-CAI-Provider on B, X-CAI-Source on A): default, omitted, or another value. */
  identity?: { kind: 'default' } | { kind: 'none' } | { kind: 'value'; value: string };
  /** Send from this local address (an unregistered origin, §5.7). */
  sourceAddress?: string;
  /** Do not honour 429 (the rate-cap check itself). */
  raw429?: boolean;
  /** The Content-Type sent (default `application/json`, §2). */
  contentType?: string;
  /** Send the body with chunked transfer encoding, without Content-Length. */
  chunked?: boolean;
  /** Where its two chunks meet: inside a character of several bytes (the default, where there is one), or between two. */
  chunkCut?: 'between-characters';
  /** Send `Expect: 100-continue` with Content-Length, and the body only after the interim answer (RFC 9110 §10.1.1). */
  expectContinue?: boolean;
  /** Further headers, e.g. a `Date` the window must not be measured from (§5.4). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Build and send at this fraction of a second of cai's clock (0 ≤ f < 1): a probe one second from the edge of the
   * §5.5 window lands on the side it means whichever way the target rounds its own clock (probe/cases.ts).
   */
  atSecondFraction?: number;
}

/** The request as it went out: enough to re-create it later with a fresh signature. */
export interface SentRequest {
  url: string;
  /** As reports show them: a header sent on several lines is shown once, its values joined with `, `. */
  headers: Record<string, string>;
  /** Headers sent on several lines (the values in order), when any was. */
  lines?: Readonly<Record<string, readonly string[]>>;
  body: Buffer;
  recipe: RequestRecipe;
  /** cai's wall clock (ms) when it was built and signed: the receiver read it at this moment or later. */
  sentAtMs: number;
}

/**
 * Whether a shell line can send the recipe again: `cai sign` and curl rebuild a fresh signature, timestamp and
 * headers for the recipes of the first checks; the mutations of a signature or timestamp's spelling, a second
 * header line, `Expect` and the timing within a second are reproduced by running the check again.
 */
export function rebuiltBySign(recipe: RequestRecipe): boolean {
  const signature = recipe.signature?.kind;
  return (
    signature !== 'respelled' &&
    signature !== 'rotation' &&
    signature !== 'damaged' &&
    signature !== 'other-string' &&
    recipe.timestamp?.kind !== 'written' &&
    !recipe.expectContinue &&
    recipe.headers === undefined &&
    recipe.atSecondFraction === undefined
  );
}
