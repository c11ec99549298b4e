/**
 * The last line of defence for "never shows a secret": every string the inspector serves from what it kept
 * (headers, bodies, messages, diagnoses) passes through here, and any occurrence of a secret of the mock is
 * replaced. No secret travels in a header or is written by the diagnosis, so this should never fire; a sender that
 * puts its secret into a body or a header by mistake is the case it is for. A JSON string may spell any character
 * as an escape (RFC 8259 §7: `\u005f` for `_`, `\/` for `/`), and the page shows such a string decoded: each secret
 * is also found spelled with any of its characters escaped, wherever a backslash is.
 */
export const REDACTED = '[a secret of this mock: not shown]';

export class Redactor {
  private readonly secrets: string[];
  private readonly bytes: Buffer[];
  /** Each secret with any of its characters JSON-escaped: over text, and over bytes read as latin1 (UTF-8 raw). */
  private readonly escapedText: RegExp[];
  private readonly escapedBytes: RegExp[];

  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...new Set([...secrets].filter((secret) => secret.length > 0))].sort((a, b) => b.length - a.length);
    this.bytes = this.secrets.map((secret) => Buffer.from(secret, 'utf8'));
    this.escapedText = this.secrets.map((secret) => escapedSpellings(secret, (char) => char));
    this.escapedBytes = this.secrets.map((secret) =>
      escapedSpellings(secret, (char) => Buffer.from(char, 'utf8').toString('latin1')),
    );
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    if (out.includes('\\')) for (const pattern of this.escapedText) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** A JSON-ready value with every string (keys included) redacted. */
  json<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value) as T;
  }

  buffer(value: Buffer): Buffer {
    let out = value;
    for (const secret of this.bytes) {
      if (!out.includes(secret)) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(secret); at !== -1; at = out.indexOf(secret, from)) {
        parts.push(out.subarray(from, at), Buffer.from(REDACTED));
        from = at + secret.length;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    if (this.secrets.length > 0 && out.includes(0x5c)) {
      // Read as latin1, each byte is one character: the bytes around a match come back unchanged.
      const text = out.toString('latin1');
      let redacted = text;
      for (const pattern of this.escapedBytes) redacted = redacted.replace(pattern, REDACTED);
      if (redacted !== text) out = Buffer.from(redacted, 'latin1');
    }
    return out;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Buffer.isBuffer(value)) return this.buffer(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.walk(item)]));
    return value;
  }
}

// RFC 8259 §7: the two-character escapes, beside `\uXXXX` for any code unit: each character, then its letter.
const SHORT_ESCAPES: Readonly<Record<string, string>> = Object.fromEntries(
  Array.from('"\\/\b\f\n\r\t', (char, index) => [char, `\\${'"\\/bfnrt'[index]}`]),
);

/**
 * A pattern of `secret` as a JSON string may spell it: each character as itself (as `raw` writes it: the character,
 * or its UTF-8 bytes read as latin1) where a string may hold it raw, as its short escape, or as `\uXXXX` of each of
 * its code units, in either case of hex digit.
 */
function escapedSpellings(secret: string, raw: (char: string) => string): RegExp {
  const literal = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  const hex = (unit: number) =>
    [...unit.toString(16).padStart(4, '0')]
      .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
      .join('');
  const spellings = Array.from(secret, (char) => {
    const choices: string[] = [];
    const units = Array.from({ length: char.length }, (_, index) => char.charCodeAt(index));
    choices.push(units.map((unit) => `\\\\u${hex(unit)}`).join(''));
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) choices.push(literal(short));
    if (char !== '"' && char !== '\\' && char >= ' ') choices.push(literal(raw(char)));
    return `(?:${choices.join('|')})`;
  });
  return new RegExp(spellings.join(''), 'g');
}
