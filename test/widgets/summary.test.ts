import { describe, expect, test } from "bun:test";
import { apiData, en, loaded, mount, setAttrs, settled, setupWidgetTests, spyFetch, stat, statNote, useBackend, text } from "./helpers";

setupWidgetTests();
const b = useBackend();

describe("<svc-summary>", () => {
  test("shows the totals the API returns", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, days: 30 });
    const detail = await loaded(el);
    const api = await apiData(b, "/analytics/summary", { days: 30, bot_filter: "real" });
    expect(detail).toEqual(api);
    const a = api.analytics;
    expect(stat(el, "Clicks, last 30 days")).toBe(en(a.total_clicks));
    expect(stat(el, "Visitors")).toBe(en(a.unique_visitors));
    expect(statNote(el, "Visitors")).toBe("Visitors are counted once per UTC day: no stored identifier crosses days.");
    expect(stat(el, "Today")).toBe(en(a.today_clicks));
    expect(stat(el, "Yesterday")).toBe(en(a.yesterday_clicks));
    expect(stat(el, "Links")).toBe(en(a.total_links));
    expect(stat(el, "Links with clicks")).toBe(en(a.active_links));
    expect(statNote(el, "Links with clicks")).toContain(`of ${en(a.total_links_count)}`);
    expect(statNote(el, "Links with clicks")).toContain(`${en(a.links_this_month)} new this month`);
    expect(stat(el, "All clicks this month")).toBe(en(api.usage.clicks_this_month));
    expect(statNote(el, "All clicks this month")).toBe(`of ${en(api.usage.click_limit)} (${api.usage.tier}); bots included`);
    const when = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" }).format(new Date(a.last_click_at));
    expect(stat(el, "Last click")).toBe(when);
    expect(el.state).toBe("loaded");
  });

  test("today vs yesterday shows the signed change and percentage", async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, days: 7 });
    const { analytics: a } = await loaded(el);
    const diff = a.today_clicks - a.yesterday_clicks;
    const note = statNote(el, "Today")!;
    if (diff === 0) expect(note).toBe("same as yesterday");
    else if (a.yesterday_clicks === 0) {
      // the seeded clicks are all from today: a change, but no percentage of nothing
      expect(note).toBe(`▲ ${new Intl.NumberFormat("en-US", { signDisplay: "exceptZero" }).format(diff)} vs yesterday`);
    } else {
      expect(note).toContain(new Intl.NumberFormat("en-US", { signDisplay: "exceptZero" }).format(diff));
      const pct = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1, signDisplay: "exceptZero" }).format(
        diff / a.yesterday_clicks,
      );
      expect(note).toContain(`(${pct}) vs yesterday`);
      expect(note.startsWith(diff > 0 ? "▲" : "▼")).toBe(true);
    }
  });

  test("days and bot-filter are sent, and changing them refetches once with the new numbers", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, days: 30 });
      await loaded(el);
      expect(spy.urls.length).toBe(1);
      expect(spy.urls[0].pathname).toEndWith("/analytics/summary");
      expect(spy.urls[0].searchParams.get("days")).toBe("30");
      expect(spy.urls[0].searchParams.get("bot_filter")).toBe("real");

      const next = settled(el);
      setAttrs(el, { days: 7, "bot-filter": "bot" }); // two changes in one task: one request
      await next;
      expect(spy.urls.length).toBe(2);
      expect(spy.urls[1].searchParams.get("days")).toBe("7");
      expect(spy.urls[1].searchParams.get("bot_filter")).toBe("bot");
      const api = await apiData(b, "/analytics/summary", { days: 7, bot_filter: "bot" });
      // bot_filter=bot: the figure is named for what it counts.
      expect(stat(el, "Bot clicks, last 7 days")).toBe(en(api.analytics.total_clicks));
    } finally {
      spy.restore();
    }
  });

  test('an account without clicks shows zeros and "never" for the last click', async () => {
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.empty });
    const { analytics: a } = await loaded(el);
    expect(a.total_clicks).toBe(0);
    expect(stat(el, "Clicks, last 30 days")).toBe("0");
    expect(stat(el, "Last click")).toBe("—");
    expect(text(el)).not.toContain("NaN");
  });

  test("formats for the page language (de-DE)", async () => {
    document.documentElement.lang = "de-DE";
    const el = mount("svc-summary", { "api-base": b.base, "api-key": b.keys.full, days: 90 });
    const { analytics: a } = await loaded(el);
    expect(a.total_clicks).toBeGreaterThan(999);
    expect(stat(el, "Clicks, last 90 days")).toBe(new Intl.NumberFormat("de-DE").format(a.total_clicks));
    expect(stat(el, "Clicks, last 90 days")).toContain(".");
  });
});
