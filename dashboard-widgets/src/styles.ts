// Owns the look shared by every widget: the public --svc-* custom properties, their light and
// dark defaults (prefers-color-scheme, overridden by theme="light|dark"), and the chart classes.

const dark =
  "--_bg:var(--svc-bg,#111827);--_fg:var(--svc-fg,#f3f4f6);--_muted:var(--svc-muted,#9ca3af);--_accent:var(--svc-accent,#60a5fa);" +
  "--_accent2:var(--svc-accent-2,#fbbf24);--_border:var(--svc-border,#374151);--_danger:var(--svc-danger,#fca5a5);--_grid:var(--svc-grid,#1f2937)";

export const css = `
:host{--_bg:var(--svc-bg,#fff);--_fg:var(--svc-fg,#111827);--_muted:var(--svc-muted,#6b7280);--_accent:var(--svc-accent,#2563eb);
--_accent2:var(--svc-accent-2,#d97706);--_border:var(--svc-border,#e5e7eb);--_danger:var(--svc-danger,#b91c1c);--_grid:var(--svc-grid,#f3f4f6);
display:block;box-sizing:border-box;background:var(--_bg);color:var(--_fg);border:1px solid var(--_border);
border-radius:var(--svc-radius,8px);padding:var(--svc-padding,16px);font:var(--svc-font-size,14px)/1.45 var(--svc-font,system-ui,-apple-system,"Segoe UI",sans-serif)}
:host([theme=dark]){${dark}}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){${dark}}}
:host([hidden]){display:none}
*{box-sizing:border-box}
header{display:flex;justify-content:space-between;align-items:baseline;gap:8px;margin-bottom:8px}
h2{font-size:1em;margin:0;font-weight:600}
.status,.note,.muted,caption,.axis,.lbl{color:var(--_muted);fill:var(--_muted)}
.status{font-size:.85em}
.busy .content{opacity:.5}
.error{color:var(--_danger);border-left:3px solid var(--_danger);padding:4px 10px}
.error p{margin:4px 0}
.empty{color:var(--_muted);margin:16px 0}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9em,1fr));gap:12px;margin:0 0 12px}
.stats div{min-width:0}
dt{font-size:.8em;color:var(--_muted)}
dd{margin:0;font-size:1.5em;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
dd.long{font-size:1em;padding-top:.3em}
dd.note{font-size:.8em;font-weight:400;color:var(--_muted)}
.up{color:#15803d}.down{color:var(--_danger)}
.chart{display:block;overflow:visible;font-size:11px;margin:8px 0}
.chart:focus-visible,summary:focus-visible,a:focus-visible{outline:2px solid var(--_accent);outline-offset:2px}
.grid{stroke:var(--_grid);stroke-width:1}
.line{fill:none;stroke-width:2;vector-effect:non-scaling-stroke;stroke-linejoin:round}
.line.a{stroke:var(--_accent)}.line.b{stroke:var(--_accent2)}
.hit{fill:transparent}.hit:hover{fill:var(--_grid);fill-opacity:.6}
stop{stop-color:var(--_bg)}.bar{fill:var(--_accent)}.bar:hover,g:hover .bar{fill-opacity:.8}
.val{fill:var(--_fg);font-variant-numeric:tabular-nums}
.lbl{font-size:12px}
.legend{display:flex;gap:16px;list-style:none;padding:0;margin:0;font-size:.85em}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.sw.a{background:var(--_accent)}.sw.b{background:var(--_accent2)}
details{margin-top:8px}
summary{cursor:pointer;color:var(--_muted);font-size:.85em}
table{border-collapse:collapse;width:100%;margin-top:6px;font-size:.9em}
caption{text-align:left;font-size:.85em}
th,td{padding:3px 8px;border-bottom:1px solid var(--_border);text-align:right;font-variant-numeric:tabular-nums}
th[scope=row],thead th:first-child{text-align:left;font-weight:400}
thead th{font-weight:600}
a{color:var(--_accent)}
.badge{font-size:.8em;border:1px solid currentColor;border-radius:999px;padding:0 8px}
h3{font-size:.9em;margin:16px 0 4px;font-weight:600}
`;
