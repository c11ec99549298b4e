/**
 * `cai verify` names every problem of a request's signature headers (§5), not only the first verify() meets: a
 * stale timestamp and a signature no secret made, a missing signature and a missing timestamp, a malformed
 * timestamp and a malformed signature. One problem is one line, as before; --json lists them all in `problems`.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { everyProblem } from '../../src/signing/every-problem.js';
import { runCli } from '../helpers/cli.js';

const SECRET = 'whsec_verify_problems_0123456789';
const env = { CAI_SECRET: SECRET };
const NOW = 1_767_225_600;
const BODY = '{"event":"job.closed","event_id":"evt_1","outcome":"no_answer"}';
const dir = mkdtempSync(join(tmpdir(), 'cai-verify-problems-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sign = (timestamp: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${BODY}`).digest('hex')}`;

function capture(headers: Record<string, string>): string {
  const file = join(
    dir,
    `${Object.values(headers)
      .join('-')
      .replace(/[^a-z0-9]/gi, '')
      .slice(0, 40)}-${Math.random().toString(36).slice(2)}.http`,
  );
  const lines = Object.entries({
    Host: 'platform.example',
    'Content-Type': 'application/json',
    'X-CAI-Provider': 'acme',
    ...headers,
  }).map(([name, value]) => `${name}: ${value}`);
  writeFileSync(file, `POST /events HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${BODY}`);
  return file;
}

const verifyCapture = (headers: Record<string, string>, ...extra: string[]) =>
  runCli(['verify', '--request', capture(headers), '--now', String(NOW), ...extra], { env });

describe('cai verify: every problem', () => {
  it('a timestamp outside the window and a signature made with another secret: both named', async () => {
    const stale = String(NOW - 900);
    const result = await verifyCapture({
      'X-CAI-Timestamp': stale,
      'X-CAI-Signature': sign(stale, 'whsec_another_secret'),
    });
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('invalid (timestamp_too_old): the timestamp is 900 s old, outside the 300 s window');
    expect(lines[1]).toBe(
      '  also (signature_mismatch): the signature does not match the body and timestamp with any given secret',
    );
  });

  it('no signature and no timestamp: both named', async () => {
    const result = await verifyCapture({});
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').slice(0, 2)).toEqual([
      'invalid (missing_signature): the signature header is missing or empty',
      '  also (missing_timestamp): the timestamp header is missing or empty',
    ]);
  });

  it('a malformed timestamp and a malformed signature: both named; --json lists them', async () => {
    const result = await verifyCapture(
      { 'X-CAI-Timestamp': '1767225600000', 'X-CAI-Signature': 'sha256=ABC' },
      '--json',
    );
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { reason: string; problems: { reason: string }[] };
    expect(report.reason).toBe('malformed_timestamp');
    expect(report.problems.map((problem) => problem.reason)).toEqual(['malformed_timestamp', 'malformed_signature']);
  });

  it('one problem is one line, as before; a valid request has none', async () => {
    const stale = String(NOW - 900);
    const one = await verifyCapture({ 'X-CAI-Timestamp': stale, 'X-CAI-Signature': sign(stale) });
    expect(one.code).toBe(1);
    expect(one.stdout).not.toContain('also (');
    const valid = await verifyCapture(
      { 'X-CAI-Timestamp': String(NOW), 'X-CAI-Signature': sign(String(NOW)) },
      '--json',
    );
    expect(valid.code).toBe(0);
    expect((JSON.parse(valid.stdout) as { problems: unknown[] }).problems).toEqual([]);
  });

  it('two signature headers (one a valid signature): the note says the capture has two, read as one value', async () => {
    const result = await verifyCapture({
      'X-CAI-Timestamp': String(NOW),
      'X-CAI-Signature': sign(String(NOW)),
      'x-cai-signature': sign(String(NOW), 'whsec_another_secret'),
    });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toMatch(/^invalid \(malformed_signature\)/);
    expect(result.stderr).toContain(
      'note: the capture has 2 X-CAI-Signature headers (§4 sends one); read as one value',
    );
  });

  it("everyProblem starts with verify()'s own verdict", () => {
    const problems = everyProblem({
      secrets: SECRET,
      signature: undefined,
      timestamp: String(NOW + 900),
      rawBody: BODY,
      now: NOW,
    });
    expect(problems).toEqual([
      { reason: 'missing_signature', message: 'the signature header is missing or empty' },
      { reason: 'timestamp_in_future', message: 'the timestamp is 900 s in the future, outside the 300 s window' },
    ]);
  });
});
