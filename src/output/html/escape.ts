/**
 * HTML escaping for the pages cai writes (conformance report, operation report, the mocks' inspector). Everything
 * that reaches a page from a target (bodies, headers, messages) or a user (paths, ids) goes through `escapeHtml`,
 * usually by way of the `html` template tag, which escapes every interpolated value unless it is already `SafeHtml`.
 */
import { escapeMarkup } from '../markup.js';

/** Markup built by `html` (or declared safe with `trustedHtml`): inserted as is by another `html` template. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** Text → HTML text or quoted-attribute value: the one escaping function of every page and report (markup.ts). */
export const escapeHtml = escapeMarkup;

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

/** One value in HTML text: `SafeHtml` as is, arrays joined, null/undefined/false as nothing, the rest escaped. */
function toHtml(value: HtmlValue): string {
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
  for (let index = 0; index < values.length; index++)
    out += toHtml(values[index] as HtmlValue) + (strings[index + 1] as string);
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
