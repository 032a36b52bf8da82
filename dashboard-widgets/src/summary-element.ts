// <svc-summary>: account click totals from GET /analytics/summary (docs/api.md "Click analytics").
import { AnalyticsElement, CLICK_VISITORS, usageNote } from "./base-element";
import { stats } from "./charts";
import type { Fmt } from "./format";
import type { AnalyticsResult, SummaryRow } from "./types";

export class SvcSummaryElement extends AnalyticsElement<SummaryRow> {
  protected readonly heading = "Clicks";
  protected readonly path = "summary";

  protected render({ analytics: a, usage: u }: AnalyticsResult<SummaryRow>, f: Fmt): string {
    const limit = u.click_limit == null ? "unlimited" : `of ${f.n(u.click_limit)}`;
    return (
      stats([
        [`${CLICKS_NAME[this.botFilter]}, last ${this.days} days`, f.n(a.total_clicks)],
        ["Visitors", f.n(a.unique_visitors), CLICK_VISITORS],
        ["Today", f.n(a.today_clicks), changeText(a.today_clicks, a.yesterday_clicks, f)],
        ["Yesterday", f.n(a.yesterday_clicks)],
        ["Links", f.n(a.total_links)],
        ["Links with clicks", f.n(a.active_links), `of ${f.n(a.total_links_count)}; ${f.n(a.links_this_month)} new this month`],
        // A shared dashboard's answer leaves the account's own figures out (docs/sharing.md).
        ...(u.tier === undefined
          ? []
          : [["All clicks this month", f.n(u.clicks_this_month), `${limit} (${u.tier}); bots included`] as [string, string, string]]),
        ["Last click", f.dateTime(a.last_click_at)],
      ]) + usageNote(u, f)
    );
  }
}

/** The clicks the bot filter counts, by their names in the console and docs/console.md "Figures". */
const CLICKS_NAME = { real: "Clicks", bot: "Bot clicks", all: "All clicks" } as const;

/** "+30 (+25%) vs yesterday"; the percentage only when yesterday had clicks. */
export function changeText(today: number, yesterday: number, f: Fmt): string {
  const diff = today - yesterday;
  if (!diff) return "same as yesterday";
  const pct = yesterday ? ` (${f.pct((diff / yesterday) * 100, true)})` : "";
  return `${diff > 0 ? "▲" : "▼"} ${f.signed(diff)}${pct} vs yesterday`;
}
