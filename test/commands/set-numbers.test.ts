/**
 * A `--set` number that a JSON number here (a double) cannot carry as written is refused, never silently changed:
 * out of range (1e999 would become null), underflowing to 0, or digits past what a double holds (a whole number
 * past 2^53, 9007199254740993.5, 0.30000000000000000001). The same number in double quotes is a string, and
 * numbers a double holds pass as before, whatever their notation.
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
    [
      '9007199254740993.0',
      '9007199254740993.0 has more digits than a JSON number here holds (it would become 9007199254740992)',
    ],
    [
      '100000000000000000000.5',
      '100000000000000000000.5 has more digits than a JSON number here holds (it would become 100000000000000000000)',
    ],
    [
      '0.30000000000000000001',
      '0.30000000000000000001 has more digits than a JSON number here holds (it would become 0.3)',
    ],
    [
      '[2.5,1.00000000000000001]',
      '1.00000000000000001 has more digits than a JSON number here holds (it would become 1)',
    ],
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
    ['-0.0e7', '0'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['1.2500e-2', '0.0125'],
    ['1e21', '1e+21'],
    ['5e-324', '5e-324'],
    ['{"text":"12345678901234567890"}', '{\n    "text": "12345678901234567890"\n  }'],
  ])('%s is taken as given', async (value, printed) => {
    const result = await sample(value);
    expect(result.stdout).toContain(`"attempts": ${printed}`);
    expect(result.stderr).not.toMatch(/^error:/m);
  });
});
