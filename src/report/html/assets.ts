/**
 * The constant parts of the incident page: its style sheet and the small
 * script that filters the incident list. Neither holds file data; the page
 * allows exactly this script by its hash (see html-page.ts).
 */

/** The page's style sheet: system fonts, light and dark, nothing fetched. */
export const PAGE_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f7f6f3; --surface: #ffffff; --text: #1d2127; --muted: #5f6773; --line: #e3e1dc; --soft: #efede8;
  --accent: #4a58c9; --attempt: #5b6fd6; --tool: #8a63c9;
  --ok: #2d7a4f; --info: #2f6ca8; --warn: #9a6412; --bad: #b8322e; --neutral: #6b7280;
  --ok-bg: #e3f2e8; --info-bg: #e2edf8; --warn-bg: #fbefd9; --bad-bg: #fbe5e3; --neutral-bg: #eceef1;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #131519; --surface: #1b1e23; --text: #e7e6e3; --muted: #9aa1ab; --line: #2c3037; --soft: #23272d;
    --accent: #8c97f0; --attempt: #7d8ff0; --tool: #b08ae6;
    --ok: #6cc592; --info: #79b2ea; --warn: #e3b15c; --bad: #f0807a; --neutral: #a3a9b3;
    --ok-bg: #1b3326; --info-bg: #1a2c3f; --warn-bg: #3a2c14; --bad-bg: #3d1d1c; --neutral-bg: #2a2e35;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--text); }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif; }
main { max-width: 70rem; margin: 0 auto; padding: 2.5rem 1.5rem 4rem; }
h1, h2, h3, h4 { line-height: 1.25; margin: 0; }
h1 { font-size: 1.9rem; font-weight: 650; letter-spacing: -0.01em; }
h2 { font-size: 1.2rem; font-weight: 620; margin: 2.5rem 0 1rem; }
h3 { font-size: 1.08rem; font-weight: 620; }
h4 { font-size: 0.9rem; font-weight: 600; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, monospace; font-size: 0.86em; }
a { color: var(--accent); text-underline-offset: 2px; }
a:focus-visible, select:focus-visible, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.muted { color: var(--muted); font-weight: 400; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.eyebrow { margin: 0 0 0.35rem; color: var(--muted); font-size: 0.8rem; letter-spacing: 0.06em; text-transform: uppercase; }
.lede { margin: 0.6rem 0 0; color: var(--muted); max-width: 46rem; }
.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: 0.75rem; margin: 1.5rem 0 0; }
.totals div { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 0.8rem 1rem; }
.totals dt { color: var(--muted); font-size: 0.8rem; }
.totals dd { margin: 0.1rem 0 0; font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.totals dd.explain { margin-top: 0.35rem; font-size: 0.78rem; font-weight: 400; line-height: 1.35; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(26rem, 1fr)); gap: 1rem; }
.chart { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.1rem 0.8rem; }
.chart table { width: 100%; border-collapse: collapse; table-layout: fixed; }
.chart caption { text-align: left; font-weight: 620; padding-bottom: 0.6rem; }
.chart caption .muted { font-size: 0.85rem; }
.chart th, .chart td { padding: 0.22rem 0; vertical-align: middle; font-weight: 400; }
.chart th[scope=row] { text-align: left; width: 50%; padding-right: 0.75rem; font-size: 0.86rem; overflow-wrap: break-word; }
.chart td.num { width: 3.2rem; text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
.chart td.share { padding-right: 0.5rem; }
.bar { display: block; height: 0.7rem; min-width: 3px; border-radius: 3px; background: var(--accent); }
.is-none { font-style: italic; color: var(--muted); }
.c-ok { --c: var(--ok); --cbg: var(--ok-bg); } .c-info { --c: var(--info); --cbg: var(--info-bg); }
.c-warn { --c: var(--warn); --cbg: var(--warn-bg); } .c-bad { --c: var(--bad); --cbg: var(--bad-bg); }
.c-neutral { --c: var(--neutral); --cbg: var(--neutral-bg); }
.bar[class*=" c-"] { background: var(--c); }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0 0 1rem; }
.filters[hidden] { display: none; }
.filters label { display: grid; gap: 0.15rem; font-size: 0.8rem; color: var(--muted); }
.filters select { font: inherit; font-size: 0.9rem; color: var(--text); background: var(--surface); border: 1px solid var(--line); border-radius: 6px; padding: 0.3rem 0.45rem; max-width: 16rem; }
.filters output { font-size: 0.86rem; color: var(--muted); padding-bottom: 0.35rem; }
.incidents { display: grid; gap: 1rem; }
.incident { background: var(--surface); border: 1px solid var(--line); border-left: 4px solid var(--sev); border-radius: 10px; padding: 1.1rem 1.25rem 1rem; content-visibility: auto; contain-intrinsic-size: auto 22rem; }
.incident[hidden] { display: none; }
.sev-error { --sev: var(--bad); } .sev-warning { --sev: var(--warn); } .sev-info { --sev: var(--info); }
.sev { display: inline-block; font-size: 0.72rem; font-weight: 650; letter-spacing: 0.06em; text-transform: uppercase; color: var(--sev); margin-bottom: 0.2rem; }
.incident .message { margin: 0.5rem 0 0; max-width: 52rem; }
.incident .action { margin: 0.45rem 0 0; max-width: 52rem; }
.incident .action strong { font-weight: 620; }
.badges { display: flex; flex-wrap: wrap; gap: 0.35rem; margin: 0.6rem 0 0; padding: 0; list-style: none; }
.badge { display: inline-flex; gap: 0.3rem; align-items: baseline; font-size: 0.8rem; padding: 0.08rem 0.5rem; border-radius: 999px; background: var(--cbg, var(--soft)); color: var(--c, var(--text)); border: 1px solid transparent; overflow-wrap: anywhere; }
.badge .k { color: var(--muted); font-size: 0.74rem; }
.meta { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.4rem 1.2rem; margin: 0.85rem 0 0; font-size: 0.84rem; }
.meta dt { color: var(--muted); font-size: 0.74rem; }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.meta .trace { grid-column: span 2; }
.timeline { margin-top: 1rem; border-top: 1px solid var(--line); padding-top: 0.75rem; }
.tl-heading { margin-bottom: 0.5rem; }
.tl { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.3rem; }
.tl-item { display: grid; grid-template-columns: minmax(8rem, 15rem) 1fr 9.5rem; grid-template-areas: "label track time" ". notes notes"; column-gap: 0.75rem; align-items: center; font-size: 0.84rem; }
.tl-label { grid-area: label; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tl-kind { display: inline-block; min-width: 3.6rem; font-size: 0.7rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); }
.tl-track { grid-area: track; position: relative; height: 1.05rem; margin-right: 1.2rem; background: var(--soft); border-radius: 4px; }
.tl-bar { position: absolute; top: 0.15rem; bottom: 0.15rem; border-radius: 3px; background: var(--attempt); }
.tl-tool .tl-bar { background: var(--tool); }
.tl-item.is-error .tl-bar { background: repeating-linear-gradient(135deg, var(--bad) 0 5px, color-mix(in srgb, var(--bad) 70%, transparent) 5px 9px); }
.tl-item.is-open .tl-bar { background: linear-gradient(to right, color-mix(in srgb, var(--warn) 35%, transparent), transparent); border: 1.5px dashed var(--warn); border-right: 0; border-radius: 3px 0 0 3px; }
.tl-item.has-side-effects .tl-bar { box-shadow: 0 0 0 2px var(--warn); }
.tl-item.is-broke .tl-track { background: var(--bad-bg); }
.tl-item.is-broke .tl-bar::after { content: "✕"; position: absolute; right: -1.1rem; top: 50%; transform: translateY(-50%); color: var(--bad); font-weight: 700; font-size: 0.8rem; }
.tl-time { grid-area: time; color: var(--muted); font-variant-numeric: tabular-nums; font-size: 0.8rem; white-space: nowrap; }
.tl-notes { grid-area: notes; display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.1rem 0 0.25rem; }
.mark { font-size: 0.76rem; padding: 0 0.45rem; border-radius: 4px; background: var(--soft); }
.mark-broke { background: var(--bad-bg); color: var(--bad); font-weight: 650; }
.mark-side { background: var(--warn-bg); color: var(--warn); }
.mark-open { background: var(--warn-bg); color: var(--warn); }
.mark-error { color: var(--bad); }
.tl-axis { display: grid; grid-template-columns: minmax(8rem, 15rem) 1fr 9.5rem; column-gap: 0.75rem; margin-top: 0.25rem; font-size: 0.72rem; color: var(--muted); font-variant-numeric: tabular-nums; }
.tl-ticks { grid-column: 2; display: flex; justify-content: space-between; margin-right: 1.2rem; }
.tl-empty { margin: 0.9rem 0 0; color: var(--muted); font-size: 0.86rem; }
.legend { display: flex; flex-wrap: wrap; gap: 0.4rem 1.1rem; margin: 0 0 1rem; padding: 0; list-style: none; font-size: 0.82rem; color: var(--muted); }
.legend .sw { display: inline-block; width: 1.4rem; height: 0.6rem; border-radius: 2px; margin-right: 0.35rem; vertical-align: middle; }
.sw-attempt { background: var(--attempt); } .sw-tool { background: var(--tool); }
.sw-error { background: repeating-linear-gradient(135deg, var(--bad) 0 5px, color-mix(in srgb, var(--bad) 70%, transparent) 5px 9px); }
.sw-open { border: 1.5px dashed var(--warn); } .sw-side { background: var(--tool); box-shadow: 0 0 0 2px var(--warn); }
.lost-tables { display: grid; gap: 1rem; }
.lost-table { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.1rem 0.8rem; overflow-x: auto; }
.lost-table table { width: 100%; border-collapse: collapse; }
.lost-table caption { text-align: left; font-weight: 620; padding-bottom: 0.6rem; }
.lost-table caption .muted { font-size: 0.85rem; }
.lost-table th, .lost-table td { padding: 0.22rem 0 0.22rem 1rem; font-weight: 400; font-size: 0.86rem; vertical-align: middle; }
.lost-table thead th { color: var(--muted); font-size: 0.78rem; text-align: right; }
.lost-table thead th:first-child, .lost-table th[scope=row] { text-align: left; padding-left: 0; overflow-wrap: anywhere; }
.lost-table td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.lost-table tfoot th, .lost-table tfoot td { border-top: 1px solid var(--line); font-weight: 620; }
.lost-table .dot { display: inline-block; width: 0.55rem; height: 0.55rem; border-radius: 50%; margin-right: 0.45rem; background: var(--c, var(--line)); }
.floor { color: var(--warn); font-weight: 650; text-decoration: none; cursor: help; }
.note { background: var(--surface); border: 1px dashed var(--line); border-radius: 8px; padding: 0.6rem 0.9rem; color: var(--muted); font-size: 0.88rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.8rem; }
@media (max-width: 40rem) {
  main { padding: 1.5rem 1rem 3rem; }
  .incident { padding: 1rem; }
  .tl-item { grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "label time" "track track" "notes notes"; }
  .tl-axis { display: none; }
  .meta { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .charts { grid-template-columns: 1fr; }
}
@media print { .filters { display: none; } .incident { break-inside: avoid; content-visibility: visible; } }
`;

/**
 * Filters the incident list by cause, phase and retry safety. It only reads
 * `data-*` attributes and toggles `hidden`; it never writes markup. Without it
 * the page shows every incident.
 */
export const FILTER_SCRIPT = `
(() => {
  const form = document.getElementById('filters');
  if (!form) return;
  const items = Array.from(document.querySelectorAll('.incident'));
  const count = document.getElementById('filter-count');
  const selects = Array.from(form.querySelectorAll('select'));
  const apply = () => {
    let shown = 0;
    for (const item of items) {
      const match = selects.every((s) => s.value === '*' || item.dataset[s.name] === s.value);
      item.hidden = !match;
      if (match) shown += 1;
    }
    count.textContent = shown === items.length ? 'Showing all ' + items.length : 'Showing ' + shown + ' of ' + items.length;
  };
  for (const s of selects) s.addEventListener('change', apply);
  form.hidden = false;
  apply();
})();
`;
