/**
 * A waiver's `expires` must be a day of the calendar: Date.parse rolls 2027-02-30 over to 2 March, and the waiver
 * used to be applied and shown `until 2027-02-30`. Refused like any bad date (exit 2); real dates still apply.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseWaivers } from '../../src/conformance/waivers.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-waiver-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const waiverExpiring = (expires: string) => JSON.stringify([{ id: 'B-SIZE-001', reason: 'x', expires }]);
const BAD_DATE = 'entry 1 (B-SIZE-001): "expires" must be an ISO date such as "2026-12-31"';

describe('waiver expiry dates', () => {
  it.each(['2027-02-30', '2027-02-29', '2027-04-31', '2027-02-30T10:00:00Z', '2027-02-28junk'])(
    '%s is refused',
    (expires) => {
      expect(parseWaivers(waiverExpiring(expires))).toEqual({ ok: false, message: BAD_DATE });
    },
  );

  it.each([
    ['2028-02-29', Date.parse('2028-02-29T23:59:59.999Z')],
    ['2027-12-31', Date.parse('2027-12-31T23:59:59.999Z')],
    ['2027-02-28T10:00:00Z', Date.parse('2027-02-28T10:00:00Z')],
  ])('%s is taken', (expires, expiresAt) => {
    expect(parseWaivers(waiverExpiring(expires))).toEqual({
      ok: true,
      waivers: [{ id: 'B-SIZE-001', reason: 'x', expires, expiresAt }],
    });
  });

  it('conformance run: a waivers file with 2027-02-30 is a usage error, one error and one hint line', async () => {
    const file = join(dir, 'waivers.json');
    writeFileSync(file, waiverExpiring('2027-02-30'));
    const result = await runCli([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--only',
      'B-SIZE-001',
      '--waivers',
      file,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: waivers file ${file}: ${BAD_DATE}\nhint: write it as [{"id": "B-SIZE-001", "reason": "…", "expires": "2026-12-31"}]\n`,
    );
  });
});
