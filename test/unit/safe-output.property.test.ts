/**
 * Issue 14, finding 6: nothing from the network or a user's file reaches the terminal unescaped. Properties over
 * arbitrary (and deliberately hostile) text: the escaping functions, then the renderers through a real Output, with
 * colour on and off: no control character, no escape sequence but the colours cai paints itself, no bidi control.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SendResult } from '../../src/http/send.js';
import { renderSendResult } from '../../src/commands/send/result.js';
import { MockLines } from '../../src/commands/mock/lines.js';
import { renderReport } from '../../src/commands/conformance/report.js';
import { describeRecord } from '../../src/commands/send/batch-summary.js';
import { renderDryRun } from '../../src/commands/send/dry-run-view.js';
import { Output } from '../../src/output/output.js';
import { loadPalette, plainPalette } from '../../src/output/palette.js';
import { jsonText, safeBlock, safeForTerminal, safeText } from '../../src/output/safe-text.js';
import type { CheckResult, SuiteReport } from '../../src/conformance/types.js';
import type { MockRequestEntry } from '../../src/mock/platform.js';
import { fakeIo } from '../helpers/cli.js';

/**
 * What a terminal acts on, or shows as another character: C0 but LF/HTAB, DEL, C1, the bidi embeddings/overrides/
 * isolates, U+2028/2029, a lone surrogate (written as UTF-8, U+FFFD).
 */
const ACTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** The SGR parameters chalk writes for the colours cai uses (red, green, yellow, blue, magenta, cyan, gray, dim, bold, underline). */
const CAI_SGR = new Set(['0', '1', '2', '4', '22', '24', '31', '32', '33', '34', '35', '36', '39', '90']);

/** Fragments that do harm on a terminal, mixed into arbitrary text. */
const HOSTILE = fc.constantFrom(
  '\u001b[2J',
  '\u001b[8m',
  '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
  '\u001b]0;title\u0007',
  '\u009b31m',
  '\u202e',
  '\u2066',
  '\r',
  '\u0000',
  '\u0007',
  '\u007f',
  '\u2028',
  '\ud800',
  '\udfff',
  '\u001bP',
  '\u001b[31m',
);
const text = fc
  .array(fc.oneof(fc.string({ unit: 'binary' }), HOSTILE), { maxLength: 6 })
  .map((parts) => parts.join(''));

/** Fails on any character a terminal acts on, and on any escape sequence but cai's own colours. */
function expectInert(output: string): void {
  const withoutColours = output.replace(/\u001b\[([0-9;]*)m/g, (_sequence, params: string) => {
    for (const param of params.split(';'))
      expect(CAI_SGR.has(param === '' ? '0' : param), `SGR ${params} is not one cai paints`).toBe(true);
    return '';
  });
  // A CR is layout only in CRLF; alone it moves back over the line.
  expect(withoutColours.replace(/\r\n/g, '\n')).not.toMatch(ACTIVE);
}

async function outputFor(
  colour: boolean,
  json = false,
): Promise<{ output: Output; io: ReturnType<typeof fakeIo>; written: () => string }> {
  const io = fakeIo();
  Object.assign(io.stdout, { isTTY: true, columns: 80 });
  Object.assign(io.stderr, { isTTY: true, columns: 80 });
  const palette = colour ? await loadPalette(1) : plainPalette;
  const output = new Output(io, { json, quiet: false, debug: true }, { stdout: palette, stderr: palette });
  return { output, io, written: () => io.out() + io.err() };
}

describe('the escaping functions', () => {
  it('safeText leaves nothing a terminal acts on, not even a line break', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(safeText(input)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      }),
    );
  });

  it('safeBlock keeps LF, HTAB and CRLF, and nothing else', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(safeBlock(input)).not.toMatch(/\u001b/);
        expectInert(safeBlock(input));
      }),
    );
  });

  it('safeForTerminal keeps SGR colours only when asked, everything else escaped', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(safeForTerminal(input, false)).not.toMatch(/\u001b/);
        expect(safeForTerminal(input, true).replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/\u001b/);
      }),
    );
  });

  it('jsonText is the same JSON value, with nothing a terminal acts on (JSON.stringify escapes C0, ESC included, but not DEL, C1 or bidi)', () => {
    expect(JSON.stringify('\u001b')).toBe('"\\u001b"');
    expect(JSON.stringify('\u009b\u202e\u2028')).toBe('"\u009b\u202e\u2028"');
    fc.assert(
      fc.property(fc.jsonValue(), text, (value, key) => {
        const document = { [key]: value, text: key };
        const printed = jsonText(document);
        expect(JSON.parse(printed)).toEqual(JSON.parse(JSON.stringify(document)));
        expect(printed).not.toMatch(ACTIVE);
      }),
    );
  });

  it('escapes visibly: \\x1b, \\u009b, \\u202e', () => {
    expect(safeText('a\u001b[31mb\u009bc\u202ed\ne')).toBe('a\\x1b[31mb\\u009bc\\u202ed\\ne');
    expect(safeBlock('a\r\nb\rc\td')).toBe('a\r\nb\\rc\td');
    // A lone surrogate (an event_id of "\ud800" in JSON) as its escape; a pair (an emoji) as it is.
    expect(safeText('a\ud800b\udfffc\ud83d\ude00')).toBe('a\\ud800b\\udfffc\ud83d\ude00');
    expect(safeBlock('\udc00\ud800')).toBe('\\udc00\\ud800');
  });
});

function sendResult(eventId: string, body: Buffer, header: string, problem: string): SendResult {
  const response = {
    status: 202,
    headers: { 'content-type': 'text/plain', 'retry-after': header, location: header },
    body,
    latencyMs: 3,
  };
  return {
    interface: 'B',
    // encodeURIComponent throws on a lone surrogate: a URL never holds one.
    url: `http://127.0.0.1:9/${encodeURIComponent(header.replace(/[\ud800-\udfff]/g, ''))}`,
    eventId,
    verdict: 'rejected',
    ack: { ok: false, problems: [problem] },
    delivery: {
      outcome: 'accepted',
      attempts: [
        {
          attempt: 1,
          startedAt: 'now',
          timestamp: '1',
          signature: 's',
          requestHeaders: {},
          status: 202,
          latencyMs: 3,
          decision: 'accepted',
        },
      ],
      response,
      elapsedMs: 3,
      interrupted: false,
    },
  };
}

function check(actual: string, expected: string, note: string): CheckResult {
  return {
    id: 'B-X-001',
    interface: 'B',
    role: 'receiver',
    title: 'a check',
    sections: ['§7'],
    section: '§7',
    level: 'must',
    tags: [],
    optional: false,
    verdict: 'failed',
    expected,
    actual,
    durationMs: 1,
    notes: [note],
    requests: 1,
    rateLimitedRetries: 0,
    repro: { command: `curl ${note}`, bodyFile: 'x' },
  };
}

function suite(checks: CheckResult[], target: string): SuiteReport {
  return {
    ok: false,
    version: { tool: '0.2.0', spec: '1.0', catalogue: '0123456789abcdef' },
    target,
    interface: 'B',
    mock: false,
    startedAt: 'now',
    durationMs: 5,
    clock: { offsetSeconds: 0, dateHeader: null },
    summary: {
      passed: 0,
      failed: checks.length,
      skipped: 0,
      warnings: 0,
      waived: 0,
      notJudged: 0,
      total: checks.length,
    },
    checks,
    waivers: [],
  };
}

describe('no renderer emits a raw control character, whatever it is given', () => {
  for (const colour of [false, true]) {
    const mode = colour ? 'in colour' : 'without colour';

    it(`send results: event_id, response headers, body, problems (${mode})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          text,
          fc.uint8Array({ maxLength: 64 }),
          text,
          text,
          text,
          async (eventId, bytes, header, problem, bodyText) => {
            const { output, written } = await outputFor(colour);
            renderSendResult(sendResult(eventId, Buffer.from(bytes), header, problem), output);
            renderSendResult(sendResult(eventId, Buffer.from(bodyText, 'utf8'), header, problem), output);
            expectInert(written());
          },
        ),
        { numRuns: 150 },
      );
    });

    it(`the mocks' request lines (${mode})`, async () => {
      await fc.assert(
        fc.asyncProperty(text, text, text, text, async (eventId, leadId, event, message) => {
          const { output, written } = await outputFor(colour);
          const lines = new MockLines(output);
          const entry: MockRequestEntry = {
            received_at: '2026-01-01T00:00:00.000Z',
            interface: 'B',
            status: 400,
            verdict: 'rejected',
            reason: 'invalid_document',
            message,
            event,
            event_id: eventId,
            lead_id: leadId,
          };
          lines.request(entry);
          lines.sent({
            sent_at: '2026-01-01T00:00:00.000Z',
            status: 202,
            outcome: 'accepted',
            event,
            event_id: eventId,
            lead_id: leadId,
            attempts: 2,
            error: message,
          } as Parameters<MockLines['sent']>[0]);
          lines.flush();
          expectInert(written());
        }),
        { numRuns: 100 },
      );
    });

    it(`conformance answers: actual, expected, notes, the target (${mode})`, async () => {
      await fc.assert(
        fc.asyncProperty(text, text, text, text, async (actual, expected, note, target) => {
          const { output, io, written } = await outputFor(colour);
          await renderReport(
            suite([check(actual, expected, note)], target),
            { failOn: 'must', verbose: true },
            { io, output },
            [],
          );
          expectInert(written());
        }),
        { numRuns: 60 },
      );
    });

    it(`batch lines, errors, warnings, notes, progress, debug lines (${mode})`, async () => {
      await fc.assert(
        fc.asyncProperty(text, text, async (eventId, message) => {
          const { output, written } = await outputFor(colour);
          output.info(
            describeRecord({
              line: 1,
              eventId,
              bodySha256: 'x',
              verdict: 'rejected',
              sent: true,
              attempts: 1,
              problems: [message],
            }),
          );
          output.error(message, message);
          output.warn(message);
          output.note(message);
          output.info(message);
          output.debugLine(message);
          output.result(message);
          expectInert(written());
        }),
        { numRuns: 150 },
      );
    });
  }

  it('a dry run on a terminal shows the capture escaped; piped, the capture is exact', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (body) => {
        const { output, written } = await outputFor(false);
        renderDryRun(
          { url: 'http://127.0.0.1:9/events', headers: { 'X-CAI-Provider': 'acme' }, body: Buffer.from(body, 'utf8') },
          'http',
          output,
        );
        expectInert(written());
      }),
      { numRuns: 100 },
    );
    const io = fakeIo();
    const piped = new Output(io, { json: false, quiet: true, debug: false });
    renderDryRun({ url: 'http://127.0.0.1:9/events', headers: {}, body: Buffer.from('{"a":"\u001b"}') }, 'http', piped);
    expect(io.out()).toContain('{"a":"\u001b"}');
  });

  it('--json documents are JSON, with nothing a terminal acts on', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.uint8Array({ maxLength: 32 }), async (eventId, bytes) => {
        const { output, written } = await outputFor(false, true);
        renderSendResult(sendResult(eventId, Buffer.from(bytes), eventId, eventId), output);
        expectInert(written());
        expect(() => JSON.parse(written())).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});
