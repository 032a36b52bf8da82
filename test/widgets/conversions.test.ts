import { describe, expect, test } from "bun:test";
import {
  apiData,
  charts,
  en,
  loaded,
  mount,
  settled,
  setupWidgetTests,
  spyFetch,
  stat,
  statNote,
  useBackend,
  table,
  text,
} from "./helpers";

setupWidgetTests();
const b = useBackend();

const usd = (v: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(v);
const pct = (v: number, signed = false) =>
  new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" }).format(
    v / 100,
  );
const day = (s: string) => new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(s));

describe("<svc-conversions>", () => {
  test("summary, revenue series and time to convert equal the API", async () => {
    const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.full, period: "7d" });
    const detail = await loaded(el);
    const q = { period: "7d" };
    const summary = await apiData(b, "/conversions/summary", q);
    const series = await apiData(b, "/conversions/timeseries", { ...q, interval: "day" });
    const ttc = await apiData(b, "/conversions/time-to-convert", q);
    expect(detail).toEqual({ summary, timeseries: series, timeToConvert: ttc });

    expect(stat(el, "Conversions")).toBe(en(summary.total_conversions));
    expect(stat(el, "Unique converters")).toBe(en(summary.unique_converters));
    expect(stat(el, "Revenue")).toBe(usd(summary.total_revenue));
    expect(stat(el, "Average order value")).toBe(usd(summary.average_order_value));
    expect(stat(el, "Conversion rate")).toBe(pct(summary.conversion_rate));

    expect(table(el, "Revenue")).toEqual([
      ["Date", "Conversions", "Revenue"],
      ...series.map((p: any) => [day(p.timestamp), en(p.conversions), usd(p.revenue)]),
    ]);
    expect(table(el, "Time to convert")).toEqual([
      ["Time to convert", "Conversions"],
      ...ttc.buckets.map((x: any) => [x.label, en(x.count)]),
    ]);
    const [revenueChart, ttcChart] = charts(el);
    expect(revenueChart.querySelectorAll("polyline").length).toBe(1);
    expect(ttcChart.querySelectorAll("rect.bar").length).toBe(ttc.buckets.length);
    expect(ttcChart.getAttribute("aria-label")).toContain(`${ttc.buckets[0].label} ${en(ttc.buckets[0].count)}`);
  });

  test("compare=year: the figures' earlier values and the earlier revenue beside the current", async () => {
    const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.full, period: "30d", compare: "year" });
    const detail = await loaded(el);
    const q = { period: "30d", compare: "year" };
    const summary = await apiData(b, "/conversions/summary", q);
    const series = await apiData(b, "/conversions/timeseries", { ...q, interval: "day" });
    expect(detail.summary).toEqual(summary);
    expect(detail.timeseries).toEqual(series.analytics);
    expect(detail.previous).toEqual(series.comparison);
    const ch = summary.comparison.change.total_conversions;
    expect(statNote(el, "Conversions")).toBe(
      `was ${en(ch.previous)} a year before${ch.change_percent === null ? "" : ` (${pct(ch.change_percent, true)})`}`,
    );
    expect(statNote(el, "Revenue")).toStartWith(`was ${usd(summary.comparison.change.total_revenue.previous)} a year before`);
    const rows = table(el, "Revenue");
    expect(rows[0]).toEqual([
      "Date",
      "Conversions",
      "Revenue",
      "A year before: date",
      "A year before: conversions",
      "A year before: revenue",
    ]);
    expect(rows.slice(1).map((r) => r.slice(3))).toEqual(
      series.analytics.map((_: unknown, i: number) => {
        const p = series.comparison.data[i];
        return p ? [day(p.timestamp), en(p.conversions), usd(p.revenue)] : ["—", "—", "—"];
      }),
    );
    expect(charts(el)[0].querySelectorAll("polyline").length).toBe(2);
  });

  test("average and median time to convert use the largest fitting unit", async () => {
    const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.full });
    const { timeToConvert: t } = await loaded(el);
    const unit = (sec: number) => {
      const [u, d] = sec < 60 ? ["second", 1] : sec < 3600 ? ["minute", 60] : sec < 86400 ? ["hour", 3600] : ["day", 86400];
      return new Intl.NumberFormat("en-US", { style: "unit", unit: u as string, unitDisplay: "short", maximumFractionDigits: 1 }).format(
        sec / (d as number),
      );
    };
    expect(stat(el, "Average")).toBe(unit(t.average_seconds));
    expect(stat(el, "Median")).toBe(unit(t.median_seconds));
  });

  test("currency and locale: EUR in de-DE", async () => {
    document.documentElement.lang = "de-DE";
    const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.full, currency: "EUR" });
    const { summary } = await loaded(el);
    const eur = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).format(summary.total_revenue);
    expect(stat(el, "Revenue")).toBe(eur);
    expect(eur).toContain("€");
  });

  test("link-id narrows all three requests to the link", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.full, period: "90d" });
      await loaded(el);
      expect(spy.urls.length).toBe(3);
      expect(spy.urls.every((u) => u.searchParams.get("period") === "90d" && !u.searchParams.has("link_id"))).toBe(true);
      const next = settled(el);
      el.setAttribute("link-id", b.linkId);
      await next;
      expect(spy.urls.length).toBe(6);
      expect(spy.urls.slice(3).every((u) => u.searchParams.get("link_id") === b.linkId)).toBe(true);
      const summary = await apiData(b, "/conversions/summary", { period: "90d", link_id: b.linkId });
      expect(stat(el, "Conversions")).toBe(en(summary.total_conversions));
    } finally {
      spy.restore();
    }
  });

  test("no conversions: empty state", async () => {
    const el = mount("svc-conversions", { "api-base": b.base, "api-key": b.keys.empty, period: "24h" });
    await loaded(el);
    expect(el.state).toBe("empty");
    expect(text(el)).toContain("No conversions in the last 24h.");
  });
});
