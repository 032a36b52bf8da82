// <svc-attribution model="first|last|linear" window-days="30" group-by="link|campaign">: conversions and
// revenue credited to the links or campaigns whose clicks brought the converting visitors, from
// GET /conversions/attribution (docs/insights.md "Attribution").
import { SvcElement } from "./base-element";
import { dataTable, esc, hBars, stats } from "./charts";
import type { Fmt } from "./format";
import type { AttributionReport } from "./types";

const MODEL_NAMES = { first: "First click", last: "Last click", linear: "Linear" } as const;
// The choices the `controls` attribute shows: attribute, label, value:text pairs.
const CONTROLS: [string, string, string][] = [
  ["model", "Model", "first:First click,last:Last click,linear:Linear"],
  ["window-days", "Window", "1:1 day,7:7 days,30:30 days,90:90 days"],
  ["group-by", "By", "link:Link,campaign:Campaign"],
];

export class SvcAttributionElement extends SvcElement<AttributionReport> {
  static override observedAttributes = [
    ...SvcElement.observedAttributes,
    "link-id",
    "period",
    "model",
    "window-days",
    "group-by",
    "currency",
  ];
  protected readonly heading = "Attribution";
  protected readonly scope = "conversions:read";

  constructor() {
    super();
    // A choice sets the attribute it names, which reloads the widget.
    this.shadowRoot!.addEventListener("change", (e) => {
      const select = e.target as HTMLSelectElement;
      if (select.dataset.attr) this.setAttribute(select.dataset.attr, select.value);
    });
  }

  /** With the `controls` attribute: selects for the model, the window and the grouping. */
  #controls(d: AttributionReport): string {
    if (!this.hasAttribute("controls")) return "";
    const current: Record<string, string> = { model: d.model, "window-days": String(d.window_days), "group-by": d.group_by };
    const selects = CONTROLS.map(([attr, label, options]) => {
      const opts = options
        .split(",")
        .map((o) => o.split(":"))
        .map(([v, text]) => `<option value="${esc(v)}"${v === current[attr] ? " selected" : ""}>${esc(text)}</option>`);
      return `<label>${esc(label)} <select data-attr="${esc(attr)}">${opts.join("")}</select></label>`;
    });
    return `<p class="controls">${selects.join(" ")}</p>`;
  }

  protected load(signal: AbortSignal): Promise<AttributionReport> {
    return this.get(
      "/conversions/attribution",
      {
        period: this.period,
        link_id: this.linkId,
        model: this.getAttribute("model"),
        window_days: this.getAttribute("window-days"),
        group_by: this.getAttribute("group-by"),
      },
      signal,
    );
  }

  protected override isEmpty(d: AttributionReport): boolean {
    return d.total_conversions === 0;
  }
  protected override emptyText(): string {
    return `No conversions in the last ${this.period}.`;
  }

  protected render(d: AttributionReport, f: Fmt): string {
    const what = d.group_by === "campaign" ? "Campaign" : "Link";
    const caption = `${MODEL_NAMES[d.model]} attribution by ${what.toLowerCase()}, ${d.window_days}-day window`;
    return (
      this.#controls(d) +
      stats([
        ["Conversions", f.n(d.total_conversions)],
        ["Attributed", f.n(d.attributed_conversions)],
        ["Revenue", f.money(d.total_revenue)],
      ]) +
      hBars(
        caption,
        d.rows.map((r) => ({ label: r.label, value: r.conversions, text: `${f.dec(r.conversions)} · ${f.money(r.revenue)}` })),
      ) +
      dataTable(
        caption,
        [what, "Conversions", "Revenue", "Share"],
        d.rows.map((r) => [r.label, f.dec(r.conversions), f.money(r.revenue), f.pct(r.share)]),
      )
    );
  }
}
