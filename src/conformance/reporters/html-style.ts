/**
 * The conformance page's style: the toolbar, the check rows and their details, a sender run's scenarios (the style
 * every page shares is src/output/html/page.ts's). With it, the chunks the check rows are laid out in, which it sizes.
 */

/**
 * Checks are laid out in chunks of this many, each skipped by the browser's rendering while off screen
 * (`content-visibility: auto`): with 10 000 checks, showing or hiding rows touches only the chunks in view.
 */
const CHUNK = 100;

export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += CHUNK) out.push(items.slice(index, index + CHUNK));
  return out;
}

export const CONFORMANCE_CSS = `
header .lead{font-size:15px;margin:2px 0 8px}
.cards button{font:inherit;color:inherit;text-align:left;cursor:pointer}
.cards .card.v-failed b{color:var(--fail)}.cards .card.v-warning b{color:var(--warn)}.cards .card.v-passed b{color:var(--ok)}.cards .card.v-waived b{color:var(--waived)}.cards .card.v-skipped b,.cards .card.v-not-judged b{color:var(--skip)}
.toolbar{position:sticky;top:0;z-index:2;background:var(--bg);display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;padding:8px 0;border-bottom:1px solid var(--border)}
.toolbar label{white-space:nowrap;cursor:pointer}
.toolbar input[type=search]{font:inherit;padding:3px 8px;min-width:240px;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg)}
.toolbar button{font:inherit;padding:2px 10px;border:1px solid var(--border);border-radius:6px;background:var(--panel);color:var(--fg);cursor:pointer}
#shown{color:var(--muted);margin-left:auto}
.chunk{content-visibility:auto;contain-intrinsic-size:auto ${CHUNK * 31}px}
.check{border-bottom:1px solid var(--border)}
.check>summary{display:grid;grid-template-columns:88px 128px minmax(0,1fr) 56px 112px 64px;gap:10px;align-items:baseline;padding:5px 4px;cursor:pointer;list-style:none}
.check>summary::-webkit-details-marker{display:none}
.check>summary:hover{background:var(--panel)}
.check[open]>summary{background:var(--panel);font-weight:600}
.check .v{font-weight:600;white-space:nowrap}
.v-failed .v{color:var(--fail)}.v-warning .v{color:var(--warn)}.v-passed .v{color:var(--ok)}.v-waived .v{color:var(--waived)}.v-skipped .v,.v-not-judged .v{color:var(--skip)}
.check .id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.check .dur,.check .lvl,.check .sec{color:var(--muted);font-size:12.5px}
.check .dur{text-align:right}
.detail{padding:6px 8px 14px 26px}
.detail h4{margin:12px 0 2px;font-size:13px}
.ea{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:4px 0}
.ea dt{color:var(--muted)}
.ea dd{margin:0;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;white-space:pre-wrap;overflow-wrap:anywhere}
.repro{position:relative}
.repro button.copy{position:absolute;top:6px;right:6px;font:inherit;font-size:12px;padding:1px 8px;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
.attempts{border-collapse:collapse;margin:4px 0 10px}.attempts th,.attempts td{text-align:left;padding:2px 12px 2px 0;border-bottom:1px solid var(--border);font-size:12.5px}
.scenario h3{margin:14px 0 2px;font-size:14px}
.head-row{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:12px}
@media (max-width:760px){.check>summary{grid-template-columns:80px 1fr;}.check .lvl,.check .sec,.check .dur{display:none}}
@media print{.toolbar{display:none}.chunk{content-visibility:visible}.check>summary{grid-template-columns:70px 110px 1fr 44px 90px 56px}}
`;
