/**
 * `cai mock platform` and `cai mock provider`, their action: the mock started (start.ts) with its lines and, with
 * --ui, its inspector, served until Ctrl-C. Loaded when the command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import type { MockLines } from './lines.js';
import { startPlatform, startProvider, type Started } from './start.js';
import type { PlatformCommandOptions, ProviderCommandOptions } from './start.js';

/** The options of either mock, as its action takes them. */
export type MockOptions = PlatformCommandOptions | ProviderCommandOptions;

export function runMock(
  which: 'platform' | 'provider',
  options: MockOptions,
  context: CommandContext,
): Promise<number> {
  return serve(context, (lines) =>
    which === 'platform'
      ? startPlatform(options as PlatformCommandOptions, context, lines)
      : startProvider(options as ProviderCommandOptions, context, lines),
  );
}

/**
 * Runs a mock until SIGINT/SIGTERM, then lets the requests in flight finish and flushes the log. The interrupt is
 * subscribed first thing, so a Ctrl-C during start-up is not missed.
 */
async function serve(context: CommandContext, start: (lines: MockLines) => Promise<Started>): Promise<number> {
  const { io, output } = context;
  let off = () => {};
  const interrupted = new Promise<NodeJS.Signals>((resolve) => {
    off = io.onInterrupt((received) => {
      off();
      resolve(received);
    });
  });
  try {
    const [{ MockLines }, { waitNotice }] = await Promise.all([
      import('./lines.js'),
      import('../../output/wait-notice.js'),
    ]);
    const lines = new MockLines(output);
    // Reloading a long --log takes a while: a CI log is told what it waits for.
    const starting = waitNotice(output, io.now);
    starting.set({ what: 'the mock to start (reloading its --log, opening its port)' });
    const { mock, notes, ui } = await start(lines).finally(() => starting.stop());
    lines.announce(mock.url, notes, ui?.url);
    const signal = await interrupted;
    output.info(`${signal}: finishing requests in flight…`);
    await mock.close();
    await ui?.close();
    lines.flush();
    output.info('stopped');
    return 0;
  } finally {
    off();
  }
}
