// `compare=previous|year` on every report family (docs/insights.md "Comparison"): clicks sent into the
// current window, the previous one (shifted back by whole weeks) and the one 364 days before, and each
// report's current numbers, compared data and change checked against what the test sent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { DAY_MS, P, daysAgo, rawClick, spoolClicks } from "../analytics/helpers";
import { insertEvents, type SentEvent } from "../conversions/helpers";
import { insertLink } from "../journey/helpers";
import { forceMerges, stopMerges } from "../insights/helpers";
import { periodStartMs } from "../../server/reports/period";

let t: TestApp;
let acc: { accountId: string; key: string };
let linkId: string;

const noonOf = (day: string) => Date.parse(`${day}T12:00:00Z`);
/** Clicks per days-ago, each from its own address (one visitor each): the current 7 days hold 2 days ago. */
const CLICKS = { current: { ago: 2, n: 5 }, previous: { ago: 9, n: 2 }, year: { ago: 366, n: 4 }, outside: { ago: 16, n: 3 } };

const get = (path: string) => t.call(`${P}${path}`, { key: acc.key });

/** Every check runs once as its own test and again after every table is merged (the last test). */
const checks: [string, () => Promise<void>][] = [];
const check = (name: string, fn: () => Promise<void>) => {
  checks.push([name, fn]);
  test(name, fn, 60_000);
};

beforeAll(async () => {
  t = await createTestApp({}, {}, { jobs: false });
  acc = await t.createAccount({ tier: "scale" });
  // Each insert stays its own part (and each event batch its own bundle) until the last test merges them.
  await stopMerges(t);
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
  check("summary over 7 days against the 7 days before: the compared window starts on the same weekday", async () => {
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

  check("timeseries against the same 7 days 364 days before: the compared days, with the year's clicks", async () => {
    const res = await get(`/analytics/timeseries?days=7&compare=year`);
    expect(res.status).toBe(200);
    const { analytics, comparison } = res.body.data;
    expect(analytics.map((d: { date: string }) => d.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(daysAgo));
    expect(comparison.data.map((d: { date: string }) => d.date)).toEqual([370, 369, 368, 367, 366, 365, 364].map(daysAgo));
    expect(comparison.data.find((d: { date: string }) => d.date === daysAgo(CLICKS.year.ago)).clicks).toBe(CLICKS.year.n);
    expect(new Date(comparison.from).getUTCDay()).toBe(new Date(analytics[0].date).getUTCDay());
    expect(comparison.change.clicks).toEqual(change(CLICKS.current.n, CLICKS.year.n));
  });

  check("a start_date/end_date range of one day compares with the same weekday a week before", async () => {
    const day = daysAgo(CLICKS.current.ago);
    const res = await get(`/analytics/referrers?start_date=${day}&end_date=${day}&compare=previous`);
    expect(res.status).toBe(200);
    const { analytics, comparison } = res.body.data;
    expect(analytics).toEqual([{ referrer: "current.example", clicks: CLICKS.current.n, unique_visitors: CLICKS.current.n }]);
    expect(comparison.from).toBe(`${daysAgo(CLICKS.previous.ago)}T00:00:00.000Z`);
    expect(comparison.data).toEqual([{ referrer: "previous.example", clicks: CLICKS.previous.n, unique_visitors: CLICKS.previous.n }]);
    expect(comparison.change.clicks).toEqual(change(CLICKS.current.n, CLICKS.previous.n));
  });

  check("geo, devices and hourly compare the sums of their rows", async () => {
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

  check("without compare there is no comparison; a bad compare or compare with CSV is a 400 naming it", async () => {
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

describe("conversion reports", () => {
  const HOUR = 3_600_000;
  let start: number;
  let nowMs: number;
  let sent: SentEvent[];

  beforeAll(async () => {
    nowMs = Date.now();
    start = periodStartMs("7d", nowMs);
    const ev = (visitor: string, type: "page_view" | "conversion", ms: number, revenue_cents?: number): SentEvent => ({
      link: linkId,
      visitor,
      type,
      ms,
      device: "desktop",
      country: "DE",
      ...(revenue_cents === undefined ? {} : { revenue_cents, conversion_name: "order" }),
    });
    const current = nowMs - 2 * DAY_MS;
    const previous = nowMs - 9 * DAY_MS;
    const year = nowMs - 366 * DAY_MS;
    sent = [
      // Current: 4 visitors, 2 converters, 8.00; a4 in the period's first hour.
      ...["a1", "a2", "a3"].map((v) => ev(v, "page_view", current)),
      ev("a1", "conversion", current + 10 * 60_000, 500),
      ev("a2", "conversion", current + 10 * 60_000, 300),
      ev("a4", "page_view", start + 30 * 60_000),
      // Previous week: 3 visitors, 2 converters, 3.00; b3 in the hour before the current period.
      ev("b1", "page_view", previous),
      ev("b2", "page_view", previous),
      ev("b1", "conversion", previous + 2 * HOUR, 200),
      ev("b3", "conversion", start - 30 * 60_000, 100),
      // 364 days (and 2) before: 4 visitors, 3 converters, 3.00.
      ...["c1", "c2", "c3", "c4"].map((v) => ev(v, "page_view", year)),
      ...["c1", "c2", "c3"].map((v) => ev(v, "conversion", year + 5 * 60_000, 100)),
      // In neither window.
      ev("d1", "conversion", nowMs - 16 * DAY_MS, 1000),
    ];
    await insertEvents(t.runtime.deps.ch, acc.accountId, sent, 1);
  }, 120_000);

  /** The conversions sent in [fromMs, toMs), per UTC day: what a daily timeseries over that window shows. */
  const sentDays = (fromMs: number, toMs: number) => {
    const days = new Map<string, { conversions: number; revenue: number }>();
    for (let d = Math.floor(fromMs / DAY_MS) * DAY_MS; d < toMs; d += DAY_MS) {
      days.set(new Date(d).toISOString(), { conversions: 0, revenue: 0 });
    }
    for (const e of sent) {
      if (e.type !== "conversion" || e.ms < fromMs || e.ms >= toMs) continue;
      const day = days.get(new Date(Math.floor(e.ms / DAY_MS) * DAY_MS).toISOString());
      if (day) {
        day.conversions += 1;
        day.revenue += (e.revenue_cents ?? 0) / 100;
      }
    }
    return [...days].map(([timestamp, d]) => ({ timestamp, ...d }));
  };

  const sameHour = () => periodStartMs("7d") === start;

  check("summary against the previous 7 days: the compared window ends where the current one starts", async () => {
    const res = await get(`/conversions/summary?period=7d&link_id=${linkId}&compare=previous`);
    expect(res.status).toBe(200);
    if (!sameHour()) return; // the hour turned during the test: the windows moved
    const { comparison, ...current } = res.body.data;
    expect(current).toEqual({ total_conversions: 2, unique_converters: 2, total_revenue: 8, average_order_value: 4, conversion_rate: 50 });
    expect(comparison.from).toBe(new Date(start - 7 * DAY_MS).toISOString());
    expect(comparison.to).toBe(new Date(start).toISOString());
    expect(new Date(comparison.from).getUTCDay()).toBe(new Date(start).getUTCDay());
    expect(comparison.data).toEqual({
      total_conversions: 2,
      unique_converters: 2,
      total_revenue: 3,
      average_order_value: 1.5,
      conversion_rate: 66.67,
    });
    expect(comparison.change.total_revenue).toEqual(change(8, 3));
    expect(comparison.change.conversion_rate).toEqual(change(50, 66.67));
  });

  check("summary and time to convert against the same 7 days a year before", async () => {
    const summary = await get(`/conversions/summary?period=7d&link_id=${linkId}&compare=year`);
    expect(summary.status).toBe(200);
    expect(summary.body.data.comparison.from).toBe(new Date(periodStartMs("7d") - 364 * DAY_MS).toISOString());
    expect(summary.body.data.comparison.data).toMatchObject({
      total_conversions: 3,
      unique_converters: 3,
      total_revenue: 3,
      conversion_rate: 75,
    });
    expect(summary.body.data.comparison.change.total_conversions).toEqual(change(2, 3));
    const ttc = await get(`/conversions/time-to-convert?period=7d&link_id=${linkId}&compare=previous`);
    expect(ttc.status).toBe(200);
    const count = (d: { buckets: { label: string; count: number }[] }, label: string) => d.buckets.find((b) => b.label === label)?.count;
    expect([count(ttc.body.data, "under 1 hour"), count(ttc.body.data, "1-24 hours")]).toEqual([2, 0]);
    expect([count(ttc.body.data.comparison.data, "under 1 hour"), count(ttc.body.data.comparison.data, "1-24 hours")]).toEqual([1, 1]);
    expect(ttc.body.data.comparison.change["1-24 hours"]).toEqual(change(0, 1));
  });

  check("timeseries against the previous 7 days: each compared day's conversions and revenue as sent", async () => {
    const res = await get(`/conversions/timeseries?period=7d&link_id=${linkId}&interval=day&compare=previous`);
    expect(res.status).toBe(200);
    if (!sameHour()) return;
    const { analytics, comparison } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(["analytics", "comparison"]);
    expect(analytics).toEqual(sentDays(start, nowMs + DAY_MS).filter((p) => Date.parse(p.timestamp) <= nowMs));
    expect([comparison.from, comparison.to]).toEqual([new Date(start - 7 * DAY_MS).toISOString(), new Date(start).toISOString()]);
    expect(comparison.data).toEqual(sentDays(start - 7 * DAY_MS, start));
    expect(comparison.data.reduce((a: number, p: { conversions: number }) => a + p.conversions, 0)).toBe(2);
    expect(comparison.change).toEqual({ conversions: change(2, 2), revenue: change(8, 3) });
  });

  check("breakdown by country against the previous 7 days and the year before", async () => {
    const res = await get(`/conversions/breakdown?period=7d&link_id=${linkId}&dimension=country&compare=previous`);
    expect(res.status).toBe(200);
    if (!sameHour()) return;
    expect(res.body.data.analytics).toEqual([{ label: "DE", conversions: 2, revenue: 8, conversion_rate: 50 }]);
    // b1 and b3 converted among b1, b2 and b3.
    expect(res.body.data.comparison.data).toEqual([{ label: "DE", conversions: 2, revenue: 3, conversion_rate: 66.67 }]);
    expect(res.body.data.comparison.change).toEqual({ conversions: change(2, 2), revenue: change(8, 3) });
    const year = await get(`/conversions/breakdown?period=7d&link_id=${linkId}&dimension=country&compare=year`);
    expect(year.body.data.comparison.data).toEqual([{ label: "DE", conversions: 3, revenue: 3, conversion_rate: 75 }]);
    expect(year.body.data.comparison.change.conversions).toEqual(change(2, 3));
  });

  check("without compare the list reports answer the bare list; compare with CSV is refused", async () => {
    const ts = await get(`/conversions/timeseries?period=7d&link_id=${linkId}`);
    expect(Array.isArray(ts.body.data)).toBe(true);
    const bd = await get(`/conversions/breakdown?period=7d&link_id=${linkId}&dimension=device`);
    expect(bd.body.data).toEqual([{ label: "desktop", conversions: 2, revenue: 8, conversion_rate: 50 }]);
    const csv = await get(`/conversions/breakdown?period=7d&dimension=device&compare=previous&format=csv`);
    expect(csv.status).toBe(400);
    expect(JSON.stringify(csv.body.error)).toContain("query.compare");
    const bad = await get(`/conversions/timeseries?period=7d&compare=lastweek`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("compare");
  });
});

describe("journey reports", () => {
  let link: string;
  let start: number;

  beforeAll(async () => {
    link = await insertLink(t, acc.accountId);
    const nowMs = Date.now();
    start = periodStartMs("7d", nowMs);
    const ev = (visitor: string, type: "page_view" | "conversion", ms: number): SentEvent => ({
      link,
      visitor,
      type,
      ms,
      device: "desktop",
      country: "DE",
    });
    const current = nowMs - 2 * DAY_MS;
    const previous = nowMs - 9 * DAY_MS;
    const year = nowMs - 366 * DAY_MS;
    await insertEvents(
      t.runtime.deps.ch,
      acc.accountId,
      [
        // Current: 4 visitors, 5 events; e4 in the period's first hour; e1 converts.
        ...["e1", "e2", "e3"].map((v) => ev(v, "page_view", current)),
        ev("e1", "conversion", current + 10 * 60_000),
        ev("e4", "page_view", start + 30 * 60_000),
        // Previous week: 3 visitors, 5 events; f3 in the hour before the current period; f1 and f2 convert.
        ...["f1", "f2"].flatMap((v) => [ev(v, "page_view", previous), ev(v, "conversion", previous + 20 * 60_000)]),
        ev("f3", "page_view", start - 30 * 60_000),
        // A year (and 2 days) before: 1 visitor who converts.
        ev("h1", "page_view", year),
        ev("h1", "conversion", year + 60_000),
        // In neither window.
        ev("g1", "page_view", nowMs - 16 * DAY_MS),
      ],
      1,
    );
  }, 120_000);

  const sameHour = () => periodStartMs("7d") === start;

  check("summary against the previous 7 days and against the year before", async () => {
    const res = await get(`/journey/links/${link}/summary?period=7d&compare=previous`);
    expect(res.status).toBe(200);
    if (!sameHour()) return; // the hour turned during the test: the windows moved
    const { comparison, ...current } = res.body.data;
    expect(current).toMatchObject({ total_visitors: 4, total_sessions: 4, total_events: 5 });
    expect(current.top_pages).toEqual([{ url: "https://shop.example/", count: 4 }]);
    expect(comparison.from).toBe(new Date(start - 7 * DAY_MS).toISOString());
    expect(comparison.to).toBe(new Date(start).toISOString());
    expect(comparison.data).toMatchObject({ total_visitors: 3, total_sessions: 3, total_events: 5 });
    expect(comparison.data.top_pages).toEqual([{ url: "https://shop.example/", count: 3 }]);
    expect(comparison.change.total_visitors).toEqual(change(4, 3));
    expect(comparison.change.total_events).toEqual(change(5, 5));
    const year = (await get(`/journey/links/${link}/summary?period=7d&compare=year`)).body.data.comparison;
    expect(new Date(year.from).getUTCDay()).toBe(new Date(start).getUTCDay());
    expect(year.data).toMatchObject({ total_visitors: 1, total_sessions: 1, total_events: 2 });
  });

  check("funnel against the previous 7 days: each step's visitors compared", async () => {
    const res = await get(`/journey/links/${link}/funnel?period=7d&steps=page_view,conversion&compare=previous`);
    expect(res.status).toBe(200);
    if (!sameHour()) return;
    const { comparison, ...current } = res.body.data;
    const visitors = (f: { steps: { visitors: number }[] }) => f.steps.map((s) => s.visitors);
    expect([visitors(current), current.total_visitors]).toEqual([[4, 1], 4]);
    expect([visitors(comparison.data), comparison.data.total_visitors]).toEqual([[3, 2], 3]);
    expect(comparison.change).toEqual({ total_visitors: change(4, 3), step_1: change(4, 3), step_2: change(1, 2) });
    const year = (await get(`/journey/links/${link}/funnel?period=7d&steps=page_view,conversion&compare=year`)).body.data;
    expect(visitors(year.comparison.data)).toEqual([1, 1]);
  });

  check("the compared funnel is checked by its own fingerprint (the bundles' count and mutations), not their sums", async () => {
    const ch = t.runtime.deps.ch;
    const sent: string[] = [];
    const query = ch.query;
    ch.query = <T>(q: string, p?: Record<string, unknown>) => {
      sent.push(q);
      return query.call(ch, q, p) as Promise<T[]>;
    };
    try {
      expect((await get(`/journey/links/${link}/funnel?period=7d&steps=page_view,conversion&compare=previous`)).status).toBe(200);
    } finally {
      ch.query = query;
    }
    expect(sent.some((q) => q.includes("system.mutations"))).toBe(true);
    expect(sent.some((q) => q.includes("sum(vh)"))).toBe(false);
  });

  check("without compare the same answer as before; compare with CSV is refused", async () => {
    const plain = await get(`/journey/links/${link}/summary?period=7d`);
    expect(plain.status).toBe(200);
    expect(plain.body.data.comparison).toBeUndefined();
    const csv = await get(`/journey/links/${link}/funnel?steps=page_view&compare=year&format=csv`);
    expect(csv.status).toBe(400);
    expect(JSON.stringify(csv.body.error)).toContain("query.compare");
  });
});

test("every check again after forced merges", async () => {
  await forceMerges(t);
  for (const [name, fn] of checks) {
    try {
      await fn();
    } catch (e) {
      throw new Error(`after merges, ${name}: ${e}`);
    }
  }
}, 180_000);
