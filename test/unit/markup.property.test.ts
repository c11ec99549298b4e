/**
 * The one escaping function of every XML and HTML writer (src/output/markup.ts): whatever the text, what it makes
 * parses as XML 1.0, in text and in a double-quoted attribute, with a real XML parser (saxes, which checks the
 * characters XML 1.0 allows), and holds nothing a page or a terminal would act on. Then the JUnit writer, which
 * uses it, over a report made of arbitrary strings.
 */
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/conformance/reporters/junit.js';
import type { SuiteReport } from '../../src/conformance/types.js';
import { escapeHtml } from '../../src/output/html/escape.js';
import { escapeMarkup } from '../../src/output/markup.js';

/** What must never come out of the parser: XML's forbidden characters and what a page or terminal interprets. */
const NEVER =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Parses `xml` strictly; returns the text and attribute values it holds, or throws the parser's first error. */
function parseXml(xml: string): { texts: string[]; attributes: string[] } {
  const parser = new SaxesParser();
  const texts: string[] = [];
  const attributes: string[] = [];
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('text', (text) => texts.push(text));
  parser.on('opentag', (tag) => attributes.push(...Object.values(tag.attributes).map(String)));
  parser.write(xml).close();
  if (failure) throw failure;
  return { texts, attributes };
}

// Any UTF-16 string: lone surrogates, noncharacters, controls; and the characters the issue met, often.
const hostile = fc.constantFrom(
  '\uffff',
  '\ufffe',
  '\u009b',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u001b',
  '\u0000',
  '\ud800',
  '\udc00',
  ']]>',
  '&',
  '<',
  '"',
  "'",
  '\r\n',
  '\u2028',
);
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc
    .array(fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 30 })
    .map((parts) => parts.join('')),
);

describe('escapeMarkup', () => {
  it('always parses as XML 1.0, in text and in an attribute, and nothing unsafe comes out', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const escaped = escapeMarkup(text);
        const { texts, attributes } = parseXml(
          `<?xml version="1.0" encoding="UTF-8"?><r a="${escaped}">${escaped}</r>`,
        );
        for (const value of [...texts, ...attributes]) expect(value).not.toMatch(NEVER);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every other character as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        fc.pre(!NEVER.test(text) && !text.includes('\r'));
        expect(parseXml(`<r>${escapeMarkup(text)}</r>`).texts.join('')).toBe(text);
      }),
    );
  });

  it('shows what it does not keep, visibly', () => {
    expect(escapeMarkup('a\uffffb\u009bc\u202ed\u001be\u0000f\ud800g\u007f<&>"\'\t\n')).toBe(
      'a\\uffffb\\u009bc\\u202ed\u241be\u2400f\ufffdg\u2421&lt;&amp;&gt;&quot;&#39;\t\n',
    );
    // The pages use the same function.
    expect(escapeHtml).toBe(escapeMarkup);
  });
});

describe('the JUnit report', () => {
  it('is well-formed XML whatever the target answered', () => {
    fc.assert(
      fc.property(anyText, anyText, (actual, target) => {
        const xml = renderJunit(junitReport(actual, target), { warningsFail: true });
        const { texts, attributes } = parseXml(xml);
        for (const value of [...texts, ...attributes]) expect(value).not.toMatch(NEVER);
      }),
      { numRuns: 300 },
    );
  });
});

/** A report with a failed, a skipped, a waived and a warning check whose texts come from a target. */
function junitReport(actual: string, target: string): SuiteReport {
  const check = (id: string, verdict: string) => ({
    id,
    title: `title ${actual}`,
    level: 'must',
    verdict,
    sections: ['§7'],
    tags: [actual],
    expected: 'expected',
    actual,
    durationMs: 1,
    notes: [actual],
    waiver: { reason: actual },
    repro: { bodyFile: actual, command: `cai replay ${actual}` },
  });
  return {
    target,
    interface: 'B',
    role: 'receiver',
    durationMs: 5,
    startedAt: '2026-11-22T13:00:00.000Z',
    clock: { offsetSeconds: 0 },
    summary: { total: 5, passed: 0, failed: 1, warnings: 1, skipped: 1, waived: 1, notJudged: 1 },
    version: { tool: actual, spec: '1.0', catalogue: target },
    error: { code: actual, message: actual, hint: target },
    checks: [
      check('B-RCV-1', 'failed'),
      check('B-RCV-2', 'skipped'),
      check('B-RCV-3', 'waived'),
      check('B-RCV-4', 'warning'),
      check('B-RCV-5', 'not-judged'),
    ],
  } as unknown as SuiteReport;
}
