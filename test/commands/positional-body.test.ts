/**
 * A file given as an argument, as curl or Hurl take one (`cai send-event … event.json`), is a usage error whose
 * hint names --body, for the commands that read a body; other commands keep the plain hint.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('an extra argument', () => {
  it.each([
    [['send-event', '--to', 'http://127.0.0.1:9/events', '--provider', 'acme', 'event.json'], 'send-event'],
    [['send-job', '--to', 'http://127.0.0.1:9', '--source', 'platform', 'job.json'], 'send-job'],
    [['sign', 'event.json'], 'sign'],
    [['verify', 'event.json'], 'verify'],
  ])('%j: exit 2, the hint names --body', async (argv, command) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: too many arguments for '${command}'. Expected 0 arguments but got 1.\n` +
        `hint: a file to send, sign or check is given with --body FILE (- for stdin); run 'cai ${command} --help' for its options and examples\n`,
    );
  });

  it('a command without --body keeps the plain hint', async () => {
    const result = await runCli(['schema', 'a', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\nhint: run 'cai schema --help' for its options and examples\n$/);
  });
});
