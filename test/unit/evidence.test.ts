/**
 * A failing check's evidence as report data (src/conformance/evidence.ts): bodies as text up to a limit or binary as
 * a summary, no Buffers, no recipe (its wrong-secret variant holds a secret), and on a real failing run in `--json`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordBody, recordExchange } from '../../src/conformance/evidence.js';
import type { SuiteReport } from '../../src/conformance/types.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-evidence-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recordBody', () => {
  it('keeps UTF-8 text, cut after the limit', () => {
    expect(recordBody(Buffer.from('{"a":"é"}'))).toEqual({ bytes: 10, text: '{"a":"é"}' });
    expect(recordBody(Buffer.from('abcdef'), 4)).toEqual({ bytes: 6, text: 'abcd', truncated: true });
    expect(recordBody(Buffer.alloc(0))).toEqual({ bytes: 0, text: '' });
  });

  it('summarises binary data: size, SHA-256 and the first 32 bytes', () => {
    const binary = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.alloc(40, 0x41)]);
    expect(recordBody(binary)).toEqual({
      bytes: 42,
      sha256: createHash('sha256').update(binary).digest('hex'),
      hexPrefix: binary.subarray(0, 32).toString('hex'),
    });
  });
});

describe('recordExchange', () => {
  const request = {
    url: 'http://127.0.0.1:1/events',
    headers: { 'x-cai-signature': 'sha256=ab' },
    body: Buffer.from('{}'),
    recipe: { body: Buffer.from('{}'), signature: { kind: 'wrong-secret' as const, secret: 'not-the-secret' } },
    sentAtMs: 0,
  };

  it('keeps the request and the answer as plain data, without the recipe', () => {
    const record = recordExchange({
      request,
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"ok":false}'),
      latencyMs: 3.6,
      answeredAtMs: 4,
      rateLimitedRetries: 0,
    });
    expect(record).toEqual({
      request: {
        method: 'POST',
        url: 'http://127.0.0.1:1/events',
        headers: { 'x-cai-signature': 'sha256=ab' },
        body: { bytes: 2, text: '{}' },
      },
      response: {
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: { bytes: 12, text: '{"ok":false}' },
      },
      latencyMs: 4,
    });
    expect(JSON.stringify(record)).not.toContain('not-the-secret');
  });

  it('says why there was no answer', () => {
    const record = recordExchange({
      request,
      headers: {},
      body: Buffer.alloc(0),
      latencyMs: 10,
      answeredAtMs: 10,
      error: { code: 'timeout', message: 'no answer within 10 s' },
      rateLimitedRetries: 0,
    });
    expect(record.response).toBeUndefined();
    expect(record.error).toEqual({ code: 'timeout', message: 'no answer within 10 s' });
  });
});

describe('a failing run', () => {
  it("carries each failure's exchange in --json, and no exchange for passing checks", async () => {
    const result = await runCli([
      '--json',
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--only',
      'B-DEDUP-001,B-ACCEPT-001',
      '--repro-dir',
      dir,
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as SuiteReport;
    const [accepted, dedupe] = report.checks;
    expect(accepted?.exchange).toBeUndefined();
    expect(dedupe?.exchange?.request.url).toBe(report.target);
    expect(dedupe?.exchange?.request.headers['x-cai-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(dedupe?.exchange?.request.body.text ?? '')).toMatchObject({ event: 'conversation.message' });
    expect(dedupe?.exchange?.response).toMatchObject({ status: 202, body: { text: '{"ok":true}' } });
  });
});
