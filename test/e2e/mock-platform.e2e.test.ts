import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMockLog } from '../../src/mock/log.js';
import { spawnCli } from '../helpers/cli.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';
import { startMockProcess, stopAllMockProcesses } from '../helpers/mock-process.js';
import { acknowledgedUntilKilled } from '../helpers/sigkill-load.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-mock-e2e-'));
afterAll(() => {
  stopAllMockProcesses();
  rmSync(dir, { recursive: true, force: true });
});
const env = { ACME_SECRET: LIVE_SECRET };

describe('cai mock platform (built binary)', () => {
  it('prints the URL first, one line per request, and stops cleanly on SIGINT (exit 130)', async () => {
    const mock = await startMockProcess(['mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET'], env);
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/events$/);
    const doc = event({ event_id: 'evt_cli_1', lead_id: 'lead-77' });
    expect((await post(mock.url, doc)).status).toBe(202);
    expect((await post(mock.url, doc, { secret: 'nope-nope-nope' })).status).toBe(401);
    const rejected = await mock.waitForLine((line) => line.includes('[401]'));
    expect(rejected).toMatch(/^[0-9:.]{12}  \[401\]  rejected .*invalid_signature: /);
    expect(mock.lines[1]).toMatch(/^[0-9:.]{12}  \[202\]  accepted   conversation\.message +evt_cli_1  lead=lead-77$/);
    mock.child.kill('SIGINT');
    expect(await mock.exited).toBe(130);
    expect(mock.stderr()).toContain('stopped');
  });

  it('--dedupe-capacity N remembers the last N event_ids: an older repeat is accepted as new', async () => {
    const mock = await startMockProcess(
      ['--json', 'mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET', '--dedupe-capacity', '2'],
      env,
    );
    const documents = new Map<string, Record<string, unknown>>();
    const verdicts: string[] = [];
    for (const id of ['evt_cap_1', 'evt_cap_2', 'evt_cap_2', 'evt_cap_3', 'evt_cap_1']) {
      if (!documents.has(id)) documents.set(id, event({ event_id: id }));
      const answer = await post(mock.url, documents.get(id));
      verdicts.push(`${id} ${answer.status} ${answer.text.includes('"duplicate":true') ? 'duplicate' : 'new'}`);
    }
    // evt_cap_1 fell out when evt_cap_3 came in (capacity 2): its repeat is new again; evt_cap_2's is not.
    expect(verdicts).toEqual([
      'evt_cap_1 202 new',
      'evt_cap_2 202 new',
      'evt_cap_2 202 duplicate',
      'evt_cap_3 202 new',
      'evt_cap_1 202 new',
    ]);
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toBe(0);
    const refused = await spawnCli(['mock', 'platform', '--provider', 'acme', '--dedupe-capacity', '0'], {
      env: { CAI_SECRET: LIVE_SECRET },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: option '--dedupe-capacity <n>' argument '0' is invalid/);
  });

  it('streams NDJSON with --json: {"url"} first, then one object per request', async () => {
    const mock = await startMockProcess(
      ['--json', 'mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET'],
      env,
    );
    expect(JSON.parse(mock.lines[0] as string)).toEqual({ url: mock.url });
    await post(mock.url, event({ event_id: 'evt_json_1' }));
    const line = await mock.waitForLine((l) => l.includes('evt_json_1'));
    expect(JSON.parse(line)).toMatchObject({
      interface: 'B',
      status: 202,
      verdict: 'accepted',
      event_id: 'evt_json_1',
      space: 'live',
      provider_code: 'acme',
      secret: 1,
    });
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toBe(0);
  });

  it('loses no acknowledged event to SIGKILL under load, and dedupes them after restart', async () => {
    const log = join(dir, 'sigkill.ndjson');
    const args = ['mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET', '--log', log];
    const first = await startMockProcess(args, env);
    const acknowledged = await acknowledgedUntilKilled(first.url, first.child);
    await first.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const stored = new Set(
      (await readMockLog(log)).records.filter((r) => r.verdict === 'accepted').map((r) => r.event_id),
    );
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);

    const second = await startMockProcess(args, env);
    expect(second.stderr()).toMatch(/[0-9]+ accepted events reloaded for dedupe/);
    const repeat = await post(second.url, { ...event(), event_id: acknowledged[0] });
    expect(repeat.json).toEqual({ ok: true, duplicate: true });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('reports bad usage as error + hint with exit 2', async () => {
    const missing = await spawnCli(['mock', 'platform', '--secret-env', 'ACME_SECRET'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "error: required option '--provider <code>' not specified\nhint: run 'cai mock platform --help' for its options and examples\n",
    );

    const fault = await spawnCli(
      ['mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET', '--break', 'nonsense'],
      { env },
    );
    expect(fault.code).toBe(2);
    expect(fault.stderr.split('\n')[0]).toMatch(
      /^error: option '--break <fault>' argument 'nonsense' is invalid\. not a fault: 'cai mock platform --help' lists the \d+ faults$/,
    );

    const cidr = await spawnCli(
      ['mock', 'platform', '--provider', 'acme', '--secret-env', 'ACME_SECRET', '--allow-origin', '10.0.0.0/40'],
      { env },
    );
    expect(cidr.code).toBe(2);
    expect(cidr.stderr.split('\n')[0]).toBe(
      "error: option '--allow-origin <cidr>' argument '10.0.0.0/40' is invalid. expected an address or CIDR block such as 203.0.113.0/24, 2001:db8::/32 or 127.0.0.1.",
    );

    const noSecret = await spawnCli(['mock', 'platform', '--provider', 'acme']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^error: .*\nhint: .*\n$/);
  });
});
