/** The hints of the mocks' coded errors (src/mock, the inspector beside them), in the words of their flags. */
import type { Words } from '../../errors.js';

export const MOCK_HINTS: Words = {
  // src/mock/platform.ts, src/mock/provider.ts: what a mock cannot start without.
  missing_provider: ({ mock }) =>
    mock === 'platform'
      ? 'pass --provider CODE (the X-CAI-Provider value, §5.6)'
      : 'pass --provider CODE (sent as X-CAI-Provider on the events, §4.2)',
  missing_secret: ({ credential }) =>
    ({
      live: 'pass --secret-env NAME or --secret-file PATH',
      test: 'pass --test-secret-env NAME or --test-secret-file PATH',
      jobs: 'pass --secret-env NAME or --secret-file PATH (the jobs direction)',
      events: 'pass --callback-secret-env NAME or --callback-secret-file PATH (the events direction)',
    })[String(credential)],
  bad_speed: () => 'use e.g. --speed 60 to play a minute in a second',
  // src/mock/log.ts: a --log that is not a mock's log.
  bad_log: ({ log }) =>
    ({
      foreign: 'pass --log a new file (it is created), or a log a cai mock wrote',
      'not-regular': 'pass --log a regular file (it is created when missing)',
      unusable: 'pass --log a writable file path (it is created when missing)',
    })[String(log)],
  // src/inspector/server.ts: --ui HOST:PORT
  ui_port_in_use: () => 'choose another --ui HOST:PORT, or --ui alone for any free port',
  ui_port_denied: () => 'use a port above 1023, or --ui alone for any free port',
  bad_ui_host: () => 'use --ui 127.0.0.1:PORT',
  ui_listen_failed: () => 'check the --ui address',
};
