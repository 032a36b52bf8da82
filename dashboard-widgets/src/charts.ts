// Owns the markup pieces the widgets are built from: hand-written SVG charts (line, horizontal and
// vertical bars), the table alternative inside <details>, stat lists and legends. Pure functions
// returning HTML strings; every value passed in is escaped here.

export const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface Series {
  name: string;
  values: number[];
  /** Colour slot: a = --svc-accent, b = --svc-accent-2. */
  cls: "a" | "b";
}

export interface Bar {
  label: string;
  value: number;
  /** Shown as the bar's value text and tooltip. */
  text: string;
}

const H = 160; // plot height in px; axis labels go below

/** Axis maximum whose half is a round number: 2, 4, 6, 8, 10 × a power of ten. */
export function niceMax(v: number): number {
  if (!(v > 0)) return 2;
  const p = 10 ** Math.floor(Math.log10(v));
  return [2, 4, 6, 8, 10].find((m) => m * p >= v)! * p;
}

const svgOpen = (label: string, height: number) =>
  `<svg class="chart" role="img" tabindex="0" aria-label="${esc(label)}" width="100%" height="${height}"><title>${esc(label)}</title>`;

function grid(max: number, fmt: (v: number) => string): string {
  return [max, max / 2, 0]
    .map((v) => {
      const y = H - (v / max) * H + 0.5;
      return (
        `<line class="grid" x1="0" x2="100%" y1="${y}" y2="${y}"/>` +
        (v ? `<text class="axis" x="0" y="${y + 11}">${esc(fmt(v))}</text>` : "")
      );
    })
    .join("");
}

function xAxis(labels: string[]): string {
  const n = labels.length;
  if (!n) return "";
  const at = (i: number, x: string, anchor: string) =>
    `<text class="axis" x="${x}" y="${H + 16}" text-anchor="${anchor}">${esc(labels[i])}</text>`;
  return at(0, "0", "start") + (n > 2 ? at(n >> 1, "50%", "middle") : "") + (n > 1 ? at(n - 1, "100%", "end") : "");
}

/** Lines over a shared x axis; `tips[i]` is the tooltip for x position i. */
export function lineChart(label: string, xLabels: string[], series: Series[], fmt: (v: number) => string, tips: string[]): string {
  const n = xLabels.length;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const W = 1000;
  const x = (i: number) => (n < 2 ? W / 2 : (i / (n - 1)) * W);
  const lines = series
    .map(
      (s) =>
        `<polyline class="line ${s.cls}" points="${s.values.map((v, i) => `${x(i).toFixed(1)},${(H - (v / max) * H).toFixed(1)}`).join(" ")}"/>`,
    )
    .join("");
  const slot = W / Math.max(n, 1);
  const hits = tips
    .map(
      (t, i) =>
        `<rect class="hit" x="${(x(i) - slot / 2).toFixed(1)}" width="${slot.toFixed(1)}" height="${H}"><title>${esc(t)}</title></rect>`,
    )
    .join("");
  return (
    svgOpen(label, H + 22) +
    grid(max, fmt) +
    `<svg width="100%" height="${H}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none">${lines}${hits}</svg>` +
    xAxis(xLabels) +
    "</svg>"
  );
}

/** One bar per row, its label above it across the whole width: for ranked lists (countries, referrers, steps). */
export function hBars(label: string, bars: Bar[], max = Math.max(0, ...bars.map((b) => b.value))): string {
  const row = 40;
  const body = bars
    .map((b, i) => {
      const w = max > 0 ? (b.value / max) * 78 : 0;
      const y = i * row;
      // The label has the row's whole width (beside the bar, "news.ycombinator.com" was cut to
      // "news.ycombinator.co"); only a label longer than the widget is clipped, fading out, and the
      // tooltip and the table have it whole.
      return (
        `<g><title>${esc(b.label)}: ${esc(b.text)}</title><svg width="100%" height="20" y="${y}"><text class="lbl" x="0" y="15">${esc(b.label)}</text>` +
        `<rect x="92%" width="8%" height="20" fill="url(#fade)"/></svg>` +
        `<rect class="bar" x="0" y="${y + 20}" width="${w.toFixed(2)}%" height="14" rx="2"/>` +
        `<text class="val" x="${(1 + w).toFixed(2)}%" y="${y + 32}">${esc(b.text)}</text></g>`
      );
    })
    .join("");
  const fade = '<defs><linearGradient id="fade"><stop offset="0" stop-opacity="0"/><stop offset="1"/></linearGradient></defs>';
  return svgOpen(label, bars.length * row) + fade + body + "</svg>";
}

/** Columns over an x axis: for ordered categories (hours, days, delay buckets). */
export function vBars(label: string, bars: Bar[], fmt: (v: number) => string, xLabels = bars.map((b) => b.label)): string {
  const n = bars.length;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const slot = 100 / Math.max(n, 1);
  const body = bars
    .map((b, i) => {
      const h = (b.value / max) * H;
      return `<rect class="bar" x="${(i * slot + slot * 0.15).toFixed(2)}%" y="${(H - h).toFixed(1)}" width="${(slot * 0.7).toFixed(2)}%" height="${h.toFixed(1)}"><title>${esc(b.label)}: ${esc(b.text)}</title></rect>`;
    })
    .join("");
  return svgOpen(label, H + 22) + grid(max, fmt) + body + xAxis(xLabels) + "</svg>";
}

/** The accessible alternative to a chart: every value in a table, folded in a <details>. */
export function dataTable(caption: string, head: string[], rows: string[][], open = false): string {
  const th = head.map((h) => `<th scope="col">${esc(h)}</th>`).join("");
  const tr = rows
    .map((r) => `<tr>${r.map((c, i) => (i ? `<td>${esc(c)}</td>` : `<th scope="row">${esc(c)}</th>`)).join("")}</tr>`)
    .join("");
  return `<details${open ? " open" : ""}><summary>Table: ${esc(caption)}</summary><table><caption>${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table></details>`;
}

/** Headline numbers: [label, value, note?]. */
export function stats(items: [string, string, string?][]): string {
  const li = items.map(
    ([l, v, note]) =>
      `<div><dt>${esc(l)}</dt><dd${v.length > 12 ? ' class="long"' : ""}>${esc(v)}</dd>${note ? `<dd class="note">${esc(note)}</dd>` : ""}</div>`,
  );
  return `<dl class="stats">${li.join("")}</dl>`;
}

export function legend(series: { name: string; cls: "a" | "b"; total?: string }[]): string {
  const li = series.map(
    (s) => `<li><span class="sw ${s.cls}" aria-hidden="true"></span>${esc(s.name)}${s.total ? `: ${esc(s.total)}` : ""}</li>`,
  );
  return `<ul class="legend">${li.join("")}</ul>`;
}
