import { parseUrl } from './address.js';

/** A URL's host name as an address or a name: an IPv6 address without the brackets the URL writes it in. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** This machine, by URL: 127.0.0.0/8, ::1, `localhost` and names under `.localhost` (RFC 6761). No I/O. */
export function isLoopbackUrl(url: string): boolean {
  const parsed = parseUrl(url);
  if (parsed === undefined) return false;
  const host = bareHostname(parsed).toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\./.test(host)
  );
}
