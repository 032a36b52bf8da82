// Unique visitors are exact in every click report and in link stats (migration 0222): a seeded set of
// ~5,000 visitor-days over four days (1,100 to 1,400 a day: past the ~1,000 where the sketches counted
// before stopped being exact), spooled with chosen times, sources, referrers and countries; every figure
// is compared with the count this test computes from what it sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { prng } from "../accuracy/workload";
import { createTestApp, type TestApp } from "../helpers/app";
import { breakdown, visitors, type SentClick } from "./expect";
import { createLink, DAY_MS, daysAgo, get, isoDay, rawClick, spoolClicks, UA } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
const links: string[] = [];
const sent: (SentClick & { source: "link" | "qr" })[] = [];

const REFERRERS: [string, string][] = [
  ["direct", ""],
  ["www.google.com", "https://www.google.com/search?q=x"],
  ["t.co", "https://t.co/abc"],
  ["news.ycombinator.com", "https://news.ycombinator.com/item?id=1"],
];
const COUNTRIES = ["US", "DE", "GB", "FR", "JP"];
const AGENTS = [UA.iphone, UA.windowsChrome, UA.androidChrome];
const DAYS = [4, 3, 2, 1]; // days ago

beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  for (let i = 0; i < 3; i++) links.push((await createLink(t, key, `https://example.com/${i}`)).id);
  const { next: rnd, pick } = prng(15);
  const clicks = [];
  for (const ago of DAYS) {
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS;
    const people = 1300 + Math.floor(rnd() * 300);
    for (let p = 0; p < people; p++) {
      // 1,800 addresses × 3 agents: people recur across days (a new visitor every day: hashes rotate daily).
      const n = Math.floor(rnd() * 1800);
      const ip = `81.${2 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      const ua = pick(AGENTS);
      const country = pick(COUNTRIES);
      const visits = 1 + Math.floor(rnd() * 3);
      for (let v = 0; v < visits; v++) {
        // Between 00:30 and 23:30 UTC: no visit carries over midnight (that rule is pipeline.test.ts's).
        const ts = midnight + 1_800_000 + Math.floor(rnd() * 23 * 3_600_000);
        const [host, referrer] = pick(REFERRERS);
        const source = rnd() < 0.2 ? "qr" : "link";
        const link = pick(links);
        clicks.push({ ts, link, ip, ua, referrer, country, source });
        const day = isoDay(ts);
        const hour = new Date(ts).getUTCHours();
        sent.push({
          day,
          hour,
          ts,
          link,
          ip,
          ua,
          referrer: host,
          domain: "",
          country,
          device: "",
          browser: "",
          os: "",
          bot: false,
          source,
        });
      }
    }
  }
  await spoolClicks(
    t,
    clicks.map((c) =>
      rawClick({
        account_id: accountId,
        link_id: c.link,
        ts: c.ts,
        ip: c.ip,
        ua: c.ua,
        referrer: c.referrer,
        geo_country: c.country,
        ...(c.source === "qr" ? { src: "qr" as const } : {}),
      }),
    ),
  );
}, 120_000);
afterAll(() => t.close());

const range = `start_date=${daysAgo(DAYS[0])}&end_date=${daysAgo(1)}`;
const report = async (path: string) => {
  const res = await get(t, key, path);
  expect(res.status).toBe(200);
  return res.body.data;
};

test("the workload is past the sketches' exact range", () => {
  const perDay = DAYS.map((ago) => visitors(sent.filter((c) => c.day === daysAgo(ago))));
  for (const n of perDay) expect(n).toBeGreaterThan(1100);
  expect(visitors(sent)).toBeGreaterThan(4500);
});

test("summary, timeseries and hourly count every visitor once", async () => {
  const summary = (await report(`/analytics/summary?${range}`)).analytics;
  expect(summary).toMatchObject({ total_clicks: sent.length, unique_visitors: visitors(sent) });
  const series = (await report(`/analytics/timeseries?${range}`)).analytics;
  expect(series.map((d: { date: string; unique_visitors: number }) => [d.date, d.unique_visitors])).toEqual(
    DAYS.map((ago) => [daysAgo(ago), visitors(sent.filter((c) => c.day === daysAgo(ago)))]),
  );
  // A one-day summary and that day's timeseries row are the same count.
  for (const day of series)
    expect((await report(`/analytics/summary?start_date=${day.date}&end_date=${day.date}`)).analytics.unique_visitors).toBe(
      day.unique_visitors,
    );
  const hourly = (await report(`/analytics/hourly?${range}`)).analytics;
  expect(hourly.map((h: { unique_visitors: number }) => h.unique_visitors)).toEqual(
    Array.from({ length: 24 }, (_, hour) => visitors(sent.filter((c) => c.hour === hour))),
  );
});

test("geo and referrers count each row's visitors exactly", async () => {
  const geo = (await report(`/analytics/geo?${range}`)).analytics;
  expect(geo).toEqual(
    breakdown(sent, (c) => c.country).map((r) => ({ country_code: r.key, clicks: r.clicks, unique_visitors: r.unique_visitors })),
  );
  const referrers = (await report(`/analytics/referrers?${range}`)).analytics;
  expect(referrers).toEqual(
    breakdown(sent, (c) => c.referrer).map((r) => ({ referrer: r.key, clicks: r.clicks, unique_visitors: r.unique_visitors })),
  );
});

test("a source filter (read from the raw clicks) and group_by source count the same way", async () => {
  const qr = sent.filter((c) => c.source === "qr");
  expect((await report(`/analytics/summary?${range}&source=qr`)).analytics.unique_visitors).toBe(visitors(qr));
  const hourly = (await report(`/analytics/hourly?${range}&source=qr`)).analytics;
  expect(hourly.map((h: { unique_visitors: number }) => h.unique_visitors)).toEqual(
    Array.from({ length: 24 }, (_, hour) => visitors(qr.filter((c) => c.hour === hour))),
  );
  const groups = (await report(`/analytics/summary?${range}&group_by=source`)).analytics.groups;
  expect(groups).toEqual(
    breakdown(sent, (c) => c.source).map((r) => ({ source: r.key, clicks: r.clicks, unique_visitors: r.unique_visitors })),
  );
});

test("link stats count each link's lifetime visitors exactly", async () => {
  for (const link of links) {
    const mine = sent.filter((c) => c.link === link);
    const stats = await report(`/links/${link}/stats?group_by=source`);
    expect(stats).toMatchObject({ human_clicks: mine.length, unique_visitors: visitors(mine) });
    expect(stats.groups.map((g: { source: string; unique_visitors: number }) => [g.source, g.unique_visitors]).sort()).toEqual([
      ["link", visitors(mine.filter((c) => c.source === "link"))],
      ["qr", visitors(mine.filter((c) => c.source === "qr"))],
    ]);
  }
});
