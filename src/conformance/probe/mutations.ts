/**
 * The mutation catalogue: for each rule of the spec, the requests derived from the rule's parts, each changing one
 * thing of a valid, correctly signed request, with the clauses it comes from (src/spec/clauses.ts) and the answer
 * the spec demands. Probes are derived, not picked: every part of the signed string is removed, replaced and moved;
 * every part of the header is spelled otherwise; every edge is probed on both sides; every value of an enumeration
 * is sent, and its near misses. The checks (checks/receiver) turn each rule's mutations into the cases of a check
 * (probe/cases.ts), so that a failure names the one mutation a receiver let through.
 *
 * The rules, by part of the request: the signature (§5.2, §5.3), the timestamp (§5.4, §5.5), the identity (§5.6,
 * §4.1) and the body limit (§8, §7) below; the document's (§2.1, §2.4–§2.12, §8) in mutations-document.ts.
 */
import { randomBytes } from 'node:crypto';
import { MAX_BODY_BYTES, SIGNATURE_WINDOW_SECONDS, type EventType } from '../../spec/constants.js';
import type { OpenPointId } from '../../spec/model/latitude.js';
import { WINDOW_EDGE_FRACTION, WINDOW_MARGIN_SECONDS } from '../tolerances.js';
import { bodyOfSize, compact, dateTime, withPath, type Doc } from './bodies.js';
import type {
  DigestDamage,
  RequestRecipe,
  SignatureRecipe,
  SignatureSpelling,
  SignedStringChange,
  TimestampNotation,
} from './recipe.js';
import type { ProbeScope } from './scope.js';

/**
 * What a mutation was designed to provoke: acceptance, or a refusal for its credentials, the form of a header, the
 * document, the size. No check reads it: the answer a case must get is the model's (src/spec/model), and a unit test
 * holds the model to every mutation's intent, so that the two statements of one rule keep each other honest.
 */
export type Intent = 'accepted' | 'authentication' | 'header' | 'schema' | 'too-large';

/** The valid request a mutation changes: the receiver's valid document (with a fresh event_id) and the run. */
export interface Valid {
  scope: ProbeScope;
  doc: Doc;
  /** The document's date-time field (§2.1), dotted: `occurred_at` (B), `origin.captured_at` (A). */
  dateTimeField: string;
}

export interface Mutation {
  /** What is changed, as a failure names it: `the hex digits in upper case`. */
  name: string;
  /** The clauses the mutation is derived from. */
  clauses: readonly string[];
  intent: Intent;
  /** The request: the valid one with the one thing changed. */
  request(valid: Valid): RequestRecipe;
  /** Why the mutation cannot be sent on this run, when it cannot (it is then not judged). */
  unjudgeable?(scope: ProbeScope): string | undefined;
  /**
   * Questions the mutation is not about (src/spec/model/latitude.ts): a refusal one of them allows (a 411 for a body
   * sent chunked, where the case is about its size) leaves the case not judged rather than passed or failed.
   */
  aside?: readonly OpenPointId[];
  /** Interface B: the event type of the valid document it changes, when not the receiver's usual one. */
  on?: EventType;
}

/** A valid document sent with the change each row names (a value, and how a failure names it) made to its request. */
export function changedBy<T>(
  rows: readonly (readonly [T, string])[],
  clauses: readonly string[],
  intent: Intent,
  change: (value: T) => Omit<RequestRecipe, 'body'>,
): Mutation[] {
  return rows.map(([value, name]) => ({
    name,
    clauses,
    intent,
    request: ({ doc }) => ({ body: compact(doc), ...change(value) }),
  }));
}

/** The clauses of a list of mutations, each once, in order. */
export function clausesOf(mutations: readonly Mutation[]): string[] {
  return [...new Set(mutations.flatMap((mutation) => mutation.clauses))];
}

/**
 * The signature's rules, by their parts (§5.2, §5.3): the signed string is the timestamp, one literal dot and the raw
 * body; the header is `sha256=` and the 64 lowercase hex digits of the HMAC, compared in full.
 */

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

/**
 * The timestamp's rules, by their parts (§5.4, §5.5): an integer of unix seconds, read from X-CAI-Timestamp and
 * nowhere else, within 300 s of now on either side.
 */

/**
 * §4.1, §4.2, §5.4: `<unix_seconds>`, integer: the same instant written otherwise, signed as sent (so only its form is
 * wrong). A receiver that parses it with a float or a lenient integer parser accepts one. A leading zero is not among
 * them: whether `0<digits>` is an integer as written is open, and B-AUTH-017 / A-AUTH-015 judge what it binds.
 */
const NOTATIONS: readonly [TimestampNotation, string][] = [
  ['plus-sign', 'the timestamp with a plus sign (+1767225600)'],
  ['decimal', 'the timestamp with a decimal fraction (1767225600.0)'],
  ['exponent', 'the timestamp in exponent notation (1.7672256e9)'],
  ['hex', 'the timestamp in hexadecimal (0x6955b900)'],
];

export const TIMESTAMP_FORM: readonly Mutation[] = [
  {
    name: 'an ISO 8601 date instead of seconds',
    clauses: ['§5.4-1'],
    intent: 'header',
    request: ({ doc }) => ({ body: compact(doc), timestamp: { kind: 'literal', value: new Date().toISOString() } }),
  },
  ...changedBy(NOTATIONS, ['§5.4-1'], 'header', (notation) => ({ timestamp: { kind: 'written', notation } })),
];

/** How far from now a timestamp is that stands clear of the §5.5 window's edge: outside the window, or inside it. */
export const OUTSIDE = SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS;
export const INSIDE = SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS;

/**
 * §5.5: the window's edges on both sides. Outside: 60 s clear of the edge, and one second past it (301 s). Inside:
 * 60 s clear, and on the edge itself (300 s: the spec says a request *outside* the window is rejected, and 300 s is
 * not outside a window of 300 seconds). Whole seconds, as the timestamp is.
 *
 * A case one second from the edge is sent at `fraction` of cai's second (tolerances.ts): where the target's clock
 * agrees with cai's to the second, it then reads the timestamp on the side the case means; where cai cannot be sure
 * (another offset, a slow answer), the model leaves the case undecided and it is sent again, then not judged.
 */
function windowSide(side: 'past' | 'future', outside: boolean): readonly Mutation[] {
  const sign = side === 'past' ? -1 : 1;
  const [clear, edge, edgeWords, intent, fraction] = outside
    ? ([
        OUTSIDE,
        SIGNATURE_WINDOW_SECONDS + 1,
        'one second outside',
        'authentication',
        WINDOW_EDGE_FRACTION[side],
      ] as const)
    : ([INSIDE, SIGNATURE_WINDOW_SECONDS, 'on the edge', 'accepted', WINDOW_EDGE_FRACTION.inside] as const);
  const rows: [[number, number?], string][] = [
    [[sign * clear], `a timestamp ${clear} s in the ${side}`],
    [[sign * edge, fraction], `a timestamp ${edge} s in the ${side} (${edgeWords})`],
  ];
  const clauses = intent === 'accepted' ? ['§5.5-2'] : ['§5.5-1', '§8-3'];
  return changedBy(rows, clauses, intent, ([shiftSeconds, at]) => ({
    timestamp: { kind: 'now', shiftSeconds },
    ...(at !== undefined ? { atSecondFraction: at } : {}),
  }));
}

export const WINDOW_PAST_OUTSIDE = windowSide('past', true);
export const WINDOW_FUTURE_OUTSIDE = windowSide('future', true);
export const WINDOW_PAST_INSIDE = windowSide('past', false);
export const WINDOW_FUTURE_INSIDE = windowSide('future', false);

const HOUR_MS = 3_600_000;

/**
 * §5.4: the timestamp is taken from X-CAI-Timestamp. The clock the window is measured against is that header's and
 * no other: not the document's own date-time, not an HTTP `Date` header of the request.
 */
export const WINDOW_SOURCE: readonly Mutation[] = [
  {
    name: 'a fresh X-CAI-Timestamp on a document whose date-time is an hour old',
    clauses: ['§5.4-1', '§5.5-2'],
    intent: 'accepted',
    request: ({ doc, dateTimeField }) => ({
      body: compact(withPath(doc, dateTimeField, dateTime(new Date(Date.now() - HOUR_MS)))),
    }),
  },
  {
    name: 'a fresh X-CAI-Timestamp with a Date header an hour old',
    clauses: ['§5.4-1', '§5.5-2'],
    intent: 'accepted',
    request: ({ doc }) => ({ body: compact(doc), headers: { date: new Date(Date.now() - HOUR_MS).toUTCString() } }),
  },
  {
    name: `an X-CAI-Timestamp ${OUTSIDE} s old on a document whose date-time is now`,
    clauses: ['§5.4-1', '§5.5-1'],
    intent: 'authentication',
    request: ({ doc, dateTimeField }) => ({
      body: compact(withPath(doc, dateTimeField, dateTime(new Date()))),
      timestamp: { kind: 'now', shiftSeconds: -OUTSIDE },
    }),
  },
];

/**
 * The sender's identity, by its parts (§5.6, §4.1): the code in X-CAI-Provider (B) or the platform id in X-CAI-Source
 * (A) is compared exactly. Another code, the right one in another case, with a character more or one less: each is
 * not the sender the credential was issued to. (White space around a header value is not sent: HTTP strips it.)
 */

/** The code in another case: upper case, or lower case when it has no lower-case letter; undefined without letters. */
export function otherCase(code: string): string | undefined {
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

/**
 * The body limit, by its parts (§8, §7): 256 KB, over it 413, counted in bytes whatever the framing. The body at the
 * limit and one byte past it, sent with Content-Length, chunked (no length declared: the receiver must count what
 * arrives) and with `Expect: 100-continue` (the length declared before any byte of the body).
 */

/** 262 144 → "262 144": grouped by hand, as `toLocaleString` would, without loading ICU's locale data at start-up. */
const bytes = (size: number) => String(size).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/**
 * The framings HTTP/1.1 allows, each with the question it raises that the size does not (the model allows a 411 for
 * a chunked body, a 417 for an `Expect`: src/spec/model/latitude.ts); a case about the size sets it aside.
 */
const FRAMINGS: readonly [string, Partial<RequestRecipe>, OpenPointId?][] = [
  ['with Content-Length', {}],
  ['chunked, without Content-Length', { chunked: true }, 'chunked'],
  ['with Expect: 100-continue', { expectContinue: true }, 'expect-continue'],
];

/** A body of `size` bytes of `field` text, in each framing. */
function framed(size: number, intent: Mutation['intent'], field: string): Mutation[] {
  return FRAMINGS.map(([framing, recipe, question]) => ({
    name: `${bytes(size)} bytes ${framing}`,
    clauses: ['§8-1', ...(intent === 'too-large' ? ['§7-5'] : [])],
    intent,
    // A body at the limit refused for its framing is not refused for its size: B-FRAME-001 judges chunked bodies.
    ...(intent === 'accepted' && question ? { aside: [question] } : {}),
    request: ({ doc }) => ({ body: bodyOfSize(doc, field, size), ...recipe }),
    // The session sends Expect through node:http, on a connection of its own: never through a proxy.
    ...(recipe.expectContinue
      ? {
          unjudgeable: (scope: ProbeScope) =>
            scope.session.config.client?.proxy ? 'Expect: 100-continue is not sent through a proxy' : undefined,
        }
      : {}),
  }));
}

/** Interface B (§8 states the limit for events): one byte over it, refused with 413 in every framing. */
export const OVER_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES + 1, 'too-large', 'text');

/** Interface B: exactly 262 144 bytes (256 KiB), accepted in every framing (a `should`: KB may be read as 1000). */
export const AT_THE_LIMIT: readonly Mutation[] = framed(MAX_BODY_BYTES, 'accepted', 'text');
