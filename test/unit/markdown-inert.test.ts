/**
 * The job summary shows what a target sent as text that does nothing on GitHub's page: no bare URL, `www.` address,
 * e-mail address, @mention or issue reference becomes a link (GitHub finds those in the rendered text, where a
 * backslash is gone, so they are broken by an invisible WORD JOINER), and a noncharacter is written as its escape.
 */
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, renderJobSummary } from '../../src/conformance/reporters/markdown.js';
import type { ConformanceView } from '../../src/conformance/reporters/html.js';

const HOSTILE =
  'see https://evil.example/phish or www.evil.example, write to help@evil.example, ping @octocat about #1 and GH-2 \uFFFE\uFFFF\uFDD0 \u{1FFFE}';

/** What GitHub would link or act on in a line of Markdown text. */
const TRIGGERS = [/[a-z]:\/\//i, /\bwww\./i, /@\w/, /#\d/, /\bGH-\d/i];
const NONCHARACTER = /\p{Noncharacter_Code_Point}/u;

describe('escapeMarkdown', () => {
  it('breaks every link, mention and issue reference, and reads the same without the invisible joiner', () => {
    const escaped = escapeMarkdown(HOSTILE);
    for (const trigger of TRIGGERS) expect(escaped, String(trigger)).not.toMatch(trigger);
    expect(escaped).not.toMatch(NONCHARACTER);
    expect(escaped.replace(/\u2060/g, '')).toBe(
      'see https://evil.example/phish or www.evil.example, write to help@evil.example, ping @octocat about #1 and GH-2 \\\\ufffe\\\\uffff\\\\ufdd0 \\\\ud83f\\\\udffe',
    );
  });

  it('leaves a lone @ or # and the escapes it already made as they were', () => {
    expect(escapeMarkdown('a @ b # c &amp; <x>')).toBe('a @ b # c &amp;amp; &lt;x&gt;');
  });
});

describe('the job summary', () => {
  it("carries no link, mention or noncharacter of the target's, in the expected and actual values or elsewhere", () => {
    const view = {
      ok: false,
      interface: 'B',
      target: 'https://platform.example/cai/events',
      summary: { passed: 0, failed: 1, skipped: 0, warnings: 0, waived: 0, total: 1 },
      error: { code: 'x', message: `stopped: ${HOSTILE}`, hint: HOSTILE },
      checks: [
        {
          id: 'B-DEDUP-001',
          title: 't',
          verdict: 'failed',
          level: 'must',
          sections: ['§6.1'],
          expected: '202',
          actual: HOSTILE,
          durationMs: 1,
        },
      ],
    } as unknown as ConformanceView;
    const markdown = renderJobSummary(view).split('<details>')[0] as string;
    // The target is the user's own: its link is kept.
    expect(markdown.split('\n')[0]).toBe(
      '### ❌ cai conformance failed: interface B against https://platform.example/cai/events',
    );
    const rest = markdown.split('\n').slice(1).join('\n');
    for (const trigger of TRIGGERS) expect(rest, String(trigger)).not.toMatch(trigger);
    expect(rest).not.toMatch(NONCHARACTER);
    expect(rest.replace(/\u2060/g, '')).toContain('actual see https://evil.example/phish or www.evil.example,');
    // An error that names the target keeps it as it is; what follows it is still broken.
    const named = renderJobSummary({
      ...view,
      error: { code: 'x', message: 'https://platform.example/cai/events is not an events endpoint: @octocat' },
    });
    expect(named).toContain(
      '**Stopped before any check:** https://platform.example/cai/events is not an events endpoint: @\u2060octocat\n',
    );
  });
});
