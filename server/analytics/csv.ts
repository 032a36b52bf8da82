// The click reports as CSV tables (server/http/csv-report.ts; docs/exports.md "Reports as CSV"). A
// report with `group_by` adds one row per group after the totals they split: the rows whose
// `group_by` is empty are the totals.
import { csvTable, type CsvColumn } from "../http/csv-report";
import type { AnalyticsResult } from "./service";
import type { DeviceRow, GeoRow, HourlyRow, LinkClicksRow, LinkStats, ReferrerRow, SummaryRow, TimeseriesRow } from "./model";

type Row = Record<string, unknown>;
type Group = Record<string, unknown> & { variant?: string; rule?: number; source?: string };

const col = <R = Row>(name: string, description: string, value?: (row: R) => unknown): CsvColumn<R> => ({ name, description, value });
const CLICKS = [col("clicks", "clicks"), col("unique_visitors", "unique visitors, each counted once per UTC day")];
const GROUP = [
  col("group_by", "empty on a totals row; variant, rule or source on a group's row"),
  col("group_value", "the variant's URL, the rule's 1-based position or the source (link, qr)"),
  col("link_id", "for a variant or rule: the link it belongs to"),
];

/** A group's row: which group, and its value under the one name group_by gave it. */
const groupRow = (g: Group): Row => {
  const by = g.variant !== undefined ? "variant" : g.rule !== undefined ? "rule" : "source";
  return { ...g, group_by: by, group_value: g[by] };
};

const SUMMARY_COLUMNS = [
  "total_clicks",
  "unique_visitors",
  "total_links",
  "last_click_at",
  "today_clicks",
  "yesterday_clicks",
  "active_links",
  "total_links_count",
  "links_this_month",
  "clicks_this_month",
] as const;

export const csvSummary = csvTable({
  file: "analytics-summary",
  rows: "One row of totals, then with `group_by` one row per group (its clicks in `total_clicks`).",
  toRows: ({ analytics: { groups, ...totals } }: AnalyticsResult<SummaryRow>) => [
    totals as Row,
    ...(groups ?? []).map((g) => {
      const { clicks, ...rest } = groupRow(g as Group);
      return { ...rest, total_clicks: clicks };
    }),
  ],
  columns: [...GROUP, ...SUMMARY_COLUMNS.map((name) => col(name, `as \`${name}\` in the JSON answer`))],
});

export const csvTimeseries = csvTable({
  file: "analytics-timeseries",
  rows: "One row per UTC day, oldest first; with `group_by`, each day's groups follow its totals row.",
  toRows: ({ analytics }: AnalyticsResult<TimeseriesRow[]>) =>
    analytics.flatMap(({ groups, ...day }) => [day as Row, ...(groups ?? []).map((g) => ({ date: day.date, ...groupRow(g as Group) }))]),
  columns: [col("date", "YYYY-MM-DD (UTC)"), ...GROUP, ...CLICKS],
});

const breakdown = <R extends object>(file: string, rows: string, first: CsvColumn<Row>[], clicks = CLICKS) =>
  csvTable({
    file,
    rows,
    toRows: ({ analytics }: AnalyticsResult<R[]>) => analytics as unknown as Row[],
    columns: [...first, ...clicks],
  });

export const csvGeo = breakdown<GeoRow>("analytics-geo", "One row per country, most clicks first.", [
  col("country_code", "ISO 3166-1 alpha-2; XX when unknown"),
]);
export const csvDevices = breakdown<DeviceRow>(
  "analytics-devices",
  "One row per device type, browser and OS, most clicks first.",
  [col("device_type", "mobile, tablet or desktop"), col("browser", "browser family"), col("os", "operating system")],
  [CLICKS[0]],
);
export const csvReferrers = breakdown<ReferrerRow>("analytics-referrers", "One row per referrer host, most clicks first.", [
  col("referrer", "lower-case host; direct when none"),
]);
export const csvHourly = breakdown<HourlyRow>("analytics-hourly", "24 rows, hours 0–23 UTC.", [col("hour", "0–23, UTC")]);

export const csvLinks = csvTable({
  file: "analytics-links",
  rows: "One row per link asked for, in that order.",
  toRows: ({ analytics }: AnalyticsResult<LinkClicksRow[]>) => analytics,
  columns: [
    col("link_id", "the link"),
    col("clicks", "clicks in the range"),
    col<LinkClicksRow>("daily", "clicks per UTC day, oldest first, separated by `;`", (r) => r.daily.join(";")),
  ],
});

const STATS_COLUMNS = [
  "short_code",
  "original_url",
  "total_clicks",
  "unique_visitors",
  "bot_clicks",
  "human_clicks",
  "last_accessed_at",
  "is_active",
  "days_active",
  "average_clicks_per_day",
  "conversion_rate",
  "weight",
  "url",
  "conversions",
  "revenue",
  "imported_clicks",
] as const;

export const csvLinkStats = csvTable({
  file: "link-stats",
  rows: "One row of the link's numbers (with its `imported_clicks`, never part of the others), then with `group_by` one row per group (variant and rule rows add weight and url; `imported_clicks` empty).",
  toRows: ({ groups, ...stats }: LinkStats) => [stats as Row, ...(groups ?? []).map((g) => groupRow(g as Group))],
  columns: [...GROUP.slice(0, 2), ...STATS_COLUMNS.map((name) => col(name, `as \`${name}\` in the JSON answer`))],
});
