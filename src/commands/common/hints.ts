/**
 * The hints of the domains' coded errors that every command shares, in the CLI's words: the flag to pass, the
 * option to raise. A domain names no flag (it is a library too); it throws a code and data, and these words say
 * what to do about it on the command line. A command's own codes are in its folder's hints.ts.
 */
import type { Words } from '../../errors.js';
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';

/** The options the domains' messages name as `option:NAME` (`from --env`; `optional: run it with --include origin`). */
const NAMED_OPTIONS = [
  'config',
  'env',
  'source',
  'provider',
  'set',
  'unset',
  'include',
  'skip',
  'observe',
  'callback-wait',
  'callback-listen',
  'callback-url',
  'source-address',
  'branch-code',
  'trigger',
  'json',
  'fail-on-not-judged',
  'fail-fast',
  'max-failures',
] as const;

export const SHARED_HINTS: Words = {
  ...Object.fromEntries(NAMED_OPTIONS.map((option) => [`option:${option}`, () => `--${option}`])),
  // src/spec/sample.ts: a --set that is no path=value, or that would set a field inside one that is no object.
  bad_override: ({ syntax, object }) =>
    syntax
      ? 'e.g. --set contact.name="Ana Sousa" or --set attempts=4'
      : object !== undefined
        ? `set ${object} itself, e.g. --set '${object}={"…":"…"}'`
        : undefined,
  // src/secrets/resolve.ts: no usable secret of a family of options (`--secret-env`, `--secret-file`, `--secret`).
  missing_secret: ({ secret, defaultEnv }) => {
    if (secret === undefined) return undefined;
    const flags = `--${secret}-env NAME, --${secret}-file PATH or --${secret} VALUE`;
    return defaultEnv === undefined ? `pass ${flags}` : `pass ${flags}, or set ${defaultEnv}`;
  },
  // src/config/locate.ts: an environment asked for, and no profile to take it from.
  missing_config: ({ environment }) =>
    environment === undefined
      ? undefined
      : "run from the directory that holds it, pass --config FILE, or create one with 'cai config init'",
  // src/http/client.ts: a request that got no answer (§7: retried where the spec allows).
  timeout: () => 'raise --timeout, or check that the receiver answers promptly',
  local_address: ({ reason, family }) =>
    reason === 'family'
      ? `pass --local-address an IPv${family} address of this machine, as the target's is`
      : '--local-address must be an address of this machine',
  unreachable: ({ viaProxy }) =>
    viaProxy
      ? 'check the proxy (--proxy, HTTPS_PROXY, NO_PROXY)'
      : 'check the --to URL and that the receiver is running',
  tls: ({ certificate }) =>
    certificate === 'other-name'
      ? 'the certificate is not for this host name; check the --to URL'
      : 'pass --ca FILE with the certificate authority that signed it (or --insecure for a throw-away test)',
  proxy: () => 'check --proxy / HTTPS_PROXY, or bypass it with NO_PROXY',
  connection: () => 'check the --to URL and the network',
  placeholder_host: () =>
    "pass the receiver's real address with --to, or write it in cai.config.json (cai config init leaves placeholders)",
  // src/http/not-an-endpoint.ts: where --to should point, for the interface the request was of (§4.1, §4.2).
  not_an_endpoint: ({ interface: iface }) => {
    if (iface === undefined) return 'check --to: the events URL (§4.2), or the provider endpoint (§4.1)';
    const spec = interfaceSpec(iface as InterfaceId);
    return spec.path === ''
      ? `check --to: it is ${spec.targetName} itself, where the ${spec.sender} POSTs its ${spec.documentName}s (${spec.section})`
      : `check --to: it is ${spec.targetName}, without ${spec.path}, which is appended to it (${spec.section})`;
  },
  // src/http/deliver.ts: why a delivery stopped, and what would have it go on.
  retries_exhausted: ({ giveUp }) =>
    giveUp === 'disabled'
      ? 'drop --no-retry to retry 5xx, 429 and connection failures (§7)'
      : giveUp === 'max-attempts'
        ? 'raise --max-attempts or --retry-for (the spec allows retrying for up to 24h, §8)'
        : 'raise --retry-for (the spec allows retrying for up to 24h, §8), or check the receiver',
  nothing_listens: () =>
    'is the receiver running, and on the port of the URL? (cai mock platform|provider prints its URL when it starts); pass --retry-for DURATION to keep trying while it starts',
  // src/http/transport.ts
  bad_transport: () => 'check --proxy, --local-address and --ca',
  // src/http/server.ts: a receiver that cannot listen (the mocks, a conformance run's listener).
  bad_tls_files: () => 'pass a PEM certificate with --tls-cert and its PEM private key with --tls-key',
  port_in_use: () => 'choose another --port, or --port 0 for any free port',
  port_denied: () => 'use a port above 1023, or --port 0 for any free port',
  bad_host: () => 'use --host 127.0.0.1 (or 0.0.0.0 for every interface)',
  listen_failed: () => 'check --host and --port',
};
