/**
 * A document nested far deeper than any recursive walk's stack (100 000 levels: §9.2 lets a sender add fields, and
 * docs/limits.md says such a document is judged like any other) is answered and recorded by the sender run's
 * listener, like any other. The sender is a plain Node program, signing by §5.2 itself, through the built binary.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-deep-document-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SENDER = `
import { createHmac } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { request } from 'node:http';
const depth = Number(process.env.DEPTH);
const body = '{"event":"job.closed","event_id":"evt_deep_' + process.env.CAI_SCENARIO + '","lead_id":"lead-1",' +
  '"provider_job_id":"pj_1","occurred_at":"2026-11-29T17:00:00Z","x":' + '['.repeat(depth) + ']'.repeat(depth) + '}';
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = 'sha256=' + createHmac('sha256', process.env.CAI_SECRET).update(timestamp + '.' + body).digest('hex');
const headers = { 'content-type': 'application/json', 'x-cai-provider': 'acme', 'x-cai-timestamp': timestamp, 'x-cai-signature': signature };
const req = request(process.env.CAI_TARGET_URL, { method: 'POST', headers }, (res) => {
  res.resume();
  appendFileSync(process.env.HEARD, res.statusCode + '\\n');
});
req.on('error', (error) => appendFileSync(process.env.HEARD, 'error ' + error.message + '\\n'));
req.end(body);
`;

it.each([5_000, 100_000])('a document nested %i levels deep is answered 202 and judged', async (depth) => {
  const script = join(dir, 'sender.mjs');
  writeFileSync(script, SENDER);
  const heard = join(dir, `heard-${depth}.txt`);
  const result = await spawnCli(
    [
      '--json',
      'conformance',
      'run',
      '--role',
      'sender',
      '--interface',
      'B',
      '--provider',
      'acme',
      '--secret-env',
      'CAI_SECRET',
      '--trigger',
      `node ${JSON.stringify(script)}`,
      '--only',
      'BS-HDR-001',
      '--no-generate',
      '--wait',
      '5s',
      '--observe',
      '300ms',
    ],
    { env: { CAI_SECRET: 'whsec_deep_document_0123456789', DEPTH: String(depth), HEARD: heard } },
  );
  expect(readFileSync(heard, 'utf8').trim().split('\n'), result.stderr).toEqual(['202']);
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string }[] };
  expect(report.checks.find((check) => check.id === 'BS-HDR-001')?.verdict).toBe('passed');
});
