/**
 * The last line of defence for "never shows a secret": every string the inspector serves from what it kept
 * (headers, bodies, messages, diagnoses) passes through here, and any occurrence of a secret of the mock is
 * replaced. No secret travels in a header or is written by the diagnosis, so this should never fire; a sender that
 * puts its secret into a body or a header by mistake is the case it is for.
 */
export const REDACTED = '[a secret of this mock: not shown]';

export class Redactor {
  private readonly secrets: string[];
  private readonly bytes: Buffer[];

  constructor(secrets: Iterable<string>) {
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...new Set([...secrets].filter((secret) => secret.length > 0))].sort((a, b) => b.length - a.length);
    this.bytes = this.secrets.map((secret) => Buffer.from(secret, 'utf8'));
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
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
