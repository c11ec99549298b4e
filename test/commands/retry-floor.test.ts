/**
 * The sending commands against a receiver that sheds load with `Retry-After: 0` (§7, §8): send-event, send-job,
 * replay and a batch wait at least the backoff between attempts, growing on repeats, and say a run of the same
 * answer in two lines, not one line per attempt. Before: thousands of attempts in seconds, a line each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-retry-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { CAI_SECRET: 'whsec_retry_floor' };
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A receiver that answers every request 429 with `Retry-After: 0`. */
async function shedding(): Promise<ScriptedServer> {
  server = await startScriptedServer([
    { status: 429, headers: { 'retry-after': '0' }, body: { ok: false, error: 'rate_limited' } },
  ]);
  return server;
}

// --initial-delay 50ms within --retry-for 5s: waits of 25–50, 50–100, … 1 600–3 200 ms, so at most 8 attempts (at the
// floor of 0 the same seconds held thousands). 5 s, not 1.5: in CI a busy machine held the first answer up so long
// that no retry fitted in 1.5 s.
const PACE = ['--initial-delay', '50ms', '--retry-for', '5s'];

function expectFloor(requests: number, stderr: string): void {
  expect(requests).toBeGreaterThanOrEqual(3);
  expect(requests).toBeLessThanOrEqual(8);
  const lines = stderr.split('\n');
  expect(
    lines.filter((line) =>
      /^attempt 1: 429 Too Many Requests, Retry-After 0 in .*; retrying in \d+ ms \(backoff: Retry-After asked for less\)$/.test(
        line,
      ),
    ),
  ).toHaveLength(1);
  expect(
    lines.filter((line) =>
      /^attempts 2–\d+: the same answer \(\d+ times\); waits [\d.]+ m?s to [\d.]+ m?s$/.test(line),
    ),
  ).toHaveLength(1);
  expect(lines.filter((line) => line.startsWith('attempt '))).toHaveLength(1);
}

describe('Retry-After: 0', () => {
  it('send-event waits the backoff between attempts and says the run once', async () => {
    const target = await shedding();
    const result = await runCli(
      ['send-event', '--to', `${target.url}/events`, '--provider', 'acme', '--sample', ...PACE],
      { env },
    );
    expect(result.code).toBe(3);
    expectFloor(target.requests.length, result.stderr);
  });

  it('send-job too', async () => {
    const target = await shedding();
    const result = await runCli(
      [
        'send-job',
        '--to',
        target.url,
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
        ...PACE,
      ],
      { env },
    );
    expect(result.code).toBe(3);
    expectFloor(target.requests.length, result.stderr);
  });

  it('replay too', async () => {
    const target = await shedding();
    const capture = join(dir, 'capture.http');
    writeFileSync(
      capture,
      (
        await runCli(
          ['send-event', '--to', 'https://platform.example/events', '--provider', 'acme', '--sample', '--dry-run'],
          { env },
        )
      ).stdout,
    );
    const result = await runCli(['replay', '--request', capture, '--to', `${target.url}/events`, ...PACE], { env });
    expect(result.code).toBe(3);
    expectFloor(target.requests.length, result.stderr);
  });

  it('a batch: each document waits the floor', async () => {
    const target = await shedding();
    const file = join(dir, 'events.ndjson');
    const line = (n: number) =>
      JSON.stringify({
        event: 'job.closed',
        event_id: `evt_floor_${n}`,
        lead_id: 'lead_1',
        outcome: 'no_answer',
        attempts: 1,
        occurred_at: '2026-11-22T13:05:00+00:00',
      });
    writeFileSync(file, `${line(1)}\n${line(2)}\n`);
    const result = await runCli(
      ['send-event', '--to', `${target.url}/events`, '--provider', 'acme', '--ndjson', file, ...PACE],
      { env },
    );
    expect(result.code).toBe(3);
    expect(target.requests.length).toBeGreaterThanOrEqual(6);
    expect(target.requests.length).toBeLessThanOrEqual(16);
  });
});
