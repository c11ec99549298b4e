/** GitHub Actions annotations of a conformance run (src/conformance/reporters/github.ts) and the command that prints them. */
import { describe, expect, it } from 'vitest';
import { renderAnnotations } from '../../src/conformance/reporters/github.js';
import type { CheckView, ConformanceView } from '../../src/conformance/reporters/html.js';
import { runCli } from '../helpers/cli.js';

const check = (id: string, verdict: CheckView['verdict'], extra: Partial<CheckView> = {}): CheckView => ({
  id,
  title: 'a title',
  verdict,
  level: verdict === 'warning' ? 'should' : 'must',
  sections: ['§6.1', '§2.13'],
  expected: '202',
  actual: '400',
  durationMs: 1,
  ...extra,
});

const view = (checks: CheckView[], extra: Partial<ConformanceView> = {}): ConformanceView => ({
  ok: false,
  interface: 'B',
  summary: { passed: 0, failed: 0, skipped: 0, warnings: 0, waived: 0, total: checks.length },
  checks,
  ...extra,
});

describe('renderAnnotations', () => {
  it('one ::error a failed check and one ::warning a warned one; none for the rest', () => {
    expect(
      renderAnnotations(view([check('B-A-001', 'failed'), check('B-A-002', 'warning'), check('B-A-003', 'passed')])),
    ).toEqual([
      '::error title=B-A-001 (must §6.1 §2.13)::a title: expected 202; actual 400',
      '::warning title=B-A-002 (should §6.1 §2.13)::a title: expected 202; actual 400',
    ]);
  });

  it("escapes what would end the command or add one of its own, and a terminal's controls", () => {
    const [line] = renderAnnotations(
      view([check('B-A-001', 'failed', { title: 'x, y: z', actual: '100% \r\n::error::forged \u001b[2J' })]),
    );
    expect(line).toBe(
      '::error title=B-A-001 (must §6.1 §2.13)::x, y: z: expected 202; actual 100%25 \\r\\n::error::forged \\x1b[2J',
    );
    expect(line).not.toMatch(/[\r\n\u001b]/);
    const [titled] = renderAnnotations(view([check('B-A,1:x', 'failed')]));
    expect(titled).toMatch(/^::error title=B-A%2C1%3Ax \(must §6\.1 §2\.13\)::/);
  });

  it('shows ten of a kind, then how many more', () => {
    const lines = renderAnnotations(view(Array.from({ length: 12 }, (_, index) => check(`B-A-${index}`, 'failed'))));
    expect(lines).toHaveLength(11);
    expect(lines[10]).toBe('::error title=cai conformance::and 2 more failed check(s): see the log or the job summary');
  });

  it('a run stopped before any check: its error', () => {
    expect(renderAnnotations(view([], { error: { code: 'x', message: 'nothing answered' } }))).toEqual([
      '::error title=cai conformance::nothing answered',
    ]);
  });
});

describe('cai conformance run in GitHub Actions', () => {
  it('annotates each failure on stderr (stdout keeps the report alone), and nothing outside Actions', async () => {
    const argv = [
      'conformance',
      'run',
      '--mock',
      '--interface',
      'B',
      '--break',
      'no-dedupe',
      '--only',
      'B-DEDUP-001',
      '--no-generate',
    ];
    const inActions = await runCli(argv, { env: { GITHUB_ACTIONS: 'true' } });
    expect(inActions.code).toBe(1);
    expect(inActions.stderr).toMatch(
      /^::error title=B-DEDUP-001 \(must §6\.1 §2\.13 §7\)::a sequential repeat of an event_id/m,
    );
    expect(inActions.stdout).not.toContain('::error');
    const outside = await runCli(argv, { env: {} });
    expect(outside.stderr).not.toContain('::error');
  });
});
