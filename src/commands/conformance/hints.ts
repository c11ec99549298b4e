/**
 * The hints of a conformance run's coded errors (src/conformance), in the words of its flags. The options its reports
 * name are in the shared words (src/commands/common/hints.ts): `cai report` renders the same reports.
 */
import type { Words } from '../../errors.js';

const LISTEN_CODES = { port_in_use: true, port_denied: true, bad_host: true } as const;
const listenHint = ({ listenOption }: { listenOption?: unknown }) =>
  typeof listenOption === 'string'
    ? `pass another --${listenOption} HOST:PORT, or port 0 for any free port`
    : undefined;

export const CONFORMANCE_HINTS: Words = {
  ...Object.fromEntries(Object.keys(LISTEN_CODES).map((code) => [code, listenHint])),
  missing_target: () => 'pass --to URL, or --mock to run against the built-in reference receiver',
  target_redirects: () => 'pass the final URL as --to: requests are never redirected',
};
