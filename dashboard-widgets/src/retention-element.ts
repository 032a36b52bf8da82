// <svc-retention link-id weeks="8">: weekly cohorts of a link's new visitors and how many came back in
// each following week, from GET /journey/links/{link_id}/retention (docs/insights.md).
import { SvcElement } from "./base-element";
import { compareAttr, changeNote } from "./compare";
import { dataTable, esc, stats } from "./charts";
import type { Fmt } from "./format";
import type { Compared, RetentionReport } from "./types";

type Retention = Compared<RetentionReport>;

export class SvcRetentionElement extends SvcElement<Retention> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "weeks", "compare"];
  protected readonly heading = "Retention";
  protected readonly scope = "journey:read";

  protected override missing(): string | null {
    return this.linkId ? null : "Pick a link: set the link-id attribute to the id of a link.";
  }

  protected load(signal: AbortSignal): Promise<Retention> {
    return this.get(
      `/journey/links/${encodeURIComponent(this.linkId!)}/retention`,
      { weeks: this.getAttribute("weeks"), compare: compareAttr(this) },
      signal,
    );
  }

  protected override isEmpty(d: Retention): boolean {
    return d.visitors === 0;
  }
  protected override emptyText(): string {
    return "No new visitors in these weeks.";
  }

  protected render(d: Retention, f: Fmt): string {
    const width = Math.max(0, ...d.cohorts.map((c) => c.returns.length));
    const head = ["Week", "New visitors", ...Array.from({ length: width }, (_, i) => `Week ${i + 1}`)];
    const cell = (rate: number, text: string) =>
      `<td style="background:color-mix(in srgb, var(--_accent) ${Math.round(rate * 0.6)}%, transparent)">${esc(text)}</td>`;
    const grid = d.cohorts
      .map(
        (c) =>
          `<tr><th scope="row">${esc(f.date(c.week))}</th><td>${esc(f.n(c.visitors))}</td>${c.returns.map((r) => cell(r.rate, c.visitors ? f.pct(r.rate) : "—")).join("")}</tr>`,
      )
      .join("");
    return (
      stats([
        ["New visitors", f.n(d.visitors), changeNote(d.comparison, "visitors", f)],
        ["Came back", f.n(d.returning), changeNote(d.comparison, "returning", f)],
        ["Returning share", d.visitors ? f.pct((d.returning / d.visitors) * 100) : "—"],
      ]) +
      `<table class="cohorts"><caption>Returning visitors by week after their first visit</caption><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead><tbody>${grid}</tbody></table>` +
      dataTable(
        "Retention counts",
        head,
        d.cohorts.map((c) => [f.date(c.week), f.n(c.visitors), ...c.returns.map((r) => f.n(r.visitors))]),
      )
    );
  }
}
