/**
 * How a receiver check describes a request: a valid, correctly signed request unless the recipe changes one thing
 * (the signature, the timestamp, the identity header, the framing). The session builds it afresh at each send, so
 * a request sent again after a 429 is signed again.
 */

export type SignatureRecipe =
  | { kind: 'valid' }
  | { kind: 'none' }
  | { kind: 'literal'; value: string }
  | { kind: 'wrong-secret'; secret: string }
  | { kind: 'other-body'; body: Buffer }
  /** Valid signature computed over another timestamp than the one sent. */
  | { kind: 'other-timestamp'; timestamp: number }
  /** Valid signature over the timestamp's number as plain digits, whatever prefix the header carries (§5.2, §5.4). */
  | { kind: 'bare-timestamp' }
  | { kind: 'truncated' };

export type TimestampRecipe =
  /** Now on the target's clock; `prefix` is written before the digits (e.g. a leading zero). */
  | { kind: 'now'; shiftSeconds?: number; prefix?: string }
  | { kind: 'milliseconds' }
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
}

/** The request as it went out: enough to re-create it later with a fresh signature. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  recipe: RequestRecipe;
}
