/**
 * A host and a port written as text, the one place: an IPv6 address in brackets (RFC 3986 §3.2.2), in a URL and in
 * `HOST:PORT`, the form a listen address is read back from (src/commands/common/options.ts), and a URL's origin as
 * messages name a target. No I/O, no imports.
 */

/** A host as a URL writes it: `127.0.0.1`, `localhost`, `[::1]`. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** `127.0.0.1:8787`, `[::1]:8787`. */
export function hostPort(host: string, port: number): string {
  return `${urlHost(host)}:${port}`;
}

/** The URL `text` is, or undefined when it is none (the one place a URL that may be bad is parsed). */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** `https://platform.example:8443` of a URL, for a message; the text as given when it is not a URL. */
export function originOf(url: string): string {
  return parseUrl(url)?.origin ?? url;
}
