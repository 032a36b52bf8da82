// <svc-conversions>: conversion summary, revenue over time and time to convert, from
// GET /conversions/summary, /timeseries and /time-to-convert (docs/api.md "Conversions").
import { SvcElement } from "./base-element";
import { dataTable, hBars, legend, lineChart, stats } from "./charts";
import type { Fmt } from "./format";
import type { ConversionPoint, ConversionSummary, TimeToConvert } from "./types";

export interface ConversionsData {
  summary: ConversionSummary;
  timeseries: ConversionPoint[];
  timeToConvert: TimeToConvert;
}

type Interval = "hour" | "day" | "week" | "month";

export class SvcConversionsElement extends SvcElement<ConversionsData> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "period", "interval", "currency"];
  protected readonly heading = "Conversions";
  protected readonly scope = "conversions:read";

  /** Bucket of the revenue timeseries; default day. */
  get interval(): Interval {
    const i = this.getAttribute("interval") as Interval;
    return ["hour", "week", "month"].includes(i) ? i : "day";
  }
  /** ISO 4217 code revenue is shown in; default USD. */
  get currency(): string {
    return this.getAttribute("currency") || "USD";
  }

  protected async load(signal: AbortSignal): Promise<ConversionsData> {
    const q = { period: this.period, link_id: this.linkId };
    const [summary, timeseries, timeToConvert] = await Promise.all([
      this.get<ConversionSummary>("/conversions/summary", q, signal),
      this.get<ConversionPoint[]>("/conversions/timeseries", { ...q, interval: this.interval }, signal),
      this.get<TimeToConvert>("/conversions/time-to-convert", q, signal),
    ]);
    return { summary, timeseries, timeToConvert };
  }

  protected override isEmpty(d: ConversionsData): boolean {
    return !d.summary.total_conversions;
  }
  protected override emptyText(): string {
    return `No conversions in the last ${this.period}.`;
  }

  protected render({ summary: s, timeseries: ts, timeToConvert: t }: ConversionsData, f: Fmt): string {
    const hourly = this.interval === "hour";
    const when = (x: string) => (hourly ? f.dateTime(x) : f.date(x));
    const revenue = ts.map((p) => p.revenue);
    const seriesLabel = `Revenue per ${this.interval} over ${this.period}: ${f.money(revenue.reduce((a, b) => a + b, 0))} in total.`;
    const ttcLabel = `Time from first click to conversion: ` + t.buckets.map((b) => `${b.label} ${f.n(b.count)}`).join(", ") + ".";
    return (
      stats([
        ["Conversions", f.n(s.total_conversions)],
        ["Unique converters", f.n(s.unique_converters)],
        ["Revenue", f.money(s.total_revenue)],
        ["Average order value", f.money(s.average_order_value)],
        ["Conversion rate", f.pct(s.conversion_rate)],
      ]) +
      `<h3>Revenue</h3>` +
      legend([{ name: "Revenue", cls: "a" }]) +
      lineChart(
        seriesLabel,
        ts.map((p) => (hourly ? f.dateTime(p.timestamp) : f.day(p.timestamp))),
        [{ name: "Revenue", values: revenue, cls: "a" }],
        (v) => f.money(v),
        ts.map((p) => `${when(p.timestamp)}: ${f.money(p.revenue)}, ${f.n(p.conversions)} conversions`),
      ) +
      dataTable(
        "Revenue",
        ["Date", "Conversions", "Revenue"],
        ts.map((p) => [when(p.timestamp), f.n(p.conversions), f.money(p.revenue)]),
      ) +
      `<h3>Time to convert</h3>` +
      stats([
        ["Average", f.duration(t.average_seconds)],
        ["Median", f.duration(t.median_seconds)],
      ]) +
      hBars(
        ttcLabel,
        t.buckets.map((b) => ({ label: b.label, value: b.count, text: f.n(b.count) })),
      ) +
      dataTable(
        "Time to convert",
        ["Time to convert", "Conversions"],
        t.buckets.map((b) => [b.label, f.n(b.count)]),
      )
    );
  }
}
