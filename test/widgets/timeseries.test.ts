import { describe, expect, test } from "bun:test";
import { apiData, charts, en, loaded, mount, settled, setupWidgetTests, useBackend, table, text } from "./helpers";

setupWidgetTests();
const b = useBackend();

const longDate = (d: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(d + "T00:00:00Z"));

describe("<svc-timeseries>", () => {
  test("the table lists every day with the API numbers, and the chart has two lines", async () => {
    const el = mount("svc-timeseries", { "api-base": b.base, "api-key": b.keys.full, days: 14 });
    await loaded(el);
    const rows = (await apiData(b, "/analytics/timeseries", { days: 14, bot_filter: "real" })).analytics;
    expect(rows.length).toBe(14);
    expect(table(el, "Clicks per day")).toEqual([
      ["Date", "Clicks", "Visitors"],
      ...rows.map((r: any) => [longDate(r.date), en(r.clicks), en(r.unique_visitors)]),
    ]);
    const [svg] = charts(el);
    expect(svg.getAttribute("role")).toBe("img");
    expect(svg.getAttribute("tabindex")).toBe("0");
    const total = rows.reduce((s: number, r: any) => s + r.clicks, 0);
    expect(svg.getAttribute("aria-label")).toContain(`${en(total)} clicks in total`);
    expect(svg.querySelector("title")?.textContent).toBe(svg.getAttribute("aria-label")!);
    expect(svg.querySelectorAll("polyline").length).toBe(2);
    expect(svg.querySelectorAll("polyline")[0].getAttribute("points")!.split(" ").length).toBe(14);
    // one tooltip per day
    const tips = [...svg.querySelectorAll("rect.hit title")].map((t) => t.textContent);
    expect(tips.length).toBe(14);
    expect(tips[0]).toBe(`${longDate(rows[0].date)}: ${en(rows[0].clicks)} clicks, ${en(rows[0].unique_visitors)} unique visitors`);
    expect(text(el)).toContain("Clicks Visitors"); // legend
    expect(text(el)).toContain("Visitors are counted once per UTC day: no stored identifier crosses days."); // beside the table
  });

  test("the keyboard reaches the chart and the table summary", async () => {
    const el = mount("svc-timeseries", { "api-base": b.base, "api-key": b.keys.full, days: 7 });
    await loaded(el);
    const root = el.shadowRoot!;
    expect(root.querySelector("details > summary")?.textContent).toBe("Table: Clicks per day");
    expect(root.querySelector("svg.chart")?.getAttribute("tabindex")).toBe("0");
  });

  test("a window without clicks shows the empty state", async () => {
    const el = mount("svc-timeseries", { "api-base": b.base, "api-key": b.keys.empty, days: 7 });
    await loaded(el);
    expect(el.state).toBe("empty");
    expect(text(el)).toContain("No clicks in the last 7 days.");
    expect(charts(el).length).toBe(0);
  });

  test("changing days refetches and redraws", async () => {
    const el = mount("svc-timeseries", { "api-base": b.base, "api-key": b.keys.full, days: 7 });
    await loaded(el);
    expect(table(el).length).toBe(8);
    const next = settled(el);
    el.setAttribute("days", "30");
    await next;
    expect(table(el).length).toBe(31);
  });
});
