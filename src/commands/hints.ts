/**
 * The hints of the domains' coded errors that every command shares, in the CLI's words: the flag to pass, the
 * option to raise. A domain names no flag (it is a library too); it throws a code and data, and these words say
 * what to do about it on the command line. A command's own codes are in its folder's hints.ts.
 */
import type { HintWords } from '../errors.js';

export const SHARED_HINTS: HintWords = {
  // src/http/client.ts: a request that got no answer (§7: retried where the spec allows).
  timeout: () => 'raise --timeout, or check that the receiver answers promptly',
  local_address: () => '--local-address must be an address of this machine',
  unreachable: ({ viaProxy }) => (viaProxy ? 'check the proxy (--proxy, HTTPS_PROXY, NO_PROXY)' : 'check the --to URL and that the receiver is running'),
  tls: ({ certificate }) =>
    certificate === 'other-name'
      ? 'the certificate is not for this host name; check the --to URL'
      : 'pass --ca FILE with the certificate authority that signed it (or --insecure for a throw-away test)',
  proxy: () => 'check --proxy / HTTPS_PROXY, or bypass it with NO_PROXY',
  connection: () => 'check the --to URL and the network',
  // src/http/transport.ts
  bad_transport: () => 'check --proxy, --local-address and --ca',
  // src/http/server.ts: a receiver that cannot listen (the mocks, a conformance run's listener).
  bad_tls_files: () => 'pass a PEM certificate with --tls-cert and its PEM private key with --tls-key',
  port_in_use: () => 'choose another --port, or --port 0 for any free port',
  port_denied: () => 'use a port above 1023, or --port 0 for any free port',
  bad_host: () => 'use --host 127.0.0.1 (or 0.0.0.0 for every interface)',
  listen_failed: () => 'check --host and --port',
};
