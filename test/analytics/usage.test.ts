// The usage object and the clamping of ranges: to the tier's retention, and over the monthly click
// budget to the most recent data within the budget (cutoff_date).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, daysAgo, get, rawClick, spoolClicks, today, DAY_MS } from "./helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t.close());

const monthStart = () => `${today().slice(0, 7)}-01`;
/** n days ago at noon, but never before this month began (the scenario must stay inside the month). */
const dayInMonth = (n: number) => (daysAgo(n) < monthStart() ? monthStart() : daysAgo(n));
const noonOf = (day: string) => Date.parse(`${day}T12:00:00Z`);

async function seed(key: string, accountId: string, days: string[]) {
  const link = await createLink(t, key);
  await spoolClicks(
    t,
    days.map((day, i) => rawClick({ account_id: accountId, link_id: link.id, ts: Math.min(noonOf(day), Date.now()), ip: `8.8.8.${i}` })),
  );
  return link;
}

describe("usage object", () => {
  test("within the budget: no cutoff_date, ranges untouched", async () => {
    const { key, accountId } = await t.createAccount({ tier: "basic" });
    await seed(key, accountId, [today(), today()]);
    const res = await get(t, key, "/analytics/timeseries?days=5");
    expect(res.body.data.usage).toEqual({
      clicks_this_month: 2,
      click_limit: 10_000,
      limit_exceeded: false,
      tier: "basic",
      retention_days: 90,
    });
    expect(res.body.data.analytics.length).toBe(5);
  });

  test("over the budget: cutoff_date is the earliest date whose clicks up to today fit, and every report is clamped to it", async () => {
    const { key, accountId } = await t.createAccount({ tier: "growth", limit_overrides: { clicks_per_month: 5 } });
    // Newest first: today 2, one day earlier 2, two days earlier 3 (all inside this month), plus last month.
    const days = [today(), today(), dayInMonth(1), dayInMonth(1), dayInMonth(2), dayInMonth(2), dayInMonth(2)];
    await seed(key, accountId, [...days, daysAgo(40)]);
    const perDay = new Map<string, number>();
    for (const d of days) perDay.set(d, (perDay.get(d) ?? 0) + 1);
    // The test's own walk back from today.
    let cutoff = today(),
      sum = 0;
    for (let d = today(); d >= monthStart(); d = new Date(Date.parse(d) - DAY_MS).toISOString().slice(0, 10)) {
      sum += perDay.get(d) ?? 0;
      if (sum > 5) break;
      cutoff = d;
    }
    const visible = days.filter((d) => d >= cutoff).length;

    const summary = await get(t, key, "/analytics/summary?days=90");
    expect(summary.body.data.usage).toEqual({
      clicks_this_month: days.length,
      click_limit: 5,
      limit_exceeded: true,
      tier: "growth",
      retention_days: 365,
      cutoff_date: cutoff,
    });
    expect(summary.body.data.analytics.total_clicks).toBe(visible);
    expect(summary.body.data.analytics.clicks_this_month).toBe(days.length);

    const series = (await get(t, key, "/analytics/timeseries?days=90")).body.data.analytics;
    expect(series[0].date).toBe(cutoff);
    expect(series.at(-1).date).toBe(today());
    expect(series.reduce((n: number, r: { clicks: number }) => n + r.clicks, 0)).toBe(visible);

    for (const path of ["geo", "devices", "referrers", "hourly"]) {
      const rows = (await get(t, key, `/analytics/${path}?days=90`)).body.data;
      expect(rows.usage.cutoff_date).toBe(cutoff);
      expect(rows.analytics.reduce((n: number, r: { clicks: number }) => n + r.clicks, 0)).toBe(visible);
    }
    // A range that ends before the cutoff shows nothing.
    const old = (await get(t, key, `/analytics/timeseries?start_date=${daysAgo(45)}&end_date=${daysAgo(35)}`)).body.data.analytics;
    expect(old).toEqual([]);
  });

  test("ranges are clamped to the tier's retention", async () => {
    const { key, accountId } = await t.createAccount({ tier: "free" });
    await seed(key, accountId, [daysAgo(29), daysAgo(45)]);
    const res = await get(t, key, "/analytics/timeseries?days=90&bot_filter=all");
    expect(res.body.data.usage).toMatchObject({ tier: "free", click_limit: 1000, retention_days: 30, limit_exceeded: false });
    expect(res.body.data.analytics.length).toBe(30);
    expect(res.body.data.analytics[0]).toEqual({ date: daysAgo(29), clicks: 1, unique_visitors: 1 });
    const explicit = await get(t, key, `/analytics/summary?start_date=${daysAgo(60)}&end_date=${today()}&bot_filter=all`);
    expect(explicit.body.data.analytics.total_clicks).toBe(1);
  });
});
