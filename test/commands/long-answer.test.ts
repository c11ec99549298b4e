/**
 * A verdict on the answer's status and its first MiB: a 2xx whose body is over what cai reads (1 MiB) is accepted
 * (§6.5: any 2xx means accepted), with a note that the rest was not read. Before: cai cut the body itself, then
 * judged the cut ("rejected … not JSON", exit 1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const env = { CAI_SECRET: 'whsec_long_answer' };
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A JSON body of 2 MiB: valid JSON in full, not in its first MiB. */
const LONG = JSON.stringify({ ok: true, padding: 'x'.repeat(2 * 1024 * 1024) });

describe('a 2xx answer over 1 MiB', () => {
  it('send-event: accepted, with a note that the rest was not read', async () => {
    server = await startScriptedServer([{ status: 202, headers: { 'content-type': 'application/json' }, body: LONG }]);
    const result = await runCli(['send-event', '--to', `${server.url}/events`, '--provider', 'acme', '--sample'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^✔ accepted: a new event \(202 Accepted\)\n  note: only the start of the body was read .*the rest was not read, so the verdict rests on the status; whether the event counted as a duplicate \(§2\.13\) is not known\n/,
    );
    expect(result.stdout).toContain('(cut at 1 MiB: the rest was discarded and the connection closed)');
  });

  it('send-event --json: accepted, duplicate unknown (null), the note', async () => {
    server = await startScriptedServer([{ status: 202, headers: { 'content-type': 'application/json' }, body: LONG }]);
    const result = await runCli(
      ['--json', 'send-event', '--to', `${server.url}/events`, '--provider', 'acme', '--sample'],
      { env },
    );
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      verdict: string;
      duplicate: unknown;
      notes: string[];
      problems: string[];
      response: { bodyTruncated: boolean };
    };
    expect(doc).toMatchObject({
      verdict: 'accepted',
      duplicate: null,
      problems: [],
      response: { bodyTruncated: true },
    });
    expect(doc.notes).toHaveLength(1);
  });

  it('send-job: accepted on its 202, the acknowledgment not checked, and said so', async () => {
    server = await startScriptedServer([{ status: 202, headers: { 'content-type': 'application/json' }, body: LONG }]);
    const result = await runCli(
      [
        'send-job',
        '--to',
        server.url,
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('provider_job_id and assigned_number_e164 (§2.3) were not checked');
  });

  it('a 200 job answer over 1 MiB is still refused for its status (§4.1: 202)', async () => {
    server = await startScriptedServer([{ status: 200, headers: { 'content-type': 'application/json' }, body: LONG }]);
    const result = await runCli(
      [
        'send-job',
        '--to',
        server.url,
        '--source',
        'platform',
        '--sample',
        '--callback-url',
        'https://platform.example/cb',
      ],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('status 200: §4.1 answers an accepted job with 202');
  });
});
