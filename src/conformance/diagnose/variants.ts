/**
 * The usual ways a receiver's verification departs from §5, each as a way of signing the same valid request: a
 * receiver with that mistake accepts the request signed this way, and refuses it signed correctly. The first one a
 * receiver accepts names its mistake. Pure: each variant computes the two headers from the secret, the receiver's
 * clock and the body; the body itself is sent as it is (only what is signed changes).
 */
import { asciiEscape, sortKeys, stringifySpaced } from '../../signing/diagnose.js';
import { hmacHex, signedPayload } from '../../signing/sign.js';
import { SIGNATURE_PREFIX } from '../../spec/constants.js';
import { jsonValueOf } from '../../spec/json.js';

/** What a variant changes: the signed body's layout, the signed string, the header's format, or the key. */
export type VariantFamily = 'body' | 'signed-string' | 'header' | 'secret';

export interface SigningInput {
  /** The secret cai signs with (the first given, §5.9). */
  secret: string;
  /** The secrets given after it (a rotation, §5.9). */
  moreSecrets: readonly string[];
  /** The other direction's secret (Interface A: the events secret, §5.1), when given. */
  otherSecret?: string;
  /** Now on the receiver's clock, unix seconds. */
  nowSeconds: number;
  /** The body as sent, exactly. */
  body: Buffer;
}

export interface SignedHeaders {
  timestamp: string;
  signature: string;
}

export interface SigningVariant {
  id: string;
  family: VariantFamily;
  /** A few words for the list of what was ruled out: `json.dumps`, `no dot`. */
  short: string;
  /** How it was signed, after `signed`: `over json.dumps(json.loads(body))`, `with an empty secret`. */
  signed: string;
  /** The cause, when a receiver accepts this signing and refused the correct one. */
  cause: string;
  /** A re-serialisation: what it is, in words (`JavaScript's JSON.stringify re-serialisation of the parsed body`). */
  what?: string;
  sections: readonly string[];
  /** The two headers; undefined where the variant does not apply (the body is not JSON, no other secret given). */
  headers(input: SigningInput): SignedHeaders | undefined;
}

/** The correct signing (§5.2, §5.3): the timestamp in seconds, a dot, the raw body; lowercase hex after `sha256=`. */
export function correctHeaders(input: SigningInput, secret: string | Uint8Array = input.secret): SignedHeaders {
  const timestamp = String(input.nowSeconds);
  return { timestamp, signature: SIGNATURE_PREFIX + hmacHex(secret, signedPayload(timestamp, input.body)) };
}

/** The headers of `payload`, signed with the first secret given, at `timestamp`. */
function signedOver(input: SigningInput, timestamp: string, payload: Buffer): SignedHeaders {
  return { timestamp, signature: SIGNATURE_PREFIX + hmacHex(input.secret, payload) };
}

/** The cause of a receiver that verifies over `what`, a re-serialisation of the body. */
export function reserialisedCause(what: string): string {
  return `your receiver accepts the signature computed over ${what}: it must verify over the raw bytes exactly as received, before any parsing (§5.2)`;
}

/** A variant that signs a re-serialisation of the body instead of its bytes (§5.2 forbids it in as many words). */
function reserialised(
  id: string,
  short: string,
  signed: string,
  what: string,
  form: (doc: unknown) => string,
): SigningVariant {
  return {
    id,
    family: 'body',
    short,
    signed: `over ${signed}`,
    what,
    cause: reserialisedCause(what),
    sections: ['§5.2'],
    headers(input) {
      const doc = jsonValueOf(input.body);
      if (doc === undefined) return undefined;
      const timestamp = String(input.nowSeconds);
      return signedOver(input, timestamp, signedPayload(timestamp, Buffer.from(form(doc), 'utf8')));
    },
  };
}

/** A variant that signs with another key than the secret as given. */
function keyedWith(
  id: string,
  short: string,
  what: string,
  cause: string,
  sections: readonly string[],
  key: (input: SigningInput) => string | Uint8Array | undefined,
): SigningVariant {
  return {
    id,
    family: 'secret',
    short,
    signed: what,
    cause,
    sections,
    headers(input) {
      const secret = key(input);
      return secret === undefined ? undefined : correctHeaders(input, secret);
    },
  };
}

/** A variant of the header's format (§5.3): the correct MAC, its hex digits written by `spell`. */
function respelled(
  id: string,
  short: string,
  signed: string,
  cause: string,
  spell: (hex: string) => string,
): SigningVariant {
  return {
    id,
    family: 'header',
    short,
    signed,
    cause,
    sections: ['§5.3'],
    headers(input) {
      const { timestamp, signature } = correctHeaders(input);
      return { timestamp, signature: spell(signature.slice(SIGNATURE_PREFIX.length)) };
    },
  };
}

/** The secret's bytes as hex digits spell them, when they do (an even number of hex digits, at least 16 bytes). */
function hexDecoded(secret: string): Buffer | undefined {
  return /^(?:[0-9a-f]{2}){16,}$/i.test(secret) ? Buffer.from(secret, 'hex') : undefined;
}

/** The bytes a base64 secret (optionally `whsec_`-prefixed, as Standard Webhooks writes them) decodes to. */
function base64Decoded(secret: string): Buffer | undefined {
  const text = secret.replace(/^whsec_/, '');
  if (hexDecoded(text) !== undefined || !/^[A-Za-z0-9+/]{22,}={0,2}$/.test(text) || text.length % 4 !== 0)
    return undefined;
  return Buffer.from(text, 'base64');
}

/**
 * In the order they are tried: the re-serialisations first (the usual first-day mistake, §5.2), then the signed
 * string, the header's format, and the key.
 */
export const VARIANTS: readonly SigningVariant[] = [
  reserialised(
    'python-json-dumps',
    "Python's json.dumps",
    'json.dumps(json.loads(body))',
    `Python's json.dumps re-serialisation of the body (", " and ": " separators, non-ASCII as \\uXXXX)`,
    (doc) => asciiEscape(stringifySpaced(doc)),
  ),
  reserialised(
    'js-stringify',
    'JSON.stringify',
    'JSON.stringify(JSON.parse(body))',
    "JavaScript's JSON.stringify re-serialisation of the parsed body",
    (doc) => JSON.stringify(doc),
  ),
  reserialised(
    'python-compact',
    "Python's compact json.dumps",
    'json.dumps(json.loads(body), separators=(",", ":"))',
    `the compact re-serialisation of the body (Python's json.dumps with separators=(",", ":"), non-ASCII as \\uXXXX)`,
    (doc) => asciiEscape(JSON.stringify(doc)),
  ),
  reserialised(
    'sorted-keys',
    'sorted keys',
    'the body re-serialised with its keys sorted',
    'a re-serialisation of the body with its keys sorted',
    (doc) => JSON.stringify(sortKeys(doc)),
  ),
  reserialised(
    'pretty',
    'pretty-printed',
    'JSON.stringify(JSON.parse(body), null, 2)',
    'a pretty-printed re-serialisation of the body (2-space indent)',
    (doc) => JSON.stringify(doc, null, 2),
  ),
  reserialised(
    'php-json-encode',
    "PHP's json_encode",
    'json_encode(json_decode(body))',
    "PHP's json_encode re-serialisation of the body (\\/ and \\uXXXX escapes)",
    (doc) => asciiEscape(JSON.stringify(doc)).replace(/\//g, '\\/'),
  ),
  {
    id: 'body-only',
    family: 'signed-string',
    short: 'the body alone',
    signed: 'over the body alone, without the timestamp',
    cause:
      'your receiver accepts the signature computed over the body alone: the signed string is the timestamp, one literal ".", then the raw body (§5.2)',
    sections: ['§5.2'],
    headers: (input) => signedOver(input, String(input.nowSeconds), input.body),
  },
  {
    id: 'no-dot',
    family: 'signed-string',
    short: 'no dot',
    signed: 'over timestamp + body, without the dot',
    cause:
      'your receiver accepts the signature computed over timestamp + body without the dot between them: the signed string is the timestamp, one literal ".", then the raw body (§5.2)',
    sections: ['§5.2'],
    headers(input) {
      const timestamp = String(input.nowSeconds);
      return signedOver(input, timestamp, Buffer.concat([Buffer.from(timestamp, 'utf8'), input.body]));
    },
  },
  {
    id: 'milliseconds',
    family: 'signed-string',
    short: 'milliseconds',
    signed: 'with the timestamp in milliseconds (in the header and the signed string)',
    cause:
      'your receiver accepts a timestamp in milliseconds: X-CAI-Timestamp is unix seconds (§4.1, §4.2, §5.4), which it reads as a time long past (§5.5)',
    sections: ['§5.4', '§5.5'],
    headers(input) {
      const timestamp = String(input.nowSeconds * 1000);
      return signedOver(input, timestamp, signedPayload(timestamp, input.body));
    },
  },
  respelled(
    'uppercase-hex',
    'uppercase hex',
    'with the signature in uppercase hex',
    'your receiver accepts the signature only in uppercase hex: the header is sha256= followed by lowercase hexadecimal (§5.3)',
    (hex) => SIGNATURE_PREFIX + hex.toUpperCase(),
  ),
  respelled(
    'base64',
    'base64',
    'with the signature in base64',
    'your receiver expects the signature in base64: the header is sha256= followed by lowercase hexadecimal (§5.3)',
    (hex) => SIGNATURE_PREFIX + Buffer.from(hex, 'hex').toString('base64'),
  ),
  respelled(
    'no-prefix',
    'no sha256= prefix',
    'with the signature without its sha256= prefix',
    'your receiver compares the signature without its sha256= prefix: the header is sha256= followed by the hex (§5.3)',
    (hex) => hex,
  ),
  keyedWith(
    'other-direction',
    "the other direction's secret",
    "with the other direction's secret (the events secret)",
    "your receiver verifies with the other direction's secret: each direction has its own, and jobs are signed with the jobs secret (§5.1)",
    ['§5.1'],
    (input) => input.otherSecret,
  ),
  keyedWith(
    'older-secret',
    'the second secret given',
    'with the second secret given, not the first',
    'your receiver accepts the second secret given, not the first, which signs: it does not have the new secret of the rotation yet (§5.9)',
    ['§5.9'],
    (input) => input.moreSecrets[0],
  ),
  keyedWith(
    'empty-secret',
    'an empty secret',
    'with an empty secret',
    'your receiver verifies with an empty secret: its secret is not set where it reads it (an environment variable, a file)',
    ['§5.1', '§5.3'],
    () => '',
  ),
  keyedWith(
    'secret-newline',
    'the secret with a newline',
    'with the secret followed by a newline',
    "your receiver's secret ends with a newline (read from a file or an environment variable as is): the secret is the text without it",
    ['§5.3'],
    (input) => `${input.secret}\n`,
  ),
  keyedWith(
    'hex-decoded-secret',
    'the secret hex-decoded',
    "with the secret's hex digits decoded to bytes",
    "your receiver keys the HMAC with the secret's hex digits decoded to bytes: the key is the secret's text as given, as in the worked example (§5.3, §5.10)",
    ['§5.3', '§5.10'],
    (input) => hexDecoded(input.secret),
  ),
  keyedWith(
    'base64-decoded-secret',
    'the secret base64-decoded',
    'with the secret decoded from base64',
    "your receiver keys the HMAC with the secret decoded from base64: the key is the secret's text as given, as in the worked example (§5.3, §5.10)",
    ['§5.3', '§5.10'],
    (input) => base64Decoded(input.secret),
  ),
];

/** The families in words, for what the refused signings rule out. */
export const FAMILY_WORDS: Record<VariantFamily, string> = {
  body: 're-serialisations of the body',
  'signed-string': 'the signed string',
  header: "the header's format",
  secret: 'the key',
};
