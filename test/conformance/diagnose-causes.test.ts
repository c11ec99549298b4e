/**
 * The same grouping for any run: failures one cause explains are reported once, with the checks it explains,
 * grouped conservatively (a refusal of valid requests from two checks on; the same wrong answer to checks of one
 * kind from three on); every check keeps its result. The signings a diagnosis tries are checked against Python's
 * own json.dumps, run here, and against the reference receiver made to verify over JSON.stringify.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerShape } from '../../src/conformance/diagnose/refusal.js';
import { groupCauses } from '../../src/conformance/diagnose/causes.js';
import { VARIANTS, correctHeaders, type SigningInput } from '../../src/conformance/diagnose/variants.js';
import { runConformance } from '../../src/conformance/run-receiver.js';
import { hmacHex, signedPayload } from '../../src/signing/sign.js';
import type { CheckResult } from '../../src/conformance/types.js';
import { runCli } from '../helpers/cli.js';

const reproRoot = mkdtempSync(join(tmpdir(), 'cai-diagnose-causes-'));
afterAll(() => rmSync(reproRoot, { recursive: true, force: true }));

type Row = Pick<CheckResult, 'id' | 'verdict' | 'expected' | 'actual' | 'tags'>;
const row = (id: string, actual: string, rest: Partial<Row> = {}): Row => ({
  id,
  verdict: 'failed',
  expected: '400 (rejected: invalid schema)',
  actual,
  tags: ['schema'],
  ...rest,
});

describe('groupCauses', () => {
  it('valid requests refused alike, whatever each check probed, from two checks on', () => {
    const accepted = { expected: '2xx (accepted)', tags: ['acceptance'] };
    const causes = groupCauses([
      row('B-ACCEPT-001', '403 {"error":"origin 10.0.0.7 not allowed","request":"a1b2c3d4e5f6"}', accepted),
      row('B-SIG-004', '403 {"error":"origin 10.0.0.7 not allowed","request":"f6e5d4c3b2a1"}', {
        ...accepted,
        tags: ['signature', 'raw-body'],
      }),
      row('B-DEDUP-001', '403 {"error":"origin 10.0.0.7 not allowed","request":"0000aaaa1111"}', {
        expected: '202 {"ok":true,"duplicate":true}',
        tags: ['dedupe'],
      }),
      row('B-FORMAT-001', '401 {"error":"bad signature"}', accepted),
    ]);
    expect(causes).toEqual([
      {
        id: 'cause-1',
        kind: 'valid-refused',
        verdict: 'failed',
        summary: '3 valid, correctly signed requests refused alike',
        expected: '2xx (accepted)',
        actual: '403 {"error":"origin 10.0.0.7 not allowed","request":"a1b2c3d4e5f6"}',
        checks: ['B-ACCEPT-001', 'B-SIG-004', 'B-DEDUP-001'],
      },
    ]);
  });

  it('the same wrong answer to checks of one kind, from three on; another kind, answer, verdict or expectation is another cause', () => {
    const causes = groupCauses([
      row('B-SCHEMA-003', '202 {"ok":true,"id":"cai-conf-1a2b-b-schema-003-4"}'),
      row('B-SCHEMA-004', '202 {"ok":true,"id":"cai-conf-1a2b-b-schema-004-5"}'),
      row('B-SCHEMA-005', '202 {"ok":true,"id":"cai-conf-1a2b-b-schema-005-6"}'),
      row('B-SCHEMA-015', '500 Internal Server Error'),
      row('B-AUTH-010', '202 {"ok":true}', { expected: '401 (rejected: authentication)', tags: ['auth', 'window'] }),
      row('B-AUTH-011', '202 {"ok":true}', { expected: '401 (rejected: authentication)', tags: ['auth', 'window'] }),
      row('B-AUTH-014', '202 {"ok":true}', { expected: '401 (rejected: authentication)', tags: ['auth', 'provider'] }),
      row('B-SCHEMA-006', '202 {"ok":true}', { verdict: 'waived' }),
      row('B-SCHEMA-007', '202 {"ok":true}', { verdict: 'passed' }),
    ]);
    expect(causes.map((cause) => [cause.kind, cause.summary, cause.checks])).toEqual([
      ['same-answer', '3 schema checks got the same wrong answer', ['B-SCHEMA-003', 'B-SCHEMA-004', 'B-SCHEMA-005']],
    ]);
  });

  it("an answer's identifiers and numbers aside, its words must match", () => {
    expect(answerShape('401 {"error":"bad signature","at":1732630000,"trace":"9f86d081884c7d65"}')).toBe(
      answerShape('401 {"error":"bad signature","at":1732630042,"trace":"0123456789abcdef"}'),
    );
    expect(answerShape('401 {"error":"bad signature"}')).not.toBe(answerShape('401 {"error":"unknown provider"}'));
    expect(answerShape('401 x')).not.toBe(answerShape('403 x'));
  });
});

describe('the signings a diagnosis tries', () => {
  // In no layout a serialiser writes: every re-serialisation differs from it.
  const body = Buffer.from(
    '{ "event":"conversation.message","event_id":"e-1","text":"Olá 👍 / ok","n":[1,{"b":true,"a":null}] }',
    'utf8',
  );
  const input: SigningInput = { secret: 'k', moreSecrets: [], nowSeconds: 1_700_000_000, body };
  const signedOver = (id: string) => VARIANTS.find((variant) => variant.id === id)?.headers(input)?.signature;
  const over = (text: string) => `sha256=${hmacHex('k', signedPayload('1700000000', Buffer.from(text, 'utf8')))}`;
  // Python computes its own re-serialisations of the same bytes (not cai's imitation of them).
  const python = (expression: string) =>
    execFileSync(
      'python3',
      ['-c', `import json,sys; doc=json.loads(sys.stdin.buffer.read()); sys.stdout.write(${expression})`],
      { input: body, encoding: 'utf8' },
    );

  it("sign exactly what Python's json.dumps writes, default and compact", () => {
    expect(signedOver('python-json-dumps')).toBe(over(python('json.dumps(doc)')));
    expect(signedOver('python-compact')).toBe(over(python('json.dumps(doc, separators=(",", ":"))')));
  });

  it('each differs from the correct signing and from every other, for a body with odd spacing, non-ASCII text, a slash and unsorted keys', () => {
    // A hex secret: every signing applies but the base64-decoded key.
    const secret = 'a1'.repeat(16);
    const signings = VARIANTS.map((variant) =>
      variant.headers({ ...input, otherSecret: 'o', moreSecrets: ['m'], secret }),
    ).filter((headers) => headers !== undefined);
    expect(signings).toHaveLength(VARIANTS.length - 1);
    expect(
      new Set([...signings, correctHeaders({ ...input, secret })].map((headers) => JSON.stringify(headers))).size,
    ).toBe(VARIANTS.length);
  });
});

describe('a run of the reference receiver with a fault: one cause for the checks it fails', () => {
  it('a verifier over JSON.stringify: its three refused checks are one cause, diagnosed; --json keeps every check', async () => {
    const result = await runCli([
      '--json',
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'reserialising-verifier',
      '--only',
      'signature',
      '--no-generate',
      '--repro-dir',
      join(reproRoot, 'r1'),
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      checks: { id: string; verdict: string }[];
      causes: { kind: string; checks: string[]; diagnosis: { cause: { variant: string; message: string } } }[];
    };
    expect(report.checks.filter((check) => check.verdict === 'failed').map((check) => check.id)).toEqual([
      'B-SIG-001',
      'B-SIG-003',
      'B-SIG-005',
    ]);
    expect(report.causes).toHaveLength(1);
    expect(report.causes[0]).toMatchObject({
      kind: 'valid-refused',
      checks: ['B-SIG-001', 'B-SIG-003', 'B-SIG-005'],
      diagnosis: { cause: { variant: 'js-stringify' } },
    });
    expect(report.causes[0]?.diagnosis.cause.message).toMatch(
      /^your receiver accepts the signature computed over JavaScript's JSON\.stringify re-serialisation of the parsed body/,
    );
  });

  it('a receiver without schema validation: the human report shows the cause once, with its checks and one reproduction', async () => {
    const result = await runCli([
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'lax-schema',
      '--only',
      'schema',
      '--no-generate',
      '--format',
      'table',
      '--repro-dir',
      join(reproRoot, 'r2'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      [
        '✗ 12 schema checks got the same wrong answer',
        '  expected: 400 (rejected: invalid schema)',
        '  actual:   202 {"ok":true}',
        '  checks:   B-SCHEMA-003, B-SCHEMA-004, B-SCHEMA-005, B-SCHEMA-006, B-SCHEMA-007, B-SCHEMA-008, B-SCHEMA-009, B-SCHEMA-010, B-SCHEMA-011, B-SCHEMA-012, B-SCHEMA-013, B-SCHEMA-014',
        '  repro:    cai conformance run --interface B --mock --break lax-schema --no-generate --format table --only B-SCHEMA-003 (B-SCHEMA-003)',
      ].join('\n'),
    );
    // No block of its own for a check the cause explains.
    expect(result.stdout).not.toMatch(/^✗ B-SCHEMA-0/m);
    expect(result.stdout).toMatch(/^10 passed, 12 failed, 1 skipped$/m);
  });

  it('a passing run has no cause and no diagnosis', async () => {
    const report = await runConformance({
      interface: 'B',
      mock: true,
      selection: { only: ['acceptance'], skip: [], include: [] },
      reproDir: join(reproRoot, 'r3'),
      // The named checks only: the stateful phase adds nothing to what a cause is, and on a loaded machine its
      // timing edges are another file's subject (explore.test.ts).
      explore: false,
    });
    const failed = report.checks.filter((check) => check.verdict === 'failed' || check.verdict === 'warning');
    expect(failed.map((check) => `${check.id}: ${check.actual}`)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.causes).toEqual([]);
    expect(report.diagnosis).toBeUndefined();
  });
});
