// The six analytics endpoints against counts the test computes from the clicks it sent: today's through
// real redirects (varied agents, addresses, referrers, bots, a custom domain), earlier days spooled.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, daysAgo, get, P, rawClick, spoolClicks, today, UA, visit, DAY_MS } from "./helpers";
import { breakdown, select, visitors, type Filter, type SentClick } from "./expect";

let t: TestApp;
let key: string;
let accountId: string;
const sent: SentClick[] = [];
const links: Record<string, { id: string; short_code: string }> = {};
const TXT: Record<string, string[][]> = {};
let startedAt = 0;

type Spec = Omit<SentClick, "day" | "hour" | "ts" | "domain"> & { country_header?: string; host?: string };
const person = (
  link: string,
  ip: string,
  ua: string,
  referrer: string,
  country: string,
  device: string,
  browser: string,
  os: string,
): Spec => ({ link, ip, ua, referrer, country, device, browser, os, bot: false });
const bot = (link: string, ip: string, ua: string, country: string): Spec => ({
  link,
  ip,
  ua,
  referrer: "direct",
  country,
  device: "desktop",
  browser: "",
  os: "",
  bot: true,
});

const TODAY: Spec[] = [
  person("a", "8.8.8.8", UA.iphone, "www.google.com", "US", "mobile", "Mobile Safari", "iOS"),
  person("a", "8.8.8.8", UA.iphone, "www.google.com", "US", "mobile", "Mobile Safari", "iOS"),
  person("b", "81.2.69.142", UA.windowsChrome, "direct", "GB", "desktop", "Chrome", "Windows"),
  person("a", "2a00:1450:4001::1", UA.androidChrome, "t.co", "DE", "mobile", "Mobile Chrome", "Android"),
  { ...person("a", "10.0.0.5", UA.macFirefox, "direct", "FR", "desktop", "Firefox", "macOS"), country_header: "FR" },
  person("b", "192.168.1.20", UA.macFirefox, "direct", "XX", "desktop", "Firefox", "macOS"),
  bot("b", "133.242.0.1", UA.slack, "JP"),
  bot("a", "200.160.2.3", UA.googlebot, "BR"),
  { ...person("custom", "5.45.207.1", UA.ipad, "direct", "RU", "tablet", "Mobile Safari", "iOS"), host: "go.example.com" },
];
// [days ago, hour, click]
const EARLIER: [number, number, Spec][] = [
  [1, 9, person("a", "8.8.8.8", UA.iphone, "www.google.com", "US", "mobile", "Mobile Safari", "iOS")],
  [1, 9, person("b", "81.2.69.142", UA.windowsChrome, "direct", "GB", "desktop", "Chrome", "Windows")],
  [1, 15, bot("b", "49.12.0.1", UA.curl, "DE")],
  [3, 20, person("a", "5.45.207.1", UA.ipad, "news.ycombinator.com", "RU", "tablet", "Mobile Safari", "iOS")],
  [3, 20, person("a", "5.45.207.1", UA.ipad, "news.ycombinator.com", "RU", "tablet", "Mobile Safari", "iOS")],
  [10, 9, person("b", "133.242.0.1", UA.windowsChrome, "direct", "JP", "desktop", "Chrome", "Windows")],
  [40, 12, person("a", "8.8.8.8", UA.macFirefox, "direct", "US", "desktop", "Firefox", "macOS")],
];
const REFERRER_URL: Record<string, string> = {
  "www.google.com": "https://www.google.com/search?q=x",
  "t.co": "https://t.co/abc",
  "news.ycombinator.com": "https://news.ycombinator.com/item?id=1",
};

beforeAll(async () => {
  t = await createTestApp(
    {},
    { TRUST_PROXY: "true" },
    {
      resolveTxt: async (name) => {
        if (!TXT[name]) throw new Error("ENOTFOUND");
        return TXT[name];
      },
    },
  );
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  links.a = await createLink(t, key, "https://example.com/a");
  links.b = await createLink(t, key, "https://example.com/b");
  links.idle = await createLink(t, key, "https://example.com/idle");
  const domain = (await t.call(`${P}/domains`, { method: "POST", key, json: { name: "go.example.com" } })).body.data;
  TXT[domain.verification.name] = [[domain.verification.value]];
  await t.call(`${P}/domains/${domain.id}/verify`, { method: "POST", key });
  const custom = await t.call(`${P}/links`, {
    method: "POST",
    key,
    json: { url: "https://example.com/c", title: "c", description: "c", domain_id: domain.id },
  });
  links.custom = custom.body.data;

  startedAt = Date.now();
  for (const s of TODAY) {
    const headers: Record<string, string> = s.host ? { host: s.host } : {};
    const ts = Date.now();
    await visit(t, links[s.link].short_code, {
      ip: s.ip,
      ua: s.ua,
      referrer: REFERRER_URL[s.referrer],
      country: s.country_header,
      headers,
    });
    sent.push({ ...s, link: links[s.link].id, day: today(), hour: new Date(ts).getUTCHours(), ts, domain: s.host ?? "" });
  }
  const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const raw = EARLIER.map(([ago, hour, s]) => {
    const ts = midnight - ago * DAY_MS + hour * 3_600_000 + 60_000;
    sent.push({ ...s, link: links[s.link].id, day: daysAgo(ago), hour, ts, domain: "" });
    return rawClick({ account_id: accountId, link_id: links[s.link].id, ts, ip: s.ip, ua: s.ua, referrer: REFERRER_URL[s.referrer] ?? "" });
  });
  await spoolClicks(t, raw);
}, 60_000);
afterAll(() => t.close());

const last30: Filter = { start: daysAgo(29), end: today(), bot: "real" };

describe("GET /analytics/summary", () => {
  test("totals, today and yesterday, links and the month, for people by default", async () => {
    const res = await get(t, key, "/analytics/summary");
    expect(res.status).toBe(200);
    const inRange = select(sent, last30);
    const a = res.body.data.analytics;
    expect(a).toMatchObject({
      total_clicks: inRange.length,
      unique_visitors: visitors(inRange),
      today_clicks: select(sent, { ...last30, start: today() }).length,
      yesterday_clicks: select(sent, { ...last30, start: daysAgo(1), end: daysAgo(1) }).length,
      active_links: new Set(inRange.map((c) => c.link)).size,
      total_links: 4,
      total_links_count: 4,
      links_this_month: 4,
      clicks_this_month: sent.filter((c) => c.day >= `${today().slice(0, 7)}-01`).length,
    });
    expect(Date.parse(a.last_click_at)).toBeGreaterThanOrEqual(startedAt - 1);
    expect(Date.parse(a.last_click_at)).toBeLessThanOrEqual(Date.now());
    expect(res.body.data.usage).toEqual({
      clicks_this_month: a.clicks_this_month,
      click_limit: null,
      limit_exceeded: false,
      tier: "scale",
      retention_days: 1825,
    });
  });

  test("bot_filter bot and all; bot and human clicks add up", async () => {
    const bots = (await get(t, key, "/analytics/summary?bot_filter=bot")).body.data.analytics;
    const all = (await get(t, key, "/analytics/summary?bot_filter=all")).body.data.analytics;
    const people = (await get(t, key, "/analytics/summary?bot_filter=real")).body.data.analytics;
    expect(bots.total_clicks).toBe(select(sent, { ...last30, bot: "bot" }).length);
    expect(all.total_clicks).toBe(select(sent, { ...last30, bot: "all" }).length);
    expect(bots.total_clicks + people.total_clicks).toBe(all.total_clicks);
    expect(all.unique_visitors).toBe(visitors(select(sent, { ...last30, bot: "all" })));
  });

  test("domain_name restricts clicks and links to a custom domain", async () => {
    const res = await get(t, key, "/analytics/summary?domain_name=Go.Example.com&bot_filter=all");
    expect(res.body.data.analytics).toMatchObject({
      total_clicks: 1,
      unique_visitors: 1,
      active_links: 1,
      total_links: 1,
      total_links_count: 4,
    });
    const none = await get(t, key, "/analytics/summary?domain_name=other.example.com");
    expect(none.body.data.analytics).toMatchObject({
      total_clicks: 0,
      unique_visitors: 0,
      active_links: 0,
      total_links: 0,
      last_click_at: null,
    });
  });
});

describe("GET /analytics/timeseries", () => {
  test("one row per day, empty days as zeros, oldest first", async () => {
    const res = await get(t, key, "/analytics/timeseries?days=7");
    const rows = res.body.data.analytics;
    expect(rows.map((r: { date: string }) => r.date)).toEqual([6, 5, 4, 3, 2, 1, 0].map(daysAgo));
    for (const row of rows) {
      const day = select(sent, { start: row.date, end: row.date, bot: "real" });
      expect(row).toEqual({ date: row.date, clicks: day.length, unique_visitors: visitors(day) });
    }
    expect(rows.find((r: { date: string }) => r.date === daysAgo(2)).clicks).toBe(0);
  });

  test("start_date and end_date override days", async () => {
    const res = await get(t, key, `/analytics/timeseries?days=2&start_date=${daysAgo(40)}&end_date=${daysAgo(1)}&bot_filter=all`);
    const rows = res.body.data.analytics;
    expect(rows.length).toBe(40);
    expect(rows[0]).toEqual({ date: daysAgo(40), clicks: 1, unique_visitors: 1 });
    expect(rows.at(-1)).toEqual({ date: daysAgo(1), clicks: 3, unique_visitors: 3 });
  });
});

describe("breakdowns", () => {
  test("geo: countries with clicks and visitors; unknown addresses are XX", async () => {
    const res = await get(t, key, `/analytics/geo?days=60&bot_filter=all`);
    const expected = breakdown(select(sent, { start: daysAgo(59), end: today(), bot: "all" }), (c) => c.country).map(
      ({ key: country_code, ...n }) => ({ country_code, ...n }),
    );
    expect(res.body.data.analytics).toEqual(expected);
    expect(res.body.data.analytics.map((r: { country_code: string }) => r.country_code)).toContain("XX");
  });

  test("devices: device type, browser and OS of people", async () => {
    const res = await get(t, key, "/analytics/devices");
    const expected = breakdown(select(sent, last30), (c) => `${c.device}|${c.browser}|${c.os}`, false).map(({ key: k, clicks }) => {
      const [device_type, browser, os] = k.split("|");
      return { device_type, browser, os, clicks };
    });
    expect(res.body.data.analytics).toEqual(expected);
  });

  test("referrers: hosts, and direct for none", async () => {
    const res = await get(t, key, "/analytics/referrers");
    const expected = breakdown(select(sent, last30), (c) => c.referrer).map(({ key: referrer, ...n }) => ({ referrer, ...n }));
    expect(res.body.data.analytics).toEqual(expected);
    expect(res.body.data.analytics.map((r: { referrer: string }) => r.referrer)).toContain("direct");
  });

  test("hourly: all 24 hours of the day in UTC", async () => {
    const res = await get(t, key, "/analytics/hourly?bot_filter=all");
    const rows = res.body.data.analytics;
    expect(rows.map((r: { hour: number }) => r.hour)).toEqual([...Array(24).keys()]);
    const inRange = select(sent, { ...last30, bot: "all" });
    for (const row of rows) {
      const atHour = inRange.filter((c) => c.hour === row.hour);
      expect(row).toEqual({ hour: row.hour, clicks: atHour.length, unique_visitors: visitors(atHour) });
    }
  });
});

describe("isolation", () => {
  test("another account sees none of the data", async () => {
    const other = await t.createAccount({ tier: "scale" });
    const summary = (await get(t, other.key, "/analytics/summary?bot_filter=all&days=365")).body.data.analytics;
    expect(summary).toMatchObject({
      total_clicks: 0,
      unique_visitors: 0,
      active_links: 0,
      total_links_count: 0,
      clicks_this_month: 0,
      last_click_at: null,
    });
    for (const path of ["geo", "devices", "referrers"]) {
      expect((await get(t, other.key, `/analytics/${path}?bot_filter=all&days=365`)).body.data.analytics).toEqual([]);
    }
    const hourly = (await get(t, other.key, "/analytics/hourly?bot_filter=all")).body.data.analytics;
    expect(hourly.every((h: { clicks: number }) => h.clicks === 0)).toBe(true);
    const series = (await get(t, other.key, "/analytics/timeseries?bot_filter=all")).body.data.analytics;
    expect(series.length).toBe(30);
    expect(series.every((d: { clicks: number }) => d.clicks === 0)).toBe(true);
    expect((await get(t, other.key, `/links/${links.a.id}/stats`)).status).toBe(404);
  });
});
