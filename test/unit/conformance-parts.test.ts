import { describe, expect, it } from 'vitest';
import { bodyOfSize, escapedField, looseLayout, reversedKeys } from '../../src/conformance/probe/bodies.js';
import { clockFromResponse, retryAfterMs } from '../../src/conformance/probe/session.js';
import { isWellFormedRetryAfter } from '../../src/spec/retry-after.js';
import { parseWaivers } from '../../src/conformance/waivers.js';
import { countLine } from '../../src/conformance/reporters/text.js';
import { redactDeep } from '../../src/conformance/reporters/index.js';
import { renderJunit } from '../../src/conformance/reporters/junit.js';
import { secretFlagFor } from '../../src/commands/common/secret-options.js';
import type { SuiteReport } from '../../src/conformance/types.js';

const doc = { event: 'conversation.message', event_id: 'e-1', text: 'Olá 日本 👍 a/b', nested: { b: 1, a: [1, 'x'] } };

describe('non-canonical layouts', () => {
  it('parse back to the same document, with other bytes than JSON.stringify', () => {
    for (const text of [looseLayout(doc), JSON.stringify(reversedKeys(doc)), escapedField(doc, 'text')]) {
      expect(JSON.parse(text)).toEqual(doc);
    }
    expect(looseLayout(doc)).not.toBe(JSON.stringify(doc));
    expect(escapedField(doc, 'text')).toContain('\\u65e5\\u672c\\u0020\\ud83d\\udc4d\\u0020\\u0061\\/\\u0062');
    expect(escapedField(doc, 'text')).not.toBe(JSON.stringify(JSON.parse(escapedField(doc, 'text'))));
  });

  it('pads a body to an exact size', () => {
    expect(bodyOfSize(doc, 'text', 262_145).length).toBe(262_145);
    expect(JSON.parse(bodyOfSize(doc, 'text', 1000).toString()).event_id).toBe('e-1');
  });
});

describe('Retry-After and the clock', () => {
  it('reads seconds and HTTP dates, and falls back to a back-off', () => {
    expect(retryAfterMs('2', 1)).toBe(2000);
    expect(retryAfterMs(undefined, 1)).toBe(250);
    expect(retryAfterMs('9999', 1, 5000)).toBe(5000);
    expect(retryAfterMs(new Date(Date.now() + 3000).toUTCString(), 1)).toBeGreaterThan(1000);
    expect(isWellFormedRetryAfter('0')).toBe(true);
    expect(isWellFormedRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(true);
    expect(isWellFormedRetryAfter('soon')).toBe(false);
    expect(isWellFormedRetryAfter(undefined)).toBe(false);
  });

  it('measures the offset from the Date header', () => {
    const sent = Date.parse('2026-11-22T13:00:00.000Z');
    expect(clockFromResponse('Sun, 22 Nov 2026 13:01:00 GMT', sent, sent + 20).offsetSeconds).toBe(60);
    expect(clockFromResponse(undefined, sent, sent).offsetSeconds).toBeNull();
    expect(clockFromResponse('Sun, 22 Nov 2026 12:59:58 GMT', sent, sent + 20).offsetSeconds).toBe(-2);
  });

  it("reads a clock that agrees with cai's as 0, also when its second turned during the round trip", () => {
    const sent = Date.parse('2026-11-22T13:00:00.950Z');
    // Written at 13:00:01.0x on both clocks: the mid-point (13:00:01.000) alone rounds to one second ahead.
    expect(clockFromResponse('Sun, 22 Nov 2026 13:00:01 GMT', sent, sent + 100).offsetSeconds).toBe(0);
    expect(clockFromResponse('Sun, 22 Nov 2026 13:00:00 GMT', sent, sent + 100).offsetSeconds).toBe(0);
  });
});

describe('waivers', () => {
  it('accepts the documented shape and names the broken entry', () => {
    const parsed = parseWaivers('[{"id":"b-size-001","reason":"proxy limit","expires":"2026-12-31"}]');
    expect(parsed.ok && parsed.waivers[0]?.id).toBe('B-SIZE-001');
    expect(parsed.ok && parsed.waivers[0]?.expiresAt).toBe(Date.parse('2026-12-31T23:59:59.999Z'));
    expect(parseWaivers('{}')).toEqual({ ok: false, message: 'expected a JSON array of {"id", "reason", "expires"}' });
    expect(parseWaivers('[{"id":"B-SIZE-001"}]')).toEqual({
      ok: false,
      message: 'entry 1 (B-SIZE-001): "reason" is required',
    });
    expect(parseWaivers('[{"id":"B-SIZE-001","reason":"x","expires":"soon"}]').ok).toBe(false);
    expect(
      parseWaivers('[{"id":"B-SIZE-001","reason":"x"},{"id":"b-size-001","reason":"y","expires":"2026-12-31"}]'),
    ).toEqual({
      ok: false,
      message: 'entry 2 (b-size-001): entry 1 waives that check already',
    });
  });
});

describe('reports', () => {
  const report: SuiteReport = {
    ok: false,
    version: { tool: '0.2.0', spec: '1.0', catalogue: '0123456789abcdef' },
    target: 'http://127.0.0.1:1/events',
    interface: 'B',
    mock: false,
    startedAt: '2026-11-22T13:00:00.000Z',
    durationMs: 1234,
    clock: { offsetSeconds: 0, dateHeader: 'x' },
    summary: { passed: 1, failed: 1, skipped: 1, warnings: 1, waived: 0, notJudged: 0, total: 4 },
    waivers: [],
    checks: [
      {
        role: 'receiver',
        id: 'B-X-001',
        interface: 'B',
        title: 'ok <&>',
        sections: ['§7'],
        section: '§7',
        level: 'must',
        tags: ['t'],
        optional: false,
        verdict: 'passed',
        expected: '202',
        actual: '202',
        durationMs: 3,
        notes: [],
        requests: 1,
        rateLimitedRetries: 0,
      },
      {
        role: 'receiver',
        id: 'B-X-002',
        interface: 'B',
        title: 'bad',
        sections: ['§7'],
        section: '§7',
        level: 'must',
        tags: ['t'],
        optional: false,
        verdict: 'failed',
        expected: '401',
        actual: '202 "s3cr3t-value"',
        durationMs: 3,
        notes: [],
        requests: 1,
        rateLimitedRetries: 0,
        repro: { command: 'cai send-event …', bodyFile: '/tmp/b' },
      },
      {
        role: 'receiver',
        id: 'B-X-003',
        interface: 'B',
        title: 'warn',
        sections: ['§5.5'],
        section: '§5.5',
        level: 'should',
        tags: ['t'],
        optional: false,
        verdict: 'warning',
        expected: '202',
        actual: '401',
        durationMs: 3,
        notes: [],
        requests: 1,
        rateLimitedRetries: 0,
      },
      {
        role: 'receiver',
        id: 'B-X-004',
        interface: 'B',
        title: 'skip',
        sections: ['§5.7'],
        section: '§5.7',
        level: 'must',
        tags: ['t'],
        optional: true,
        verdict: 'skipped',
        expected: '-',
        actual: 'optional',
        durationMs: 0,
        notes: [],
        requests: 0,
        rateLimitedRetries: 0,
      },
    ],
  };

  it('prints the count line', () => {
    expect(countLine(report.summary)).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('writes JUnit with one testcase per check, properties, failures and skips', () => {
    const xml = renderJunit(report, { warningsFail: false });
    expect(xml.match(/<testcase /g)?.length).toBe(4);
    expect(xml).toContain('<property name="section" value="§5.5"/>');
    expect(xml).toContain('name="B-X-001 ok &lt;&amp;&gt;"');
    expect(xml.match(/<failure /g)?.length).toBe(1);
    expect(xml).toContain('<skipped message="optional"/>');
    expect(xml).toContain('repro: cai send-event …');
    expect(renderJunit(report, { warningsFail: true }).match(/<failure /g)?.length).toBe(2);
  });

  it('redacts secrets in every string', () => {
    expect(JSON.stringify(redactDeep(report, ['s3cr3t-value']))).not.toContain('s3cr3t-value');
  });

  it('passes secret flags through, never values', () => {
    expect(secretFlagFor('--secret-env CAI_EVENTS')).toBe('--secret-env CAI_EVENTS');
    expect(secretFlagFor('--secret-file ./my secret')).toBe("--secret-file './my secret'");
    expect(secretFlagFor('--secret #1')).toBe('--secret-env CAI_SECRET');
    expect(secretFlagFor('CAI_SECRET')).toBe('--secret-env CAI_SECRET');
    expect(secretFlagFor(undefined)).toBe('--secret-env CAI_SECRET');
  });
});
