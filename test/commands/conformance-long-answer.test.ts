/**
 * A receiver whose 2xx bodies are over what cai reads of an answer (1 MiB): a check of the body passes only on
 * evidence. When the part read decides it (a body that cannot be a JSON object carries no provider_job_id and no
 * `duplicate`, however long), the check is judged on it; otherwise it is not judged, with the reason. The
 * receivers are plain node:http servers, not cai's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const MIB = 1024 * 1024;
const NOT_JSON = 'A'.repeat(2 * MIB);
/** Valid in full, with everything a check looks for at its start: only its end is past what cai reads. */
const PADDED = JSON.stringify({
  ok: true,
  duplicate: true,
  provider_job_id: 'pj_1',
  assigned_number_e164: '+447700900123',
  padding: 'x'.repeat(2 * MIB),
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Answers every request 202, application/json, with `body`. */
async function alwaysAnswering(body: string): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(202, { 'content-type': 'application/json' });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

const env = { CAI_SECRET: 'whsec_long_answer_0123456789abcdef' };

async function verdicts(args: string[]): Promise<Record<string, { verdict: string; actual: string }>> {
  const result = await runCli(['--json', 'conformance', 'run', '--no-generate', ...args], { env });
  const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string; actual: string }[] };
  return Object.fromEntries(report.checks.map(({ id, verdict, actual }) => [id, { verdict, actual }]));
}

const B = (url: string) => ['--interface', 'B', '--target', `${url}/events`, '--provider', 'acme'];
const A = (url: string) => ['--interface', 'A', '--target', url, '--source', 'platform', '--branch-code', 'BR-1'];

describe('a 2xx body over 1 MiB', () => {
  it('B: a body that cannot be JSON is judged (labelled JSON, not JSON; not the duplicate answer)', async () => {
    const url = await alwaysAnswering(NOT_JSON);
    const checks = await verdicts([...B(url), '--only', 'B-ACCEPT-009,B-DEDUP-001']);
    expect(checks['B-ACCEPT-009']).toMatchObject({ verdict: 'warning' });
    expect(checks['B-ACCEPT-009']?.actual).toMatch(/^labelled "application\/json" but not JSON/);
    expect(checks['B-DEDUP-001']).toMatchObject({ verdict: 'failed' });
    expect(checks['B-DEDUP-001']?.actual).toMatch(/not answered as a repeat$/);
  });

  it('B: a body the part read cannot decide is not judged, never passed', async () => {
    const url = await alwaysAnswering(PADDED);
    const checks = await verdicts([...B(url), '--only', 'B-ACCEPT-009,B-DEDUP-001,B-ACCEPT-001']);
    expect(checks['B-ACCEPT-001']?.verdict).toBe('passed');
    for (const id of ['B-ACCEPT-009', 'B-DEDUP-001']) {
      expect(checks[id]?.verdict, id).toBe('not-judged');
      expect(checks[id]?.actual, id).toMatch(/over the size cai reads of an answer/);
    }
  });

  it('A: an acknowledgment that cannot be a JSON object fails; one that cannot be read is not judged', async () => {
    let checks = await verdicts([...A(await alwaysAnswering(NOT_JSON)), '--only', 'A-ACCEPT-002']);
    expect(checks['A-ACCEPT-002']).toMatchObject({ verdict: 'failed' });
    expect(checks['A-ACCEPT-002']?.actual).toMatch(/the body is not a JSON object \(§2\.3\)$/);
    await new Promise((resolve) => server?.close(resolve));
    checks = await verdicts([...A(await alwaysAnswering(PADDED)), '--only', 'A-ACCEPT-002,A-DEDUP-001']);
    expect(checks['A-ACCEPT-002']?.verdict).toBe('not-judged');
    // The repeat's acknowledgment must be the first's, which was not read: nothing to compare it with.
    expect(checks['A-DEDUP-001']?.verdict).toBe('not-judged');
    expect(checks['A-DEDUP-001']?.actual).toMatch(/first delivery's acknowledgment carried no provider_job_id/);
  });
});
