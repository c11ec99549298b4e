/** A URL's host name as an address or a name: an IPv6 address without the brackets the URL writes it in. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** This machine, by URL: 127.0.0.0/8, ::1, `localhost` and names under `.localhost` (RFC 6761). No I/O, no imports. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = bareHostname(new URL(url)).toLowerCase();
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\./.test(host)
  );
}
