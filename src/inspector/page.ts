/**
 * The mocks' inspector page (`cai mock platform|provider --ui`): one document with its CSS and script inline,
 * allowed by their hashes, fetching only from the inspector's own origin (connect-src 'self'). The requests list,
 * the conversations and the callbacks are filled in by the script from the JSON endpoints and the live stream;
 * a request, a conversation or a callback in detail comes as an HTML fragment rendered by inspector-views.ts.
 */
import { EVENT_TYPES } from '../spec/constants.js';
import { html } from '../output/html/escape.js';
import { INSPECTOR_SCRIPT } from './browser/script.js';
import { VISIBLE_PATTERN } from '../output/markup.js';
import { pagePolicy, renderPage } from '../output/html/page.js';

export interface InspectorPageInfo {
  kind: 'platform' | 'provider';
  /** Where requests go: the events URL, or the provider endpoint. */
  mockUrl: string;
  /** The bounds, in words, for the footer. */
  bounds: string;
  generator?: string;
}

const CSS = `
html,body{height:100%}
body{display:flex;flex-direction:column;overflow:hidden}
.top{padding:8px 16px 0;border-bottom:1px solid var(--border)}
.top h1{font-size:18px;margin:2px 0}
.top .where{color:var(--muted);font-size:12.5px;display:flex;flex-wrap:wrap;gap:4px 14px}
#live{font-weight:600}#live.on{color:var(--ok)}#live.off{color:var(--fail)}
.tabs{display:flex;gap:2px;margin-top:6px}
.tabs a{padding:5px 12px;border:1px solid transparent;border-bottom:none;border-radius:6px 6px 0 0;text-decoration:none;color:var(--fg)}
.tabs a[aria-current=page]{border-color:var(--border);background:var(--panel);font-weight:600}
.split{flex:1;display:grid;grid-template-columns:minmax(0,11fr) minmax(0,9fr);min-height:0}
.pane{overflow:auto;min-height:0;padding:0 12px 24px}
#detail{border-left:1px solid var(--border);padding:8px 16px 32px}
.toolbar{position:sticky;top:0;z-index:2;background:var(--bg);display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center;padding:8px 0;border-bottom:1px solid var(--border)}
.toolbar select,.toolbar input{font:inherit;padding:2px 6px;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg)}
.toolbar input[type=search]{min-width:170px}
#f-type{max-width:190px}
.toolbar button,button.more,button.copy{font:inherit;padding:2px 10px;border:1px solid var(--border);border-radius:6px;background:var(--panel);color:var(--fg);cursor:pointer}
.shown{color:var(--muted);margin-left:auto;font-size:12.5px}
col.w-time{width:108px}col.w-status{width:48px}col.w-verdict{width:76px}col.w-type{width:168px}col.w-space{width:44px}col.w-attempts{width:64px}
table.rows{width:100%;border-collapse:collapse;table-layout:fixed;font-variant-numeric:tabular-nums;font-size:13px}
table.rows th{position:sticky;top:0;text-align:left;font-weight:600;color:var(--muted);font-size:12px;padding:4px 6px;border-bottom:1px solid var(--border);background:var(--bg)}
table.rows td{padding:3px 6px;border-bottom:1px solid var(--border);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.rows tbody tr{cursor:pointer}
table.rows tbody tr:hover{background:var(--panel)}
table.rows tbody tr[aria-selected=true]{background:var(--panel);box-shadow:inset 3px 0 0 var(--accent)}
table.rows tbody tr.fresh{animation:fresh 1.2s ease-out}
@keyframes fresh{from{background:color-mix(in srgb,var(--accent) 22%,transparent)}to{background:transparent}}
td.mono,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
.tone-ok{color:var(--ok)}.tone-warn{color:var(--warn)}.tone-fail{color:var(--fail)}
span.status{font-weight:700}
.v-accepted{color:var(--ok)}.v-duplicate{color:var(--waived)}.v-rejected,.v-failed{color:var(--fail)}.v-injected{color:var(--warn)}
.empty{color:var(--muted);padding:16px 4px}
button.more{margin:10px 0}
.request-detail h2,.callback-detail h2,.conversation h2{margin-top:6px}
.why{border:1px solid var(--border);border-left:4px solid var(--warn);border-radius:6px;padding:2px 12px 8px;margin:10px 0;background:var(--panel)}
.why.refused{border-left-color:var(--fail)}
.why h3{margin-top:8px}.why h4{margin:10px 0 4px;font-size:13px}
.reason{margin:6px 0}
ul.diagnoses{margin:4px 0;padding-left:20px}
ul.diagnoses li{margin:2px 0}
.cmd-head{display:flex;justify-content:space-between;align-items:center;margin-top:6px}
pre.cmd{white-space:pre-wrap;overflow-wrap:anywhere}
ol.chat{list-style:none;padding:0;margin:4px 0;display:flex;flex-direction:column;gap:6px}
.msg{display:flex}.msg.inbound{justify-content:flex-start}.msg.outbound{justify-content:flex-end}
.bubble{max-width:80%;border:1px solid var(--border);border-radius:10px;padding:5px 10px;background:var(--panel)}
.msg.outbound .bubble{background:color-mix(in srgb,var(--accent) 10%,var(--bg))}
.who,.small{font-size:11.5px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0}
ol.endings{padding-left:20px}
.space{font-size:12px;font-weight:400;border:1px solid var(--border);border-radius:999px;padding:0 8px;color:var(--muted)}
ul.leads{list-style:none;padding:0;margin:6px 0}
ul.leads li{border-bottom:1px solid var(--border);padding:5px 4px;cursor:pointer}
ul.leads li:hover,ul.leads li[aria-selected=true]{background:var(--panel)}
footer{padding:0 16px 6px;margin:0;border-top:1px solid var(--border)}
@media (max-width:900px){body{overflow:auto;display:block}.split{display:block}.pane{overflow:visible}#detail{border-left:none;border-top:1px solid var(--border)}}
`;

function page(info: InspectorPageInfo) {
  const platform = info.kind === 'platform';
  const types = platform ? [...EVENT_TYPES, 'none'] : ['job', 'none'];
  const body = html`<header class="top">
<h1>cai inspector: mock ${info.kind}</h1>
<div class="where"><span>${platform ? 'events URL' : 'provider endpoint'} <code>${info.mockUrl}</code></span><span id="live" class="off">connecting…</span><span id="kept"></span></div>
<nav class="tabs"><a href="#/requests" data-tab="requests">${platform ? 'Events received' : 'Jobs received'}</a><a href="#/conversations" data-tab="conversations">Conversations</a>${platform ? '' : html`<a href="#/callbacks" data-tab="callbacks">Callbacks sent</a>`}</nav>
</header>
<div class="split" id="app" data-kind="${info.kind}" data-visible="${VISIBLE_PATTERN}">
<section class="pane" id="tab-requests">
<form class="toolbar" id="filters" autocomplete="off">
<label>verdict <select id="f-verdict"><option value="">any</option><option>accepted</option><option>duplicate</option><option>rejected</option><option>injected</option></select></label>
<label>type <select id="f-type"><option value="">any</option>${types.map((type) => html`<option value="${type}">${type === 'none' ? '(none)' : type === 'job' ? 'contact job' : type}</option>`)}</select></label>
<label>lead <input id="f-lead" type="text" size="12" placeholder="lead_id"></label>
<input id="f-q" type="search" placeholder="search ids, reasons, bodies" aria-label="search">
<button type="button" id="f-clear">clear</button>
<span class="shown" id="shown"></span>
</form>
<table class="rows" id="requests"><colgroup><col class="w-time"><col class="w-status"><col class="w-verdict"><col class="w-type"><col><col><col class="w-space"></colgroup>
<thead><tr><th>time (UTC)</th><th>status</th><th>verdict</th><th>type</th><th>event_id</th><th>lead_id</th><th>space</th></tr></thead><tbody id="rows"></tbody></table>
<p class="empty" id="empty" hidden>No request yet. Send one to <code>${info.mockUrl}</code>; it appears here as it arrives.</p>
<button type="button" class="more" id="older" hidden>older requests</button>
</section>
<section class="pane" id="tab-conversations" hidden>
<div class="toolbar"><span>Leads, the most recently active first. A lead's events in order: the messages, then the appointment or the closing outcome (§3).</span><span class="shown" id="leads-shown"></span></div>
<ul class="leads" id="leads"></ul>
<p class="empty" id="leads-empty" hidden>No conversation yet.</p>
</section>
<section class="pane" id="tab-callbacks" hidden>
<div class="toolbar"><span>Events this mock sent to each job's callback_url, newest first, with their answers.</span><span class="shown" id="callbacks-shown"></span></div>
<table class="rows" id="callbacks"><colgroup><col class="w-time"><col class="w-status"><col class="w-verdict"><col class="w-type"><col><col><col class="w-attempts"></colgroup>
<thead><tr><th>time (UTC)</th><th>status</th><th>outcome</th><th>event</th><th>event_id</th><th>lead_id</th><th>attempts</th></tr></thead><tbody id="callback-rows"></tbody></table>
<p class="empty" id="callbacks-empty" hidden>No callback sent yet: a job accepted starts its conversation.</p>
<button type="button" class="more" id="older-callbacks" hidden>older callbacks</button>
</section>
<aside class="pane" id="detail" aria-live="polite"><p class="muted">Click a row to see it in full: headers, the body as received, the answer, why it was refused, and how to send it again.</p></aside>
</div>
<footer class="muted">Served by ${info.generator ?? 'cai'} from memory, read-only: ${info.bounds}. Nothing is loaded from elsewhere.</footer>`;
  return {
    title: `cai inspector: mock ${info.kind}`,
    body,
    css: CSS,
    script: INSPECTOR_SCRIPT,
    scriptIsModule: true,
    generator: info.generator,
    connectSelf: true,
  };
}

/** The page, and the Content-Security-Policy to send with it as a header too (where frame-ancestors works). */
export function renderInspectorPage(info: InspectorPageInfo): { html: string; policy: string } {
  const parts = page(info);
  return { html: renderPage(parts), policy: `${pagePolicy(parts)}; frame-ancestors 'none'` };
}
