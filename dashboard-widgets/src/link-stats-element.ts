// <svc-link-stats link-id>: one link's totals from GET /links/{id}/stats (docs/api.md "Click analytics").
import { CLICK_VISITORS, SvcElement } from "./base-element";
import { esc, hBars, stats } from "./charts";
import type { Fmt } from "./format";
import type { LinkStats } from "./types";

export class SvcLinkStatsElement extends SvcElement<LinkStats> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id"];
  protected readonly heading = "Link";
  protected readonly scope = "analytics:read";

  protected override missing(): string | null {
    return this.linkId ? null : "Pick a link: set the link-id attribute to the id of a link.";
  }

  protected load(signal: AbortSignal): Promise<LinkStats> {
    return this.get(`/links/${encodeURIComponent(this.linkId!)}/stats`, {}, signal);
  }

  protected render(d: LinkStats, f: Fmt): string {
    const safe = /^https?:\/\//i.test(d.original_url);
    const url = safe
      ? `<a href="${esc(d.original_url)}" rel="noopener noreferrer" target="_blank">${esc(d.original_url)}</a>`
      : esc(d.original_url);
    const kinds = [
      { label: "Clicks", value: d.human_clicks, text: f.n(d.human_clicks) },
      { label: "Bot clicks", value: d.bot_clicks, text: f.n(d.bot_clicks) },
    ];
    return (
      `<p><strong class="code">${esc(d.short_code)}</strong> <span class="badge">${d.is_active ? "Active" : "Inactive"}</span><br><span class="muted">→ ${url}</span></p>` +
      stats([
        ["Clicks", f.n(d.human_clicks), "people"],
        ["Bot clicks", f.n(d.bot_clicks)],
        ["All clicks", f.n(d.total_clicks)],
        ["Visitors", f.n(d.unique_visitors), CLICK_VISITORS],
        ["Clicks per day", f.dec(d.average_clicks_per_day), `over ${f.n(d.days_active)} ${d.days_active == 1 ? "day" : "days"} active`],
        ["Click conversion rate", f.pct(d.conversion_rate)],
        ["Last click", f.dateTime(d.last_accessed_at)],
      ]) +
      hBars(`Human and bot clicks: ${f.n(d.human_clicks)} human, ${f.n(d.bot_clicks)} bot.`, kinds)
    );
  }
}
