// Conversion reports, checked against numbers computed here from the events and clicks this test sends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { domains, links } from "../../server/storage/postgres/schema";
import { insertLink, postEvents } from "../journey/helpers";

let t: TestApp;
let key: string;
let shopLink: string; // on the custom domain
let blogLink: string;
let domainId: string;

const HOUR = 3600;
const DAY = 24 * HOUR;
const clickVisitor = crypto.randomUUID(); // arrived through a tracked redirect: visitor_id is the click id
const now = Date.now();
const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();

interface Ev {
  link: "shop" | "blog";
  visitor: string;
  type: string;
  secondsAgo: number;
  revenue?: number;
  name?: string;
  device?: string;
  country?: string;
}
const EVENTS: Ev[] = [
  // clickVisitor: clicked 3 h before converting, first journey event 30 min before converting → 3 h
  { link: "shop", visitor: clickVisitor, type: "page_view", secondsAgo: 2 * HOUR + 1800, device: "mobile", country: "DE" },
  {
    link: "shop",
    visitor: clickVisitor,
    type: "conversion",
    secondsAgo: 2 * HOUR,
    revenue: 4999,
    name: "order",
    device: "mobile",
    country: "DE",
  },
  // c2: 10 minutes, then converts a second time (only the first conversion is timed)
  { link: "shop", visitor: "c2", type: "page_view", secondsAgo: 5 * HOUR + 600, device: "desktop", country: "US" },
  { link: "shop", visitor: "c2", type: "conversion", secondsAgo: 5 * HOUR, revenue: 1000, name: "order", device: "desktop", country: "US" },
  {
    link: "shop",
    visitor: "c2",
    type: "conversion",
    secondsAgo: 4 * HOUR,
    revenue: 2001,
    name: "upsell",
    device: "desktop",
    country: "US",
  },
  // c3: 2 days less 2 hours
  { link: "blog", visitor: "c3", type: "page_view", secondsAgo: 3 * DAY, device: "desktop", country: "US" },
  { link: "blog", visitor: "c3", type: "conversion", secondsAgo: DAY + 2 * HOUR, name: "newsletter", device: "desktop", country: "US" },
  // c4: first event 40 days ago (outside the period), converted 9 days ago → 31 days
  { link: "blog", visitor: "c4", type: "page_view", secondsAgo: 40 * DAY, device: "tablet" },
  { link: "blog", visitor: "c4", type: "conversion", secondsAgo: 9 * DAY, revenue: 300, name: "order", device: "tablet" },
  // visitors who do not convert
  { link: "shop", visitor: "n1", type: "page_view", secondsAgo: HOUR, device: "mobile", country: "DE" },
  { link: "shop", visitor: "n2", type: "page_view", secondsAgo: 2 * DAY, device: "desktop", country: "FR" },
  { link: "blog", visitor: "n3", type: "page_view", secondsAgo: 20 * DAY, device: "mobile", country: "US" },
];
// Periods start on a whole UTC hour (the rollups' grain).
const periodStart = (days: number) => Math.floor((now - days * DAY * 1000) / (HOUR * 1000)) * HOUR * 1000;
const inPeriod = (days: number) => EVENTS.filter((e) => now - e.secondsAgo * 1000 >= periodStart(days));
const conversions = (evs: Ev[]) => evs.filter((e) => e.type === "conversion");
const uniq = (evs: Ev[]) => new Set(evs.map((e) => e.visitor)).size;
const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 100 : 0);
const revenue = (evs: Ev[]) => evs.reduce((s, e) => s + (e.revenue ?? 0), 0) / 100;

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  const db = t.runtime.deps.pg.db;
  [{ id: domainId }] = await db
    .insert(domains)
    .values({ accountId: acc.accountId, name: `shop-${crypto.randomUUID().slice(0, 8)}.example`, verificationToken: "x" })
    .returning();
  [{ id: shopLink }] = await db
    .insert(links)
    .values({ accountId: acc.accountId, domainId, shortCode: "shop", originalUrl: "https://shop.example/" })
    .returning();
  blogLink = await insertLink(t, acc.accountId);
  const ids = { shop: shopLink, blog: blogLink };
  const wire = EVENTS.map((e) => ({
    link_id: ids[e.link],
    visitor_id: e.visitor,
    event_type: e.type,
    page_url: "https://site.example/",
    timestamp: at(e.secondsAgo),
    ...(e.revenue ? { revenue_cents: e.revenue, currency: "USD" } : {}),
    ...(e.name ? { conversion_name: e.name } : {}),
    ...(e.device ? { device_type: e.device } : {}),
    ...(e.country ? { country_code: e.country } : {}),
  }));
  expect((await postEvents(t, key, wire)).status).toBe(202);
  await t.flush();
  // The click that brought clickVisitor (the redirect writes these through the click pipeline).
  await t.runtime.deps.ch.insert("clicks", [
    {
      click_id: clickVisitor,
      timestamp: now - (2 * HOUR + 3 * HOUR) * 1000,
      account_id: acc.accountId,
      link_id: shopLink,
      domain: "",
      visitor_hash: 1,
      is_bot: 0,
      bot_kind: "",
      device_type: "mobile",
      browser: "",
      browser_version: "",
      os: "",
      os_version: "",
      country_code: "DE",
      region: "",
      city: "",
      referrer: "",
      referrer_url: "",
      language: "",
      query: "",
    },
  ]);
}, 60_000);
afterAll(() => t.close());

const get = (path: string, apiKey = key) => t.call(`/public-api/v1/conversions/${path}`, { key: apiKey });

describe("summary", () => {
  test("30d: conversions, converters, revenue in the major unit, AOV and rate over visitors", async () => {
    const evs = inPeriod(30);
    const conv = conversions(evs);
    const res = await get("summary");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      total_conversions: conv.length,
      unique_converters: uniq(conv),
      total_revenue: revenue(conv),
      average_order_value: Math.round((revenue(conv) / conv.length) * 100) / 100,
      conversion_rate: rate(uniq(conv), uniq(evs)),
    });
  });

  test("link_id, domain_id and period narrow the scope", async () => {
    const shop = EVENTS.filter((e) => e.link === "shop");
    const byLink = (await get(`summary?link_id=${shopLink}`)).body.data;
    expect(byLink.total_conversions).toBe(conversions(shop).length);
    expect(byLink.conversion_rate).toBe(rate(uniq(conversions(shop)), uniq(shop)));
    expect((await get(`summary?domain_id=${domainId}`)).body.data).toEqual(byLink);
    const week = (await get("summary?period=7d")).body.data;
    expect(week.total_conversions).toBe(conversions(inPeriod(7)).length);
    expect(week.total_revenue).toBe(revenue(conversions(inPeriod(7))));
  });
});

describe("timeseries", () => {
  test("daily buckets over the period, empty days filled with zeros", async () => {
    const res = await get("timeseries");
    expect(res.status).toBe(200);
    const points = res.body.data as { timestamp: string; conversions: number; revenue: number }[];
    expect(points.length).toBe(31);
    expect(points.every((p, i) => i === 0 || Date.parse(p.timestamp) - Date.parse(points[i - 1].timestamp) === DAY * 1000)).toBe(true);
    for (const p of points) expect(p.timestamp).toMatch(/T00:00:00\.000Z$/);
    const day = (iso: string) => iso.slice(0, 10);
    for (const p of points) {
      const expected = conversions(inPeriod(30)).filter((e) => day(at(e.secondsAgo)) === day(p.timestamp));
      expect({ at: p.timestamp, conversions: p.conversions, revenue: p.revenue }).toEqual({
        at: p.timestamp,
        conversions: expected.length,
        revenue: revenue(expected),
      });
    }
  });

  test("hour, week and month intervals", async () => {
    const hours = (await get("timeseries?period=24h&interval=hour")).body.data;
    expect(hours.length).toBeGreaterThanOrEqual(24);
    expect(hours.reduce((s: number, p: { conversions: number }) => s + p.conversions, 0)).toBe(conversions(inPeriod(1)).length);
    const weeks = (await get("timeseries?period=90d&interval=week")).body.data;
    expect(new Date(weeks[0].timestamp).getUTCDay()).toBe(1); // Mondays
    expect(weeks.reduce((s: number, p: { conversions: number }) => s + p.conversions, 0)).toBe(conversions(inPeriod(90)).length);
    const months = (await get("timeseries?period=90d&interval=month")).body.data;
    expect(months.every((p: { timestamp: string }) => p.timestamp.slice(8, 10) === "01")).toBe(true);
    expect(months.reduce((s: number, p: { revenue: number }) => s + p.revenue, 0)).toBeCloseTo(revenue(conversions(inPeriod(90))), 2);
    expect((await get("timeseries?interval=minute")).status).toBe(400);
  });
});

describe("breakdown", () => {
  const rows = (evs: Ev[], label: (e: Ev) => string) => {
    const labels = [...new Set(conversions(evs).map(label))];
    return labels
      .map((l) => {
        const group = evs.filter((e) => label(e) === l);
        const conv = conversions(group);
        return { label: l, conversions: conv.length, revenue: revenue(conv), conversion_rate: rate(uniq(conv), uniq(group)) };
      })
      .sort((a, b) => b.conversions - a.conversions || a.label.localeCompare(b.label));
  };

  test("by device, country and link: rate within each group", async () => {
    const evs = inPeriod(30);
    expect((await get("breakdown?dimension=device")).body.data).toEqual(rows(evs, (e) => e.device ?? "unknown"));
    expect((await get("breakdown?dimension=country")).body.data).toEqual(rows(evs, (e) => e.country ?? "unknown"));
    expect((await get("breakdown?dimension=link")).body.data).toEqual(rows(evs, (e) => (e.link === "shop" ? shopLink : blogLink)));
  });

  test("by name: rate over every visitor in scope", async () => {
    const evs = inPeriod(30);
    const names = [...new Set(conversions(evs).map((e) => e.name!))];
    const expected = names
      .map((n) => {
        const conv = conversions(evs).filter((e) => e.name === n);
        return { label: n, conversions: conv.length, revenue: revenue(conv), conversion_rate: rate(uniq(conv), uniq(evs)) };
      })
      .sort((a, b) => b.conversions - a.conversions || a.label.localeCompare(b.label));
    expect((await get("breakdown?dimension=name")).body.data).toEqual(expected);
  });

  test("dimension is required and must be known", async () => {
    const missing = await get("breakdown");
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields[0].field).toBe("query.dimension");
    expect((await get("breakdown?dimension=browser")).status).toBe(400);
  });
});

describe("time to convert", () => {
  test("from the click (through the click id) or the first journey event, first conversion only", async () => {
    const spans = [3 * HOUR, 600, 2 * DAY - 2 * HOUR, 31 * DAY]; // clickVisitor, c2, c3, c4 (see EVENTS)
    const sorted = [...spans].sort((a, b) => a - b);
    const res = await get("time-to-convert");
    expect(res.status).toBe(200);
    expect(res.body.data.buckets).toEqual([
      { label: "under 1 hour", count: 1 },
      { label: "1-24 hours", count: 1 },
      { label: "1-7 days", count: 1 },
      { label: "7+ days", count: 1 },
    ]);
    expect(res.body.data.average_seconds).toBeCloseTo(spans.reduce((a, b) => a + b, 0) / spans.length, 0);
    expect(res.body.data.median_seconds).toBeCloseTo((sorted[1] + sorted[2]) / 2, 0);
  });

  test("with a link filter and an empty scope", async () => {
    const shop = (await get(`time-to-convert?link_id=${shopLink}`)).body.data;
    expect(shop.buckets.map((b: { count: number }) => b.count)).toEqual([1, 1, 0, 0]);
    expect(shop.median_seconds).toBeCloseTo((600 + 3 * HOUR) / 2, 0);
    const none = (await get("time-to-convert?period=24h&link_id=" + blogLink)).body.data;
    expect(none).toEqual({ buckets: expect.any(Array), average_seconds: 0, median_seconds: 0 });
    expect(none.buckets.every((b: { count: number }) => b.count === 0)).toBe(true);
  });
});

describe("access", () => {
  test("another account's link or domain → 404; needs conversions:read", async () => {
    const stranger = await t.createAccount();
    for (const path of ["summary", "timeseries", "breakdown?dimension=device", "time-to-convert"]) {
      const sep = path.includes("?") ? "&" : "?";
      expect((await get(`${path}${sep}link_id=${shopLink}`, stranger.key)).status).toBe(404);
      expect((await get(`${path}${sep}domain_id=${domainId}`, stranger.key)).status).toBe(404);
    }
    const empty = await get("summary", stranger.key);
    expect(empty.body.data).toEqual({
      total_conversions: 0,
      unique_converters: 0,
      total_revenue: 0,
      average_order_value: 0,
      conversion_rate: 0,
    });
    const noScope = await t.createAccount({ scopes: ["journey:read"] });
    expect((await get("summary", noScope.key)).status).toBe(403);
    expect((await get("summary?link_id=nope")).status).toBe(400);
  });
});
