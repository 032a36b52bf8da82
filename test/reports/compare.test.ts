// `compare=previous|year` on every report family (docs/insights.md "Comparison"): clicks sent into the
// current window, the previous one (shifted back by whole weeks) and the one 364 days before, and each
// report's current numbers, compared data and change checked against what the test sent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { P, daysAgo, rawClick, spoolClicks } from "../analytics/helpers";

let t: TestApp;
let acc: { accountId: string; key: string };
let linkId: string;

const noonOf = (day: string) => Date.parse(`${day}T12:00:00Z`);
/** Clicks per days-ago, each from its own address (one visitor each): the current 7 days hold 2 days ago. */
const CLICKS = { current: { ago: 2, n: 5 }, previous: { ago: 9, n: 2 }, year: { ago: 366, n: 4 }, outside: { ago: 16, n: 3 } };

const get = (path: string) => t.call(`${P}${path}`, { key: acc.key });

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
  acc = await t.createAccount({ tier: "scale" });
  const res = await t.call(`${P}/links`, { method: "POST", key: acc.key, json: { url: "https://example.com/compare" } });
  expect(res.status).toBe(201);
  linkId = res.body.data.id;
  await spoolClicks(
    t,
    Object.entries(CLICKS).flatMap(([name, { ago, n }], w) =>
      Array.from({ length: n }, (_, i) =>
        rawClick({
          account_id: acc.accountId,
          link_id: linkId,
          ts: noonOf(daysAgo(ago)),
          ip: `8.8.${w}.${i + 1}`,
          referrer: `https://${name}.example/`,
        }),
      ),
    ),
  );
}, 120_000);
afterAll(() => t.close());

const change = (current: number, previous: number) => ({
  current,
  previous,
  change_percent: previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 100,
});

describe("click reports", () => {
  test("summary over 7 days against the 7 days before: the compared window starts on the same weekday", async () => {
    const res = await get(`/analytics/summary?days=7&link_id=${linkId}&compare=previous`);
    expect(res.status).toBe(200);
    const { analytics, comparison } = res.body.data;
    expect(analytics.total_clicks).toBe(CLICKS.current.n);
    expect(comparison.compare).toBe("previous");
    expect(comparison.from).toBe(`${daysAgo(13)}T00:00:00.000Z`);
    expect(comparison.to).toBe(`${daysAgo(6)}T00:00:00.000Z`);
    expect(new Date(comparison.from).getUTCDay()).toBe(new Date(`${daysAgo(6)}T00:00:00Z`).getUTCDay());
    expect(comparison.data.total_clicks).toBe(CLICKS.previous.n);
    expect(comparison.change.total_clicks).toEqual(change(CLICKS.current.n, CLICKS.previous.n));
    expect(comparison.change.unique_visitors).toEqual(change(CLICKS.current.n, CLICKS.previous.n));
    // Figures that do not depend on the range are not compared.
    expect(comparison.change.today_clicks).toBeUndefined();
  });

  test("timeseries against the same 7 days 364 days before: the compared days, with the year's clicks", async () => {
    const res = await get(`/analytics/timeseries?days=7&compare=year`);
    expect(res.status).toBe(200);
    const { analytics, comparison } = res.body.data;
    expect(analytics.map((d: { date: string }) => d.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(daysAgo));
    expect(comparison.data.map((d: { date: string }) => d.date)).toEqual([370, 369, 368, 367, 366, 365, 364].map(daysAgo));
    expect(comparison.data.find((d: { date: string }) => d.date === daysAgo(CLICKS.year.ago)).clicks).toBe(CLICKS.year.n);
    expect(new Date(comparison.from).getUTCDay()).toBe(new Date(analytics[0].date).getUTCDay());
    expect(comparison.change.clicks).toEqual(change(CLICKS.current.n, CLICKS.year.n));
  });

  test("a start_date/end_date range of one day compares with the same weekday a week before", async () => {
    const day = daysAgo(CLICKS.current.ago);
    const res = await get(`/analytics/referrers?start_date=${day}&end_date=${day}&compare=previous`);
    expect(res.status).toBe(200);
    const { analytics, comparison } = res.body.data;
    expect(analytics).toEqual([{ referrer: "current.example", clicks: CLICKS.current.n, unique_visitors: CLICKS.current.n }]);
    expect(comparison.from).toBe(`${daysAgo(CLICKS.previous.ago)}T00:00:00.000Z`);
    expect(comparison.data).toEqual([{ referrer: "previous.example", clicks: CLICKS.previous.n, unique_visitors: CLICKS.previous.n }]);
    expect(comparison.change.clicks).toEqual(change(CLICKS.current.n, CLICKS.previous.n));
  });

  test("geo, devices and hourly compare the sums of their rows", async () => {
    for (const report of ["geo", "devices", "hourly"]) {
      const res = await get(`/analytics/${report}?days=7&compare=previous`);
      expect(res.status).toBe(200);
      const { analytics, comparison } = res.body.data;
      const sum = (rows: { clicks: number }[]) => rows.reduce((a, r) => a + r.clicks, 0);
      expect([report, sum(analytics), sum(comparison.data)]).toEqual([report, CLICKS.current.n, CLICKS.previous.n]);
      expect(comparison.change.clicks).toEqual(change(CLICKS.current.n, CLICKS.previous.n));
    }
    const hourly = (await get(`/analytics/hourly?days=7&compare=previous`)).body.data;
    expect(hourly.comparison.data[12].clicks).toBe(CLICKS.previous.n);
  });

  test("without compare there is no comparison; a bad compare or compare with CSV is a 400 naming it", async () => {
    const plain = await get(`/analytics/summary?days=7`);
    expect(plain.status).toBe(200);
    expect(plain.body.data.comparison).toBeUndefined();
    const bad = await get(`/analytics/geo?compare=lastweek`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("compare");
    const csv = await get(`/analytics/timeseries?compare=previous&format=csv`);
    expect(csv.status).toBe(400);
    expect(JSON.stringify(csv.body.error)).toContain("query.compare");
  });
});
