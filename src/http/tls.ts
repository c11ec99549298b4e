import { rootCertificates } from 'node:tls';

/** §5.8: transport is TLS 1.2 or above, in both directions. */
export const MIN_TLS_VERSION = 'TLSv1.2';

/**
 * The authorities to trust with `--ca`: the given one in addition to Node's bundled roots, so a test environment's
 * private CA works while public certificates keep working. The same for every command that takes --ca.
 */
export function trustedAuthorities(ca: Buffer): string[] {
  return [...rootCertificates, ca.toString('utf8')];
}
