// <svc-conversions>: conversion summary, revenue over time and time to convert, from
// GET /conversions/summary, /timeseries and /time-to-convert (docs/api.md "Conversions"); with
// `compare` (previous | year) the figures' earlier values and the earlier revenue as a second line.
import { SvcElement } from "./base-element";
import { dataTable, hBars, legend, lineChart, stats } from "./charts";
import { changeNote, compareAttr } from "./compare";
import type { Fmt } from "./format";
import type { Compared, Comparison, ConversionPoint, ConversionSummary, TimeToConvert } from "./types";

export interface ConversionsData {
  summary: Compared<ConversionSummary>;
  timeseries: ConversionPoint[];
  /** With `compare`: the compared window's points and the change of the series' sums. */
  previous?: Comparison<ConversionPoint[]>;
  timeToConvert: TimeToConvert;
}

/** The timeseries answer: the bare list, or with `compare` the list under `analytics`. */
type SeriesAnswer = ConversionPoint[] | { analytics: ConversionPoint[]; comparison?: Comparison<ConversionPoint[]> };

type Interval = "hour" | "day" | "week" | "month";

export class SvcConversionsElement extends SvcElement<ConversionsData> {
  static override observedAttributes = [...SvcElement.observedAttributes, "link-id", "period", "interval", "currency", "compare"];
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
    const compare = compareAttr(this);
    const [summary, series, timeToConvert] = await Promise.all([
      this.get<Compared<ConversionSummary>>("/conversions/summary", { ...q, compare }, signal),
      this.get<SeriesAnswer>("/conversions/timeseries", { ...q, interval: this.interval, compare }, signal),
      this.get<TimeToConvert>("/conversions/time-to-convert", q, signal),
    ]);
    if (Array.isArray(series)) return { summary, timeseries: series, timeToConvert };
    return { summary, timeseries: series.analytics, ...(series.comparison ? { previous: series.comparison } : {}), timeToConvert };
  }

  protected override isEmpty(d: ConversionsData): boolean {
    return !d.summary.total_conversions;
  }
  protected override emptyText(): string {
    return `No conversions in the last ${this.period}.`;
  }

  protected render({ summary: s, timeseries: ts, previous, timeToConvert: t }: ConversionsData, f: Fmt): string {
    const hourly = this.interval === "hour";
    const when = (x: string) => (hourly ? f.dateTime(x) : f.date(x));
    const revenue = ts.map((p) => p.revenue);
    const c = s.comparison;
    const earlier = previous ? (previous.compare === "year" ? "A year before" : "Previous period") : "";
    // The compared window has the same whole weeks: its points line up with the current ones by position.
    const before = previous ? ts.map((_, i) => previous.data[i]?.revenue ?? 0) : [];
    const seriesLabel = `Revenue per ${this.interval} over ${this.period}: ${f.money(revenue.reduce((a, b) => a + b, 0))} in total.`;
    const ttcLabel = `Time from first click to conversion: ` + t.buckets.map((b) => `${b.label} ${f.n(b.count)}`).join(", ") + ".";
    return (
      stats([
        ["Conversions", f.n(s.total_conversions), changeNote(c, "total_conversions", f)],
        ["Unique converters", f.n(s.unique_converters), changeNote(c, "unique_converters", f)],
        ["Revenue", f.money(s.total_revenue), moneyNote(c, "total_revenue", f)],
        ["Average order value", f.money(s.average_order_value), moneyNote(c, "average_order_value", f)],
        ["Conversion rate", f.pct(s.conversion_rate)],
      ]) +
      `<h3>Revenue</h3>` +
      legend([
        { name: "Revenue", cls: "a" },
        ...(previous ? [{ name: earlier, cls: "b" as const, total: f.money(previous.change.revenue?.previous ?? 0) }] : []),
      ]) +
      lineChart(
        seriesLabel,
        ts.map((p) => (hourly ? f.dateTime(p.timestamp) : f.day(p.timestamp))),
        [{ name: "Revenue", values: revenue, cls: "a" }, ...(previous ? [{ name: earlier, values: before, cls: "b" as const }] : [])],
        (v) => f.money(v),
        ts.map(
          (p, i) =>
            `${when(p.timestamp)}: ${f.money(p.revenue)}, ${f.n(p.conversions)} conversions` +
            (previous ? `; ${earlier.toLowerCase()} ${f.money(before[i])}` : ""),
        ),
      ) +
      dataTable(
        "Revenue",
        ["Date", "Conversions", "Revenue", ...(previous ? [`${earlier}: date`, `${earlier}: conversions`, `${earlier}: revenue`] : [])],
        ts.map((p, i) => {
          const b = previous?.data[i];
          const then = previous ? (b ? [when(b.timestamp), f.n(b.conversions), f.money(b.revenue)] : ["—", "—", "—"]) : [];
          return [when(p.timestamp), f.n(p.conversions), f.money(p.revenue), ...then];
        }),
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

/** changeNote with the earlier value as money. */
function moneyNote(c: Comparison<object> | undefined, field: string, f: Fmt): string | undefined {
  return changeNote(c, field, f, (v) => f.money(v));
}
