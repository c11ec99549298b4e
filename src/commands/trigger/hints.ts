/**
 * The hints of `cai trigger`'s coded errors, in the words of its flags: the listener of `trigger job` is placed by
 * --listen, not by the mocks' --host and --port that the shared words name.
 */
import type { Words } from '../../errors.js';

export const TRIGGER_HINTS: Words = {
  port_in_use: () => 'choose another --listen HOST:PORT, or port 0 for any free port',
  port_denied: () => 'use a port above 1023 in --listen, or port 0 for any free port',
  bad_host: () => 'use --listen 127.0.0.1:PORT (or 0.0.0.0:PORT for every interface)',
  listen_failed: () => 'check --listen',
};
