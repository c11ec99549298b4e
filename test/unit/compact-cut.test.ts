/**
 * The compact report keeps a check to three lines: the third is the text that follows the first two, cut with `…`,
 * never the wrapped lines joined again (which put a break's space and the next line's indent inside a quoted value:
 * `(expected 413 (body too     l…`).
 */
import { describe, expect, it } from 'vitest';
import { COMPACT_WIDTH, renderCompact } from '../../src/conformance/reporters/table.js';
import type { SuiteReport } from '../../src/conformance/types.js';

function reportOf(actual: string, expected: string): SuiteReport {
  return {
    ok: false,
    target: 'http://127.0.0.1:1/events',
    interface: 'B',
    mock: false,
    durationMs: 5,
    startedAt: '2026-11-22T13:00:00.000Z',
    clock: { offsetSeconds: 0, dateHeader: null },
    summary: { total: 1, passed: 0, failed: 1, warnings: 0, skipped: 0, waived: 0, notJudged: 0 },
    version: { tool: '0.0.0', spec: '1.0', catalogue: '1' },
    waivers: [],
    checks: [
      {
        id: 'B-SIZE-001',
        title: 'a body over 256 KiB is refused with 413',
        level: 'must',
        verdict: 'failed',
        sections: ['§8'],
        section: '§8',
        tags: [],
        expected,
        actual,
        durationMs: 1,
      },
    ],
  } as unknown as SuiteReport;
}

/** The check's lines of a compact report: from its verdict symbol to the line before the counts. */
function checkLinesOf(report: SuiteReport): string[] {
  const lines = renderCompact(report).split('\n');
  const first = lines.findIndex((line) => line.startsWith('✗ B-SIZE-001'));
  return lines.slice(first, lines.length - 2);
}

/**
 * Whether `lines` (a check's, their indents and the last one's `…` aside) are pieces of `text` in order, with
 * nothing between them but the spaces of a break.
 */
function followsText(text: string, lines: readonly string[]): boolean {
  let rest = text;
  for (const [index, line] of lines.entries()) {
    const piece = (index === 0 ? line : line.slice(4)).replace(/…$/, '');
    if (!rest.startsWith(piece)) return false;
    rest = rest.slice(piece.length).replace(/^ +/, '');
  }
  return true;
}

describe('the compact report cuts a long check line', () => {
  it('its third line is the text that follows, as it is, cut: no space inserted into a quoted value', () => {
    // The third line ends at `too`: the word after it is longer than a line, so wrap put it on a fourth.
    const actual = `${'w'.repeat(70)} ${'v'.repeat(90)}`;
    const expected = `413 (body too ${'large'.repeat(24)})`;
    const text = `✗ B-SIZE-001 must §8: ${actual} (expected ${expected})`;
    const lines = checkLinesOf(reportOf(actual, expected));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(COMPACT_WIDTH);
    expect(lines[2]).toMatch(/^ {4}\(expected 413 \(body too largelarge[a-z]*…$/);
    expect(followsText(text, lines), lines.join('\n')).toBe(true);
  });

  it('a word broken across lines goes on with nothing between its pieces', () => {
    const actual = `${'x'.repeat(95)}   ${'y'.repeat(150)} (expected 413 (body too     large))`;
    const lines = checkLinesOf(reportOf(actual, ''));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^ {4}y+…$/);
    expect(followsText(`✗ B-SIZE-001 must §8: ${actual}`, lines), lines.join('\n')).toBe(true);
  });
});
