/**
 * HTML escaping for the pages cai writes (conformance report, operation report, the mocks' inspector). Everything
 * that reaches a page from a target (bodies, headers, messages) or a user (paths, ids) goes through `escapeHtml`,
 * usually by way of the `html` template tag, which escapes every interpolated value unless it is already `SafeHtml`.
 */

/** Markup built by `html` (or declared safe with `trustedHtml`): inserted as is by another `html` template. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text → HTML text or quoted-attribute value. Beyond `& < > " '`: a lone UTF-16 surrogate (not encodable) becomes
 * U+FFFD, and control characters other than tab, LF and CR (which HTML refuses or silently drops) are shown as
 * their Unicode "control pictures" (NUL → ␀, ESC → ␛, DEL → ␡) or, for C1 controls, U+FFFD, so a body full of
 * them is visibly odd rather than silently changed.
 */
export function escapeHtml(text: string): string {
  return (
    text
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, (char) => {
        const code = char.charCodeAt(0);
        return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\uFFFD';
      })
      .replace(/[&<>"']/g, (char) => ENTITIES[char] as string)
  );
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/** One value in HTML text: `SafeHtml` as is, arrays joined, null/undefined/false as nothing, the rest escaped. */
export function toHtml(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(toHtml).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * `html\`<td>${text}</td>\`` escapes `text`; nested `html` results pass through. Interpolate only into text or
 * double-quoted attribute values, never into `<script>`, `<style>`, unquoted attributes or URLs.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] as string;
  for (let index = 0; index < values.length; index++) out += toHtml(values[index] as HtmlValue) + (strings[index + 1] as string);
  return new SafeHtml(out);
}

/** Markup produced by our own code (a rendered chart, a constant): never text from a target. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A stable, attribute-safe id for an element, from any text (e.g. a check id). */
export function domId(prefix: string, text: string): string {
  return `${prefix}-${text.replace(/[^A-Za-z0-9_-]/g, (char) => `_${char.charCodeAt(0).toString(16)}_`)}`;
}
