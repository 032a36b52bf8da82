// The headline numbers the page renders on the server (read without JavaScript): the click totals,
// the link's totals and the conversion totals, over the same 30 days the widgets show first.
import type { AccountRecord } from "../accounts/principal";
import type { ShareReport } from "./model";
import type { Figure } from "./page";
import type { ShareRow } from "./repository";
import * as viewer from "./viewer";

const n = new Intl.NumberFormat("en");
const pct = (v: number) => `${new Intl.NumberFormat("en", { maximumFractionDigits: 2 }).format(v)}%`;
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "never");

export async function dashboardFigures(
  deps: viewer.ReportDeps,
  row: ShareRow,
  account: AccountRecord,
): Promise<Partial<Record<ShareReport, Figure[]>>> {
  const out: Partial<Record<ShareReport, Figure[]>> = {};
  const jobs: Promise<void>[] = [];
  if (viewer.shows(row, "summary"))
    jobs.push(
      viewer.clickReport(deps, row, account, "summary", { days: 30 }).then(({ analytics }) => {
        const a = analytics as {
          total_clicks: number;
          unique_visitors: number;
          today_clicks: number;
          yesterday_clicks: number;
          last_click_at: string | null;
        };
        out.summary = [
          ["Clicks", n.format(a.total_clicks)],
          ["Visitors", n.format(a.unique_visitors)],
          ["Today", n.format(a.today_clicks)],
          ["Yesterday", n.format(a.yesterday_clicks)],
          ["Last click", when(a.last_click_at)],
        ];
      }),
    );
  if (viewer.shows(row, "link_stats") && row.scope === "link")
    jobs.push(
      viewer.linkStats(deps, row).then((s) => {
        out.link_stats = [
          ["Short code", s.short_code],
          ["All clicks", n.format(s.total_clicks)],
          ["Visitors", n.format(s.unique_visitors)],
          ["Click conversion rate", pct(s.conversion_rate)],
        ];
      }),
    );
  if (viewer.shows(row, "funnel") && row.scope === "link" && row.funnelSteps)
    jobs.push(
      viewer.funnel(deps, row, { period: "30d" }).then((f) => {
        out.funnel = [["Visitors", n.format(f.total_visitors)], ...f.steps.map((s): Figure => [s.step_name, n.format(s.visitors)])];
      }),
    );
  if (viewer.shows(row, "conversions"))
    jobs.push(
      viewer.conversionSummary(deps, row, { period: "30d" }).then((c) => {
        out.conversions = [
          ["Conversions", n.format(c.total_conversions)],
          ["Unique converters", n.format(c.unique_converters)],
          ["Revenue", n.format(c.total_revenue)],
          ["Conversion rate", pct(c.conversion_rate)],
        ];
      }),
    );
  await Promise.all(jobs);
  return out;
}
