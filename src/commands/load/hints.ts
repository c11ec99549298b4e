/**
 * The hints of `cai load`'s coded errors, in the words of its flags: its one listener (the callbacks of
 * `--callbacks`) is placed by --callback-listen, not by the mocks' --host and --port that the shared words name.
 */
import type { Words } from '../../errors.js';

export const LOAD_HINTS: Words = {
  port_in_use: () => 'choose another --callback-listen HOST:PORT, or port 0 for any free port',
  port_denied: () => 'use a port above 1023 in --callback-listen, or port 0 for any free port',
  bad_host: () => 'use --callback-listen 127.0.0.1:PORT (or 0.0.0.0:PORT for every interface)',
};
