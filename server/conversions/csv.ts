// The conversion reports as CSV tables (server/http/csv-report.ts; docs/exports.md "Reports as CSV").
import type { Static } from "elysia";
import { csvTable, type CsvColumn } from "../http/csv-report";
import type { ConversionBreakdownRow, ConversionPoint, ConversionSummary, TimeToConvert } from "./model";

const same = <R>(names: readonly string[]): CsvColumn<R>[] =>
  names.map((name) => ({ name, description: `as \`${name}\` in the JSON answer` }));

export const csvConversionSummary = csvTable({
  file: "conversions-summary",
  rows: "One row.",
  toRows: (s: Static<typeof ConversionSummary>) => [s],
  columns: same(["total_conversions", "unique_converters", "total_revenue", "average_order_value", "conversion_rate"]),
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
