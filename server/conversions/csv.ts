// The conversion reports as CSV tables (server/http/csv-report.ts; docs/exports.md "Reports as CSV").
import type { Static } from "elysia";
import { csvTable, type CsvColumn } from "../http/csv-report";
import type { ConversionBreakdownRow, ConversionPoint, ConversionSummary, TimeToConvert } from "./model";

const same = <R>(names: readonly string[]): CsvColumn<R>[] =>
  names.map((name) => ({ name, description: `as \`${name}\` in the JSON answer` }));

type Summary = Static<typeof ConversionSummary>;
type Imported = NonNullable<Summary["imported"]>;

/** The JSON's `imported` (only with link_id): its totals, then one row per goal and per day, marked with the product. */
const importedRows = (i: Imported) =>
  [
    { from: i.from, to: i.to, own_data_from: i.own_data_from, total_conversions: i.conversions, unique_converters: i.converters },
    ...i.by_goal.map((g) => ({ goal: g.name, total_conversions: g.conversions })),
    ...i.daily.map((d) => ({ date: d.date, total_conversions: d.conversions })),
  ].map((r) => ({ imported_from: i.source, ...r }));

export const csvConversionSummary = csvTable({
  file: "conversions-summary",
  rows: "One row of our own figures; then, with link_id when the link has imported goals, the JSON's `imported` as rows whose `imported_from` names the product (never part of the first row): its totals, one row per goal (`goal`) and one per day (`date`).",
  toRows: ({ imported, ...own }: Summary) => [own, ...(imported ? importedRows(imported) : [])] as Record<string, unknown>[],
  columns: [
    ...same(["total_conversions", "unique_converters", "total_revenue", "average_order_value", "conversion_rate"]),
    { name: "imported_from", description: "empty for our own figures; on an imported row, the product it comes from (plausible)" },
    { name: "goal", description: "on an imported goal's row, its name (total_conversions: its conversions)" },
    { name: "date", description: "on an imported day's row, the day (YYYY-MM-DD, the source's time zone; total_conversions: that day's)" },
    { name: "from", description: "on the imported totals row, the first imported day shown" },
    { name: "to", description: "on the imported totals row, the last imported day shown" },
    {
      name: "own_data_from",
      description: "on the imported totals row, the day (UTC) of the link's first own journey event; empty when it has none",
    },
  ],
});

export const csvConversionTimeseries = csvTable({
  file: "conversions-timeseries",
  rows: "One row per interval, oldest first.",
  toRows: (points: Static<typeof ConversionPoint>[]) => points,
  columns: same(["timestamp", "conversions", "revenue"]),
});

export const csvConversionBreakdown = csvTable({
  file: "conversions-breakdown",
  rows: "One row per value of the dimension, most conversions first.",
  toRows: (rows: Static<typeof ConversionBreakdownRow>[]) => rows,
  columns: same(["label", "conversions", "revenue", "conversion_rate"]),
});

export const csvTimeToConvert = csvTable({
  file: "conversions-time-to-convert",
  rows: "One row per bucket (`metric` bucket, `name` its label), then average_seconds and median_seconds.",
  toRows: (t: Static<typeof TimeToConvert>) => [
    ...t.buckets.map((b) => ({ metric: "bucket", name: b.label, value: b.count })),
    { metric: "average_seconds", value: t.average_seconds },
    { metric: "median_seconds", value: t.median_seconds },
  ],
  columns: [
    { name: "metric", description: "bucket, average_seconds or median_seconds" },
    { name: "name", description: "the bucket's label; empty otherwise" },
    { name: "value", description: "conversions in the bucket, or seconds" },
  ],
});
