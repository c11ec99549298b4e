/**
 * HTTP messages on a page: a start line and headers, then the body pretty-printed when it is JSON (its own
 * tokens re-indented, so duplicate keys, number spellings and escapes stay as sent), the raw text beside it, and
 * binary bodies summarised. Every byte from the wire goes through `html` (escaped).
 */
import { MAX_WALK_DEPTH, PRETTY_JSON_ROOM } from '../../bounds.js';
import { jsonNestingDepth } from '../../spec/json-syntax.js';
import { html, type SafeHtml } from './escape.js';

/**
 * A body as a report carries it (the conformance report; the inspector builds the same): the text when it is UTF-8
 * (cut after a limit), else only its size, digest and start.
 */
export interface BodyRecord {
  bytes: number;
  /** The body as text, when it is valid UTF-8; cut to a limit (`truncated`). */
  text?: string;
  truncated?: boolean;
  /** Binary bodies: SHA-256 (hex) and the first bytes (hex). */
  sha256?: string;
  hexPrefix?: string;
}

/**
 * Valid JSON object or array → the same tokens, one member a line, indented; anything else, or JSON nested deeper
 * than MAX_WALK_DEPTH or whose pretty form outgrows PRETTY_JSON_ROOM → undefined (shown as received).
 * Re-indenting (rather than parse and stringify) shows what was sent: `1.0` stays `1.0`, a repeated key stays.
 */
export function prettyJson(text: string, indent = '  '): string | undefined {
  const first = text.trimStart()[0];
  if ((first !== '{' && first !== '[') || jsonNestingDepth(text) > MAX_WALK_DEPTH) return undefined;
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const room = PRETTY_JSON_ROOM.times * text.length + PRETTY_JSON_ROOM.plus;
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    if (out.length > room) return undefined;
    const char = text[index] as string;
    if (inString) {
      out += char;
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    switch (char) {
      case '"':
        inString = true;
        out += char;
        break;
      case '{':
      case '[': {
        let next = index + 1;
        while (next < text.length && ' \t\n\r'.includes(text[next] as string)) next++;
        if (text[next] === '}' || text[next] === ']') {
          out += char + (text[next] as string);
          index = next;
          break;
        }
        depth++;
        out += `${char}\n${indent.repeat(depth)}`;
        break;
      }
      case '}':
      case ']':
        depth--;
        out += `\n${indent.repeat(depth)}${char}`;
        break;
      case ',':
        out += `,\n${indent.repeat(depth)}`;
        break;
      case ':':
        out += ': ';
        break;
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        break;
      default:
        out += char;
    }
  }
  return out;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The body: pretty JSON with the raw text folded under it, plain text, or a summary of binary data. */
export function renderBody(body: BodyRecord): SafeHtml {
  if (body.bytes === 0) return html`<p class="muted">(empty body)</p>`;
  if (body.text === undefined) {
    return html`<p class="muted">${formatBytes(body.bytes)} of binary data (not UTF-8): not shown.${body.sha256 ? ` SHA-256 ${body.sha256}.` : ''}</p>${body.hexPrefix ? html`<pre class="hex">${spacedHex(body.hexPrefix)}${body.bytes * 2 > body.hexPrefix.length ? ' …' : ''}</pre>` : ''}`;
  }
  const cut = body.truncated
    ? html`<p class="muted">The first ${body.text.length} characters of ${formatBytes(body.bytes)}.</p>`
    : '';
  const pretty = body.truncated ? undefined : prettyJson(body.text);
  if (pretty === undefined || pretty === body.text) return html`${cut}<pre class="body">${body.text}</pre>`;
  return html`<pre class="body json">${pretty}</pre><details class="raw"><summary class="muted">raw (${formatBytes(body.bytes)}, as sent)</summary><pre class="body">${body.text}</pre></details>`;
}

/** A start line and headers, as on the wire (`Name: value`): a record, or pairs in their order (a header may repeat). */
export function renderHead(
  startLine: string,
  headers: Readonly<Record<string, string>> | readonly (readonly [string, string])[],
): SafeHtml {
  const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
  const lines = [startLine, ...pairs.map(([name, value]) => `${name}: ${value}`)];
  return html`<pre class="head">${lines.join('\n')}</pre>`;
}

function spacedHex(hex: string): string {
  return hex.replace(/(..)(?!$)/g, '$1 ');
}
