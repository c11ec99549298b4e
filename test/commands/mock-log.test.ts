import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordLine, type MockLogRecordHead } from '../../src/mock/log.js';
import { runCli } from '../helpers/cli.js';

const env = { CAI_SECRET: 'live-secret-0123456789', CAI_CALLBACK_SECRET: 'events-secret-0123456789' };
const dir = mkdtempSync(join(tmpdir(), 'cai-mock-log-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function line(eventId: string): string {
  const head: MockLogRecordHead = {
    v: 1,
    received_at: '2026-11-22T13:00:00.000Z',
    space: 'live',
    interface: 'B',
    kind: 'event',
    status: 202,
    verdict: 'accepted',
    provider_code: 'acme',
    event_id: eventId,
    event: 'job.closed',
    headers: {},
  };
  return recordLine(head, Buffer.from(`{"event":"job.closed","event_id":"${eventId}","outcome":"no_answer"}`));
}

describe('cai mock --log (in-process)', () => {
  it('names the lines its reload skipped, and says which fsync mode it runs', async () => {
    const log = join(dir, 'torn.ndjson');
    const cut = line('cut').slice(0, 60);
    writeFileSync(log, [line('a'), `${cut}\n`, line('b'), `${cut}\n`, line('c')].join(''));
    const result = await runCli(['mock', 'platform', '--provider', 'acme', '--log', log], {
      env,
      interrupt: 'when-serving',
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`log ${log}, fsync everysec (3 accepted events reloaded for dedupe)\n`);
    expect(result.stderr).toContain(
      `2 lines of ${log} are not log records (a record cut short by a crash or a full disk, or foreign text) and were skipped: 2, 4\n`,
    );

    const one = join(dir, 'one.ndjson');
    writeFileSync(one, [line('a'), `${cut}\n`].join(''));
    const provider = await runCli(['mock', 'provider', '--provider', 'acme', '--log', one, '--fsync', 'always'], {
      env,
      interrupt: 'when-serving',
    });
    expect(provider.code).toBe(130);
    expect(provider.stderr).toContain(`log ${one}, fsync always\n`);
    expect(provider.stderr).toContain(
      `line 2 of ${one} is not a log record (a record cut short by a crash or a full disk, or foreign text) and was skipped\n`,
    );
  });

  it('refuses an unknown --fsync mode as usage (exit 2)', async () => {
    const result = await runCli(
      ['mock', 'platform', '--provider', 'acme', '--log', join(dir, 'x.ndjson'), '--fsync', 'sometimes'],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      "error: option '--fsync <mode>' argument 'sometimes' is invalid. Allowed choices are always, everysec, never.",
    );
  });
});
