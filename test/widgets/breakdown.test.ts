import { describe, expect, test } from "bun:test";
import { apiData, charts, en, loaded, mount, settled, setupWidgetTests, spyFetch, useBackend, table, text } from "./helpers";

setupWidgetTests();
const b = useBackend();

const byClicks = (rows: any[]) => [...rows].sort((x, y) => y.clicks - x.clicks);
const country = (code: string) => new Intl.DisplayNames("en-US", { type: "region" }).of(code);

describe("<svc-breakdown>", () => {
  test("geo: countries by name with the API clicks and visitors", async () => {
    const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "geo" });
    await loaded(el);
    const rows = byClicks((await apiData(b, "/analytics/geo")).analytics);
    const t = table(el, "Countries");
    expect(t[0]).toEqual(["Country", "Clicks", "Visitors"]);
    expect(t.length).toBe(rows.length + 1);
    for (const [i, r] of rows.entries()) {
      expect(t[i + 1][1]).toBe(en(r.clicks));
      expect(t[i + 1][2]).toBe(en(r.unique_visitors));
      if (/^[A-Z]{2}$/.test(r.country_code) && r.country_code !== "XX") expect(t[i + 1][0]).toBe(country(r.country_code)!);
    }
    expect(text(el)).toContain("United States");
    expect(text(el)).toContain("Visitors are counted once per UTC day: no stored identifier crosses days.");
    // the chart draws one bar per row up to the limit, labels escaped, values shown
    const svg = charts(el)[0];
    expect(svg.querySelectorAll("rect.bar").length).toBe(Math.min(rows.length, 10));
    expect([...svg.querySelectorAll("text.val")].map((x) => x.textContent)).toEqual(rows.slice(0, 10).map((r: any) => en(r.clicks)));
    expect(svg.getAttribute("aria-label")).toContain(`Most clicks: ${country(rows[0].country_code)} ${en(rows[0].clicks)}`);
  });

  test("limit caps the bars but not the table", async () => {
    const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "geo", limit: 2 });
    await loaded(el);
    expect(charts(el)[0].querySelectorAll("rect.bar").length).toBe(2);
    expect(table(el).length).toBeGreaterThan(3);
  });

  test("devices: device, browser and OS columns", async () => {
    const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "devices" });
    await loaded(el);
    const rows = byClicks((await apiData(b, "/analytics/devices")).analytics);
    const t = table(el, "Devices");
    expect(t[0]).toEqual(["Device", "Browser", "OS", "Clicks"]);
    expect(t.slice(1).map((r) => [r[0].toLowerCase(), r[1], r[2], r[3]])).toEqual(
      rows.map((r: any) => [r.device_type, r.browser, r.os, en(r.clicks)]),
    );
    expect(text(el)).not.toContain("counted once per UTC day"); // no visitor figure, no note
  });

  test('referrers: "direct" reads as Direct / none, hostile names stay text', async () => {
    const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "referrers" });
    await loaded(el);
    const rows = byClicks((await apiData(b, "/analytics/referrers")).analytics);
    const t = table(el, "Referrers");
    expect(t.slice(1).map((r) => r[1])).toEqual(rows.map((r: any) => en(r.clicks)));
    expect(t.slice(1).map((r) => r[0])).toEqual(rows.map((r: any) => (r.referrer === "direct" ? "Direct / none" : r.referrer)));
    expect(el.shadowRoot!.querySelector("img")).toBeNull();
  });

  test("hourly: 24 columns in hour order, hours labelled in UTC", async () => {
    const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "hourly" });
    await loaded(el);
    const rows = (await apiData(b, "/analytics/hourly")).analytics;
    expect(rows.length).toBe(24);
    expect(text(el)).toContain("Clicks by hour (UTC)");
    const t = table(el);
    expect(t.slice(1)).toEqual(rows.map((r: any) => [`${String(r.hour).padStart(2, "0")}:00`, en(r.clicks), en(r.unique_visitors)]));
    expect(charts(el)[0].querySelectorAll("rect.bar").length).toBe(24);
  });

  test("an account without clicks shows the empty state for every dimension", async () => {
    for (const dimension of ["geo", "devices", "referrers", "hourly"]) {
      const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.empty, dimension, days: 7 });
      await loaded(el);
      expect(el.state).toBe("empty");
      expect(text(el)).toContain("No clicks in the last 7 days.");
    }
  });

  test("changing dimension fetches the other breakdown", async () => {
    const spy = spyFetch();
    try {
      const el = mount("svc-breakdown", { "api-base": b.base, "api-key": b.keys.full, dimension: "geo" });
      await loaded(el);
      const next = settled(el);
      el.setAttribute("dimension", "referrers");
      await next;
      expect(spy.urls.map((u) => u.pathname.split("/").pop())).toEqual(["geo", "referrers"]);
      expect(text(el)).toContain("Referrers");
    } finally {
      spy.restore();
    }
  });
});
