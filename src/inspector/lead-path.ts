/** The path segment of a lead's conversation: on the server (routes.ts, views.ts) and in the page (browser/script.ts). */

/**
 * A lead_id as a path segment: percent-encoded UTF-8, and a lone surrogate (valid in JSON, without a UTF-8 form) as
 * `%uD800`, which encoded text never holds (`%` is `%25`). The page's script (browser/inspector.js) is given these
 * very functions (browser/script.ts): they name nothing outside themselves.
 */
export function encodeLead(lead: string): string {
  const lone = (char: string) => `%u${char.charCodeAt(0).toString(16).toUpperCase()}`;
  return Array.from(lead, (char) => (/^[\ud800-\udfff]$/.test(char) ? lone(char) : encodeURIComponent(char))).join('');
}

/** A path segment → the lead_id it names (`encodeLead` backwards); a URIError when it is not one. */
export function decodeLead(segment: string): string {
  const parts = segment.split(/%u(d[89a-f][0-9a-f]{2})/i);
  return parts
    .map((part, index) => (index % 2 ? String.fromCharCode(parseInt(part, 16)) : decodeURIComponent(part)))
    .join('');
}
