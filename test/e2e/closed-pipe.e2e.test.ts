/**
 * The exit status survives a reader that goes away: `cai send-event … 2>&1 | true` exits as it would unpiped (3 for a
 * delivery that failed), not 0 at the first write that meets the closed pipe.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { deadLoopbackPort } from '../helpers/dead-port.js';

/** Like `cai … 2>&1 | true`: stdout and stderr are one pipe whose reader is gone before cai writes anything. */
function runIntoClosedPipe(argv: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1', CAI_SECRET: 'whsec_pipe_test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    child.stderr.destroy();
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

describe('a closed output pipe', () => {
  it('keeps exit 3 for a delivery that failed', async () => {
    const port = await deadLoopbackPort();
    expect(
      await runIntoClosedPipe([
        'send-event',
        '--to',
        `http://127.0.0.1:${port}/events`,
        '--provider',
        'acme',
        '--sample',
      ]),
    ).toBe(3);
  });

  it('keeps exit 2 for a usage error', async () => {
    expect(await runIntoClosedPipe(['send-event', '--provider', 'acme', '--sample'])).toBe(2);
  });
});
