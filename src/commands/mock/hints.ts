/** The hints of the mocks' coded errors (src/mock, the inspector beside them), in the words of their flags. */
import type { HintWords } from '../../errors.js';

export const MOCK_HINTS: HintWords = {
  // src/inspector/server.ts: --ui HOST:PORT
  ui_port_in_use: () => 'choose another --ui HOST:PORT, or --ui alone for any free port',
  ui_port_denied: () => 'use a port above 1023, or --ui alone for any free port',
  bad_ui_host: () => 'use --ui 127.0.0.1:PORT',
  ui_listen_failed: () => 'check the --ui address',
};
