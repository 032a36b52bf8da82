// <svc-timeseries>: daily clicks and unique visitors from GET /analytics/timeseries, as a line chart.
import { AnalyticsElement, CLICK_VISITORS, countNote, usageNote } from "./base-element";
import { dataTable, legend, lineChart } from "./charts";
import type { Fmt } from "./format";
import type { AnalyticsResult, TimeseriesRow } from "./types";

export class SvcTimeseriesElement extends AnalyticsElement<TimeseriesRow[]> {
  protected readonly heading = "Clicks per day";
  protected readonly path = "timeseries";

  protected override isEmpty({ analytics }: AnalyticsResult<TimeseriesRow[]>): boolean {
    return !analytics.some((r) => r.clicks > 0);
  }

  protected render({ analytics: rows, usage }: AnalyticsResult<TimeseriesRow[]>, f: Fmt): string {
    const clicks = rows.map((r) => r.clicks);
    const visitors = rows.map((r) => r.unique_visitors);
    const total = clicks.reduce((s, v) => s + v, 0);
    const first = rows[0]?.date ?? "";
    const last = rows[rows.length - 1]?.date ?? "";
    const label = `Clicks and unique visitors per day, ${f.date(first)} to ${f.date(last)}: ${f.n(total)} clicks in total, peak ${f.n(Math.max(...clicks))} on one day.`;
    return (
      legend([
        { name: "Clicks", cls: "a" },
        { name: "Visitors", cls: "b" },
      ]) +
      lineChart(
        label,
        rows.map((r) => f.day(r.date)),
        [
          { name: "Clicks", values: clicks, cls: "a" },
          { name: "Visitors", values: visitors, cls: "b" },
        ],
        (v) => f.n(v),
        rows.map((r) => `${f.date(r.date)}: ${f.n(r.clicks)} clicks, ${f.n(r.unique_visitors)} unique visitors`),
      ) +
      dataTable(
        "Clicks per day",
        ["Date", "Clicks", "Visitors"],
        rows.map((r) => [f.date(r.date), f.n(r.clicks), f.n(r.unique_visitors)]),
      ) +
      countNote(CLICK_VISITORS) +
      usageNote(usage, f)
    );
  }
}
