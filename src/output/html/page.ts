/**
 * The shell of every page cai writes: one self-contained document (inline CSS and script, no fonts, images or
 * requests), a Content-Security-Policy that allows only that inline CSS and script (by their hashes) and forbids
 * every network load, light and dark colours from the reader's preference, and print styles.
 */
import { createHash } from 'node:crypto';
import { escapeHtml, html, type SafeHtml } from './escape.js';

export interface PageParts {
  title: string;
  body: SafeHtml;
  /** CSS of this page, after the shared base. */
  css?: string;
  /** Script of this page (plain JavaScript, run at the end of the body); none: the page works without it. */
  script?: string;
  /** The script is a module: its own scope, strict, its top-level names no globals. */
  scriptIsModule?: boolean;
  /** e.g. `cai 0.2.0`, in `<meta name="generator">`. */
  generator?: string;
  /** A page served by cai itself (the mocks' inspector): its script may fetch from its own origin, and only there. */
  connectSelf?: boolean;
}

/** Each colour, light and dark: light by default, dark when the reader prefers it, light again on paper. */
const COLOURS: Record<string, [light: string, dark: string]> = {
  bg: ['#ffffff', '#0d1117'],
  fg: ['#1f2328', '#e6edf3'],
  muted: ['#59636e', '#9198a1'],
  border: ['#d1d9e0', '#3d444d'],
  panel: ['#f6f8fa', '#151b23'],
  accent: ['#0969da', '#4493f8'],
  ok: ['#1a7f37', '#3fb950'],
  fail: ['#cf222e', '#f85149'],
  warn: ['#9a6700', '#d29922'],
  waived: ['#0969da', '#4493f8'],
  skip: ['#6e7781', '#9198a1'],
  target: ['#8250df', '#ab7df8'],
  s1: ['#0969da', '#4493f8'],
  s2: ['#1a7f37', '#3fb950'],
  s3: ['#bf8700', '#d29922'],
  s4: ['#8250df', '#ab7df8'],
  s5: ['#cf222e', '#f85149'],
};

const vars = (scheme: 0 | 1) =>
  Object.entries(COLOURS)
    .map(([name, values]) => `--${name}:${values[scheme]};`)
    .join('');

const BASE_CSS = `
:root{color-scheme:light dark;${vars(0)}}
@media (prefers-color-scheme:dark){:root{${vars(1)}}}
@media print{:root{color-scheme:light;${vars(0)}}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1280px;margin:0 auto;padding:16px 20px 48px}
h1{font-size:22px;margin:8px 0 4px}
h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--border)}
h3{font-size:15px;margin:18px 0 6px}
a{color:var(--accent)}
code,pre,kbd{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
pre{background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:8px 10px;margin:4px 0 8px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:480px;overflow:auto}
.muted{color:var(--muted)}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0 4px}
.meta dt{color:var(--muted)}
.meta dd{margin:0;overflow-wrap:anywhere}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.card{border:1px solid var(--border);border-radius:8px;padding:8px 12px;min-width:110px;background:var(--panel)}
.card b{display:block;font-size:22px;line-height:1.2}
.card span{color:var(--muted);font-size:12px}
table.data{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
table.data th,table.data td{border:1px solid var(--border);padding:3px 8px;text-align:left}
table.data th{background:var(--panel);font-weight:600}
table.data td.num{text-align:right}
.badge{display:inline-block;border-radius:999px;padding:1px 10px;font-weight:600;font-size:13px;color:#fff}
.badge.ok{background:var(--ok)}
.badge.fail{background:var(--fail)}
.badge.warn{background:var(--warn)}
.notice{border-left:4px solid var(--warn);background:var(--panel);padding:6px 10px;margin:8px 0}
svg.chart{display:block;max-width:100%;height:auto;margin:4px 0 8px}
svg.chart text{fill:var(--fg);font-size:11px;font-family:inherit}
svg.chart text.axis{fill:var(--muted)}
svg.chart line.grid{stroke:var(--border);stroke-width:1}
svg.chart line.target{stroke:var(--target);stroke-width:2;stroke-dasharray:5 3}
svg.chart text.target{fill:var(--target);font-weight:600}
.tone-ok{fill:var(--ok)}.tone-fail{fill:var(--fail)}.tone-warn{fill:var(--warn)}.tone-waived{fill:var(--waived)}.tone-skip{fill:var(--skip)}
.tone-s1{fill:var(--s1)}.tone-s2{fill:var(--s2)}.tone-s3{fill:var(--s3)}.tone-s4{fill:var(--s4)}.tone-s5{fill:var(--s5)}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:var(--muted);margin:0 0 4px;padding:0;list-style:none}
.legend svg{vertical-align:-1px;margin-right:4px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{main{max-width:none;padding:0}.no-print{display:none!important}pre{max-height:none;overflow:visible}h2{break-after:avoid}}
`;

/** `'sha256-…'` of an inline block, for the Content-Security-Policy. */
function cspHash(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`;
}

/** The Content-Security-Policy of a page: its own inline CSS and script (by their hashes), nothing from the network. */
export function pagePolicy(parts: Pick<PageParts, 'css' | 'script' | 'connectSelf'>): string {
  const css = BASE_CSS + (parts.css ?? '');
  return [
    "default-src 'none'",
    `style-src ${cspHash(css)}`,
    `script-src ${parts.script !== undefined ? cspHash(parts.script) : "'none'"}`,
    'img-src data:',
    ...(parts.connectSelf ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function renderPage(parts: PageParts): string {
  const css = BASE_CSS + (parts.css ?? '');
  if (/<\/style/i.test(css)) throw new Error('page CSS must not close its <style> element');
  if (parts.script !== undefined && /<\/script|<!--/i.test(parts.script))
    throw new Error('page script must not close its <script> element');
  const csp = pagePolicy(parts);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    ...(parts.generator ? [`<meta name="generator" content="${escapeHtml(parts.generator)}">`] : []),
    `<title>${escapeHtml(parts.title)}</title>`,
    `<style>${css}</style>`,
    '</head>',
    '<body>',
    parts.body.value,
    ...(parts.script !== undefined
      ? [`<script${parts.scriptIsModule ? ' type="module"' : ''}>${parts.script}</script>`]
      : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Facts as a definition list: name, value. */
export function metaList(rows: readonly [string, string][]): SafeHtml {
  return html`<dl class="meta">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

/** Summary cards: a large value over its label. */
export function cardList(items: readonly [string | number, string][]): SafeHtml {
  return html`<div class="cards">${items.map(([value, label]) => html`<div class="card"><b>${value}</b><span>${label}</span></div>`)}</div>`;
}

/** The last line of a report page. */
export function pageFooter(generator: string | undefined): SafeHtml {
  return html`<footer>Written by ${generator ?? 'cai'}. Self-contained: it loads nothing from the network.</footer>`;
}

/** CSS of a chart in a `figure.chart-fig`, its caption bold and the caption's aside muted. */
export const CHART_FIGURE_CSS = `figure.chart-fig{margin:0}
figure.chart-fig figcaption{font-weight:600;margin:8px 0 2px}
figure.chart-fig figcaption span{font-weight:400;color:var(--muted)}`;
