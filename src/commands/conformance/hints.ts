/**
 * The hints of a conformance run's coded errors (src/conformance), in the words of its flags. The options its reports
 * name are in the shared words (src/commands/common/hints.ts): `cai report` renders the same reports.
 */
import type { Words } from '../../errors.js';

const listenHint = ({ listenOption }: { listenOption?: unknown }) =>
  typeof listenOption === 'string'
    ? `pass another --${listenOption} HOST:PORT, or port 0 for any free port`
    : undefined;

export const CONFORMANCE_HINTS: Words = {
  ...Object.fromEntries(['port_in_use', 'port_denied', 'bad_host'].map((code) => [code, listenHint])),
  missing_target: () => 'pass --to URL, or --mock to run against the built-in reference receiver',
  target_redirects: () => 'pass the final URL as --to: requests are never redirected',
};
