/**
 * A `--set` number that a JSON number here (a double) cannot carry as written is refused, never silently changed:
 * out of range (1e999 would become null), underflowing to 0, or a whole number past 2^53 that loses digits. The
 * same number in double quotes is a string, and numbers a double holds pass as before.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const env = { CAI_SECRET: 'whsec_set_numbers_0123456789abcdef' };
const sample = (value: string) => runCli(['sample', 'event', 'job.closed', '--set', `attempts=${value}`], { env });

describe('--set numbers a double cannot carry as written (exit 2, one error and one hint line)', () => {
  it.each([
    ['1e999', '1e999 is beyond the range of a JSON number here (it would become null)'],
    ['-1e999', '-1e999 is beyond the range of a JSON number here (it would become null)'],
    ['1e-999', '1e-999 is too close to 0 for a JSON number here (it would become 0)'],
    [
      '12345678901234567890',
      '12345678901234567890 is a whole number past 2^53, which loses digits (it would become 12345678901234567000)',
    ],
    [
      '9007199254740993',
      '9007199254740993 is a whole number past 2^53, which loses digits (it would become 9007199254740992)',
    ],
    ['{"nested":[1,1e400]}', '1e400 is beyond the range of a JSON number here (it would become null)'],
  ])('sample: %s', async (value, why) => {
    const result = await sample(value);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const written = why.split(' ')[0] as string;
    expect(result.stderr).toBe(
      `error: --set attempts: ${why}\nhint: write it in double quotes to send it as a string ("${written}")\n`,
    );
  });

  it('send-event refuses it before anything is sent', async () => {
    const result = await runCli(
      [
        'send-event',
        '--sample',
        'job.closed',
        '--set',
        'attempts=1e999',
        '--to',
        'http://127.0.0.1:9/events',
        '--provider',
        'acme',
      ],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --set attempts: 1e999 is beyond the range of a JSON number here/m);
    expect(result.stderr).not.toContain('null is not allowed');
  });

  it.each([
    ['"1e999"', '"1e999"'],
    ['9007199254740992', '9007199254740992'],
    ['1.5e3', '1500'],
    ['0.0', '0'],
    ['{"text":"12345678901234567890"}', '{\n    "text": "12345678901234567890"\n  }'],
  ])('%s is taken as given', async (value, printed) => {
    const result = await sample(value);
    expect(result.stdout).toContain(`"attempts": ${printed}`);
    expect(result.stderr).not.toMatch(/^error:/m);
  });
});
