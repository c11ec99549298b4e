/**
 * The page renderers are pure functions: escaping (hostile strings of every kind), the JSON re-indenter, the chart
 * helpers, the page shell's Content-Security-Policy, the Markdown job summary, and the data the operation report's
 * charts read. The pages in a real browser: test/browser/.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { domId, escapeHtml, html, trustedHtml } from '../../src/output/html/escape.js';
import { formatBytes, prettyJson, renderBody } from '../../src/output/html/bodies.js';
import { renderPage } from '../../src/output/html/page.js';
import { barList, columnChart, niceTicks } from '../../src/output/html/svg.js';
import { binLabel, dayBuckets, renderOperationHtml } from '../../src/commands/report/html-report.js';
import { renderConformanceHtml, type ConformanceView } from '../../src/conformance/reporters/html.js';
import { escapeMarkdown, renderJobSummary } from '../../src/conformance/reporters/markdown.js';
import { FIRST_CONTACT_BINS_SECONDS, histogram, ReportBuilder } from '../../src/report/aggregate.js';
import { parseLogLine } from '../../src/report/log.js';

const HOSTILE = [
  '</script><script>alert(1)</script>',
  '<img src=x onerror="alert(1)">',
  '"><svg onload=alert(1)>',
  "' onmouseover='alert(1)",
  '&amp; &lt; &#x3C;',
  '<!-- --> <![CDATA[ ]]>',
  '\u0000\u0001\u0008\u000b\u000c\u001b[31m\u007f\u0085\u009f',
  'lone \ud800 high, lone \udc00 low, pair \ud83d\ude00',
  '</style><style>body{display:none}</style>',
];

describe('escapeHtml', () => {
  it.each(HOSTILE)('leaves no markup, no control character and no lone surrogate: %j', (text) => {
    const escaped = escapeHtml(text);
    expect(escaped).not.toMatch(/[<>"']/);
    expect(escaped).not.toMatch(/&(?!amp;|lt;|gt;|quot;|#39;)/);
    // eslint-disable-next-line no-control-regex
    expect(escaped).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
    expect(escaped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('shows control characters as control pictures and keeps tab, newline, emoji and text', () => {
    expect(escapeHtml('a\u0000b\u001bc\u007fd\te\nf\r')).toBe('a\u2400b\u241bc\u2421d\te\nf\r');
    // C1 and bidi controls are shown as the terminal shows them (src/output/markup.ts).
    expect(escapeHtml('\u0085\u009b\u202e')).toBe('\\u0085\\u009b\\u202e');
    expect(escapeHtml('x \ud83d\ude00 y \ud800')).toBe('x \ud83d\ude00 y \ufffd');
    expect(escapeHtml(`<a href="x">'Tom' & Jerry</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;Tom&#39; &amp; Jerry&lt;/a&gt;',
    );
  });

  it('never lets a tag or attribute through, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        return (
          !/[<>"']/.test(escaped) &&
          !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(escaped)
        );
      }),
    );
  });
});

describe('the html template tag', () => {
  it('escapes every value, joins arrays, drops null/undefined/false, passes nested html through', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${['<', inner, null, undefined, false, 0]}</p>`.value).toBe(
      '<p title="&quot;x&quot;">&lt;<b>&lt;i&gt;</b>0</p>',
    );
    expect(html`${trustedHtml('<hr>')}`.value).toBe('<hr>');
  });

  it('makes ids safe for attributes and selectors', () => {
    expect(domId('check', 'B-DEDUP-001')).toBe('check-B-DEDUP-001');
    expect(domId('check', 'a"b <c>')).toMatch(/^check-[A-Za-z0-9_-]+$/);
  });
});

describe('prettyJson', () => {
  it('re-indents the tokens as sent: duplicate keys, number spellings, escapes and empty containers stay', () => {
    const text = '{"a":1.0,"a":2e3,"s":"x,\\"y\\":{[z]}","e":{},"l":[ ],"n":[1,[true,null]]}';
    expect(prettyJson(text)).toBe(
      [
        '{',
        '  "a": 1.0,',
        '  "a": 2e3,',
        '  "s": "x,\\"y\\":{[z]}",',
        '  "e": {},',
        '  "l": [],',
        '  "n": [',
        '    1,',
        '    [',
        '      true,',
        '      null',
        '    ]',
        '  ]',
        '}',
      ].join('\n'),
    );
  });

  it('leaves anything that is not a JSON object or array alone', () => {
    expect(prettyJson('{"a":')).toBeUndefined();
    expect(prettyJson('42')).toBeUndefined();
    expect(prettyJson('<html>')).toBeUndefined();
  });

  it('parses back to the same value, for any JSON', () => {
    fc.assert(
      fc.property(
        fc.json(),
        (text) =>
          prettyJson(text) === undefined ||
          JSON.stringify(JSON.parse(prettyJson(text) as string)) === JSON.stringify(JSON.parse(text)),
      ),
    );
  });
});

describe('bodies on a page', () => {
  it('renders JSON pretty with the raw text folded, binary as a summary, and escapes both', () => {
    const json = renderBody({ bytes: 20, text: '{"x":"</pre><b>"}' }).value;
    expect(json).toContain('<pre class="body json">{\n  &quot;x&quot;: &quot;&lt;/pre&gt;&lt;b&gt;&quot;\n}</pre>');
    expect(json).toContain('<details class="raw">');
    expect(renderBody({ bytes: 4, sha256: 'ab', hexPrefix: 'fffe0041' }).value).toContain(
      '<pre class="hex">ff fe 00 41</pre>',
    );
    expect(renderBody({ bytes: 0, text: '' }).value).toContain('(empty body)');
    expect(renderBody({ bytes: 2_000_000, text: 'x', truncated: true }).value).toContain(
      'The first 1 characters of 1.9 MiB.',
    );
    expect(formatBytes(1536)).toBe('1.5 KiB');
  });
});

describe('the page shell', () => {
  it('allows only its own inline style and script, by hash, and no network load', () => {
    const page = renderPage({ title: '<t>', body: html`<p>x</p>`, css: 'p{color:red}', script: 'void 0;' });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    const hash = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(csp.replace(/&#39;/g, "'")).toBe(
      `default-src 'none'; style-src 'sha256-${hash(style)}'; script-src 'sha256-${hash(script)}'; img-src data:; base-uri 'none'; form-action 'none'`,
    );
    expect(page).toContain('<title>&lt;t&gt;</title>');
    expect(page).not.toMatch(/(src|href)="https?:/);
  });

  it('refuses a script or style that would close its own element', () => {
    expect(() => renderPage({ title: 't', body: html``, script: 'x = "</script>"' })).toThrow(/must not close/);
    expect(() => renderPage({ title: 't', body: html``, css: '</style>' })).toThrow(/must not close/);
  });
});

describe('charts', () => {
  it('picks round axis steps that cover the maximum', () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(18)).toEqual([0, 5, 10, 15, 20]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });

  it('puts each value on its mark, escaped, with the marker', () => {
    const svg = columnChart({
      title: 't',
      series: [{ name: 'jobs', tone: 'ok' }],
      columns: [
        { label: '<a>', values: [3] },
        { label: 'b', values: [0] },
      ],
      marker: { afterIndex: 0, label: 'target' },
    }).value;
    expect(svg).toContain('data-label="&lt;a&gt;" data-series="jobs" data-value="3"');
    expect(svg).toContain('data-label="b" data-series="jobs" data-value="0"');
    expect(svg).toContain('<text class="target"');
    expect(barList('o', [{ label: 'no_answer', value: 2, tone: 's1' }]).value).toContain('data-value="2"');
  });
});

describe('the job summary (Markdown)', () => {
  it('escapes Markdown and HTML, and flattens newlines', () => {
    expect(escapeMarkdown('a *b* _c_ `d` [e](f) | g ~h~ <i> & \\ j\nk')).toBe(
      'a \\*b\\* \\_c\\_ \\`d\\` \\[e\\](f) \\| g \\~h\\~ &lt;i&gt; &amp; \\\\ j k',
    );
    expect(escapeMarkdown('x'.repeat(10), 4)).toBe('xxxx…');
    // A lone surrogate shown as its escape (UTF-8 would make it U+FFFD), as safeText shows it on a terminal.
    expect(escapeMarkdown('\u0000<script>\ud800')).toBe('&lt;script&gt;\\\\ud800');
    // The bidi controls, which reorder a page's text ("Trojan Source"), shown as their escapes; the marks kept.
    expect(escapeMarkdown('ok\u202egnp.exe \u2066x\u2069 \u200f')).toBe(
      'ok\\\\u202egnp.exe \\\\u2066x\\\\u2069 \u200f',
    );
  });

  const view = (
    checks: Partial<ConformanceView['checks'][number]>[],
    extra: Partial<ConformanceView> = {},
  ): ConformanceView => ({
    ok: false,
    interface: 'B',
    target: 'http://127.0.0.1:1/events',
    summary: { passed: 1, failed: 1, skipped: 0, warnings: 1, waived: 0, total: 3 },
    checks: checks.map((check, index) => ({
      id: `B-X-00${index}`,
      title: 't',
      verdict: 'passed',
      level: 'must',
      sections: ['§6.1'],
      expected: 'e',
      actual: 'a',
      durationMs: 1,
      ...check,
    })),
    ...extra,
  });

  it('has the verdict line, each failure with its sections and expected/actual, warnings marked, and the counts', () => {
    const markdown = renderJobSummary(
      view([
        { verdict: 'passed' },
        {
          verdict: 'failed',
          title: 'dup <b>',
          sections: ['§6.1', '§7'],
          expected: '202 {"ok":true}',
          actual: '500\n<html>',
        },
        { verdict: 'warning', level: 'should' },
      ]),
    );
    // Then the clause coverage of the run, folded (the clauses the run's role binds, from the catalogue).
    const [head, coverage] = markdown.split('<details>');
    expect(coverage).toMatch(
      /^<summary>Clause coverage: \d+ clauses: \d+ covered \(\d+ of \d+ must\), \d+ not testable from outside/,
    );
    expect(coverage).toContain('| §6.1-2 | must | platform-receiver | not run: B-DEDUP-001');
    expect(head).toBe(
      [
        '### ❌ cai conformance failed: interface B against http://127.0.0.1:1/events',
        '',
        '- ✗ **B-X-001** dup &lt;b&gt; (§6.1 §7)  ',
        '  expected 202 {"ok":true}; actual 500 &lt;html&gt;',
        '- ! **B-X-002** t (§6.1, should)  ',
        '  expected e; actual a',
        '',
        '1 passed, 1 failed, 0 skipped; 1 warning (3 checks)',
        '',
        '',
      ].join('\n'),
    );
  });

  it('says passed, names the role, and lists at most maxListed checks', () => {
    const passed = renderJobSummary(
      view([], {
        ok: true,
        role: 'sender',
        target: undefined,
        summary: { passed: 3, failed: 0, skipped: 0, warnings: 0, waived: 0, total: 3 },
      }),
    );
    expect(passed.split('\n')[0]).toBe('### ✅ cai conformance passed: interface B (sender)');
    const many = renderJobSummary(view(Array.from({ length: 5 }, () => ({ verdict: 'failed' as const }))), {
      maxListed: 2,
    });
    expect(many).toContain('- … and 3 more (the HTML or JUnit report lists them all)');
  });
});

describe('a sender run on the page and in the summary', () => {
  const hostile = '</script><script>alert(1)</script>\u2028\u001b[31m|*_';
  const report = {
    ok: false,
    interface: 'B',
    role: 'sender',
    target: 'http://127.0.0.1:9',
    summary: { passed: 0, failed: 1, skipped: 0, warnings: 0, waived: 0, total: 1 },
    checks: [
      {
        id: 'BS-RETRY-002',
        title: 't',
        verdict: 'failed',
        level: 'must',
        sections: ['§6.1'],
        expected: 'e',
        actual: `event_id ${JSON.stringify(hostile)}`,
        durationMs: 1,
      },
    ],
    scenarios: [
      {
        id: 'retry-5xx',
        targetUrl: `http://127.0.0.1:9/retry-5xx/events?${hostile}`,
        script: '503 ×5, then 202',
        attempts: [{ at: 10, eventId: hostile, answer: '503' }],
        firstAttemptMs: 10,
        durationMs: 20,
        trigger: { exitCode: 0 },
      },
    ],
  } as unknown as ConformanceView;

  it('escapes what the sender sent (event_id, URL) on the page: no markup, control characters as pictures', () => {
    const page = renderConformanceHtml(report);
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain(
      '<td><code>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\u2028\u241b[31m|*_</code></td>',
    );
  });

  it("carries the waivers file's notices, as the terminal warns them", () => {
    const markdown = renderJobSummary({
      ...report,
      waivers: [
        {
          id: 'BS-RETRY-002',
          kind: 'expired',
          message: 'waiver for BS-RETRY-002 expired on 2026-01-01: it no longer applies',
        },
      ],
    });
    expect(markdown).toContain('**Waivers:** waiver for BS-RETRY-002 expired on 2026-01-01: it no longer applies\n');
  });

  it('flattens and escapes it in the summary', () => {
    const markdown = renderJobSummary(report);
    expect(markdown).toContain('Scenarios:\n- retry-5xx: 1 attempt (answered 503), first after 10 ms\n');
    expect(markdown).not.toMatch(/<script>|\u001b|\u2028/);
  });
});

describe('the conformance page', () => {
  it('renders generic fields of another kind of report: role, unknown scalars and objects', () => {
    const page = renderConformanceHtml({
      ok: true,
      interface: 'A',
      role: 'sender',
      listen: 'http://127.0.0.1:9/<x>',
      summary: { passed: 1, failed: 0, skipped: 0, warnings: 0, waived: 0, total: 1 },
      checks: [
        {
          id: 'A-S-001',
          title: 't',
          verdict: 'passed',
          level: 'must',
          sections: ['§4'],
          expected: 'e',
          actual: 'a',
          durationMs: 2,
          sent: { n: 1 },
        },
      ],
    } as unknown as ConformanceView);
    expect(page).toContain('<dt>role</dt><dd>sender</dd>');
    expect(page).toContain('<dt>listen</dt><dd>http://127.0.0.1:9/&lt;x&gt;</dd>');
    expect(page).toContain('&quot;sent&quot;: {\n    &quot;n&quot;: 1');
  });
});

describe('the operation report data for charts', () => {
  it('bins first contact with the §8 target as a bound, upper bounds inclusive', () => {
    expect(FIRST_CONTACT_BINS_SECONDS.slice(0, 6)).toEqual([60, 120, 180, 240, 300, 600]);
    const bins = histogram([0, 60, 60.5, 300, 300.001, 100_000]);
    expect(bins.map((bin) => bin.count)).toEqual([2, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1]);
    expect(bins[bins.length - 1]).toEqual({ up_to_seconds: null, count: 1 });
    expect(bins.map((_, index) => binLabel(bins, index))).toEqual([
      '0–1m',
      '1–2m',
      '2–3m',
      '3–4m',
      '4–5m',
      '5–10m',
      '10–15m',
      '15–30m',
      '30m–1h',
      '1–4h',
      '4–24h',
      '>24h',
    ]);
  });

  it('counts jobs and events per UTC day, by kind, in the window only', () => {
    const builder = new ReportBuilder({ space: 'live', since: Date.parse('2026-11-02T00:00:00Z') });
    const add = (line: object) => {
      const parsed = parseLogLine(JSON.stringify({ v: 1, verdict: 'accepted', space: 'live', ...line }));
      if (!parsed.ok) throw new Error(parsed.reason);
      builder.add(parsed.record);
    };
    add({ interface: 'A', received_at: '2026-11-02T23:59:00Z', lead_id: 'L1', branch_code: 'B1', event_id: 'j1' });
    add({
      interface: 'B',
      received_at: '2026-11-03T00:01:00Z',
      lead_id: 'L1',
      event_id: 'e1',
      document: { event: 'conversation.message', direction: 'outbound' },
    });
    add({
      interface: 'B',
      received_at: '2026-11-03T08:00:00Z',
      lead_id: 'L1',
      event_id: 'e2',
      document: { event: 'appointment.booked' },
    });
    add({
      interface: 'B',
      received_at: '2026-11-05T08:00:00Z',
      lead_id: 'L1',
      event_id: 'e3',
      document: { event: 'job.closed', outcome: 'no_answer' },
    });
    add({
      interface: 'B',
      received_at: '2026-11-01T08:00:00Z',
      lead_id: 'L1',
      event_id: 'e0',
      document: { event: 'conversation.message', direction: 'inbound' },
    });
    const report = builder.build();
    expect(report.total.per_day).toEqual([
      { day: '2026-11-02', jobs: 1, messages: 0, appointments: 0, closed: 0 },
      { day: '2026-11-03', jobs: 0, messages: 1, appointments: 1, closed: 0 },
      { day: '2026-11-05', jobs: 0, messages: 0, appointments: 0, closed: 1 },
    ]);
    expect(report.branches.map((branch) => [branch.branch_code, branch.per_day.length])).toEqual([['B1', 3]]);
    expect(dayBuckets(report.total.per_day).rows.map((row) => row.day)).toEqual([
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
    ]);
    expect(renderOperationHtml(report)).toContain('data-chart="per-day" data-branch="B1"');
  });

  it('charts more than 92 days per week, from Monday', () => {
    const days = [
      { day: '2026-01-01', jobs: 1, messages: 0, appointments: 0, closed: 0 },
      { day: '2026-01-04', jobs: 2, messages: 1, appointments: 0, closed: 0 },
      { day: '2026-06-01', jobs: 1, messages: 0, appointments: 0, closed: 0 },
    ];
    const { days: width, rows } = dayBuckets(days);
    expect(width).toBe(7);
    expect(rows[0]).toEqual({ day: '2025-12-29', jobs: 3, messages: 1, appointments: 0, closed: 0 });
    expect(rows[rows.length - 1]).toEqual({ day: '2026-06-01', jobs: 1, messages: 0, appointments: 0, closed: 0 });
  });

  it('charts dates that span centuries in runs of whole weeks, at most 92 columns', () => {
    const days = [
      { day: '0001-01-01', jobs: 1, messages: 0, appointments: 0, closed: 0 },
      { day: '2026-12-02', jobs: 0, messages: 2, appointments: 0, closed: 0 },
    ];
    const { days: width, rows } = dayBuckets(days);
    expect(width % 7).toBe(0);
    expect(rows.length).toBeLessThanOrEqual(92);
    expect(rows[0]).toMatchObject({ day: '0001-01-01', jobs: 1 });
    expect(rows.reduce((sum, row) => sum + row.messages, 0)).toBe(2);
    expect(
      rows.every(
        (row, index) =>
          index === 0 || Date.parse(row.day) - Date.parse(rows[index - 1]?.day ?? '') === width * 86_400_000,
      ),
    ).toBe(true);
  });
});
