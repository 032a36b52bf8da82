import { describe, expect, test } from "bun:test";
import { apiData, charts, en, loaded, mount, settled, setupWidgetTests, stat, statNote, useBackend, text } from "./helpers";

setupWidgetTests();
const b = useBackend();

describe("<svc-link-stats>", () => {
  test("shows the link's stats as the API returns them", async () => {
    const el = mount("svc-link-stats", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId });
    const detail = await loaded(el);
    const s = await apiData(b, `/links/${b.linkId}/stats`);
    expect(detail).toEqual(s);
    expect(stat(el, "All clicks")).toBe(en(s.total_clicks));
    expect(stat(el, "Visitors")).toBe(en(s.unique_visitors));
    expect(stat(el, "Clicks")).toBe(en(s.human_clicks));
    expect(statNote(el, "Visitors")).toBe("Visitors are counted once per UTC day: no stored identifier crosses days.");
    expect(stat(el, "Bot clicks")).toBe(en(s.bot_clicks));
    expect(stat(el, "Clicks per day")).toBe(new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(s.average_clicks_per_day));
    expect(statNote(el, "Clicks per day")).toBe(`over ${en(s.days_active)} ${s.days_active === 1 ? "day" : "days"} active`);
    expect(stat(el, "Click conversion rate")).toBe(
      new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(s.conversion_rate / 100),
    );
    expect(stat(el, "Last click")).toBe(
      new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" }).format(new Date(s.last_accessed_at)),
    );
    expect(text(el)).toContain(s.short_code);
    expect(text(el)).toContain(s.is_active ? "Active" : "Inactive");
    const a = el.shadowRoot!.querySelector("a")!;
    expect(a.getAttribute("href")).toBe(s.original_url); // escaped in markup, intact as a value
    expect(a.textContent).toBe(s.original_url);
    expect(charts(el)[0].getAttribute("aria-label")).toBe(`Human and bot clicks: ${en(s.human_clicks)} human, ${en(s.bot_clicks)} bot.`);
  });

  test("a link without clicks shows zeros and no last click", async () => {
    const el = mount("svc-link-stats", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.quietLinkId });
    await loaded(el);
    expect(stat(el, "All clicks")).toBe("0");
    expect(stat(el, "Last click")).toBe("—");
  });

  test("changing link-id shows the other link", async () => {
    const el = mount("svc-link-stats", { "api-base": b.base, "api-key": b.keys.full, "link-id": b.linkId });
    await loaded(el);
    const next = settled(el);
    el.setAttribute("link-id", b.quietLinkId);
    const d = await next;
    expect(d.type).toBe("svc-load");
    expect(text(el)).toContain(d.detail.short_code);
    expect(stat(el, "All clicks")).toBe(en(d.detail.total_clicks));
  });
});
