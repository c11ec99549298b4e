/**
 * What the user gives `cai load export`, made safe to write into an Artillery project: no credential from a URL
 * (the project's files are shared, committed, uploaded to Fargate), and no `{{` that Artillery would template.
 * Artillery 2 templates a request's `url`, `name` and every header after the beforeRequest hook
 * (@artilleryio/int-core, engine_http.js), so `{{$processEnvironment.CAI_SECRET}}` in any of them would send the
 * secret to the target. A URL's path and query are percent-encoded instead (`%7B`, the same address to a server);
 * a host or a header value cannot be, and is refused. A domain error carries a code and the value's role; the
 * command words it.
 */

/** Artillery's template opener: `{{ name }}`, `{{ $fn(…) }}`. */
const TEMPLATE_OPEN = '{{';

/** Which value held what cannot be written. */
export type ExportValueRole = 'target' | 'callbackUrl' | 'identity';

export class ExportValueError extends Error {
  constructor(
    readonly code: 'template_in_host' | 'template_in_header',
    readonly role: ExportValueRole,
  ) {
    super(`${role}: ${code}`);
  }
}

/** A URL without its `user:password@`, and whether it had one. */
export function withoutCredentials(text: string): { url: URL; stripped: boolean } {
  const url = new URL(text);
  const stripped = url.username !== '' || url.password !== '';
  url.username = '';
  url.password = '';
  return { url, stripped };
}

/** `{` and `}` percent-encoded (RFC 3986 §2.1): the same path or query to a server, nothing for Artillery to template. */
export function encodeBraces(text: string): string {
  return text.replace(/[{}]/g, (brace) => (brace === '{' ? '%7B' : '%7D'));
}

/**
 * The URL a project loads, as it is written: no credentials, braces encoded in its path and query (the fragment
 * dropped: it never goes on the wire). A host holding `{{` is refused (a name cannot be encoded).
 */
export function exportUrl(
  text: string,
  role: ExportValueRole,
): { href: string; origin: string; pathAndQuery: string; stripped: boolean } {
  const { url, stripped } = withoutCredentials(text);
  if (url.host.includes(TEMPLATE_OPEN)) throw new ExportValueError('template_in_host', role);
  url.hash = '';
  const pathAndQuery = encodeBraces(`${url.pathname}${url.search}`);
  return { href: `${url.origin}${pathAndQuery}`, origin: url.origin, pathAndQuery, stripped };
}

/** A header value the processor sets: refused when it holds `{{` (Artillery templates headers; no encoding exists). */
export function checkHeaderValue(value: string, role: ExportValueRole): string {
  if (value.includes(TEMPLATE_OPEN)) throw new ExportValueError('template_in_header', role);
  return value;
}

/** True when `text` holds nothing Artillery would template. */
export function isTemplateFree(text: string): boolean {
  return !text.includes(TEMPLATE_OPEN);
}
