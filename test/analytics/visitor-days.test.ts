// Click visitors from per-day numbers (stored rows of the aggregates, migrations 0231 and 0270): clicks across midnight (the
// 30-minute carry keeps a visitor's hash into the next day), late clicks into a day whose numbers were
// already stored, and every table merged. Every report's visitors are compared with distinct hashes
// counted from the raw clicks, which is what "exact" means: before the analytics job stored anything
// (every day counted from the raw clicks), after it (closed days read as numbers), after late clicks (the
// stored numbers of their days no longer match the aggregates' clicks) and after OPTIMIZE … FINAL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RawClick } from "../../server/ingest/clicks/record";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, DAY_MS, daysAgo, get, isoDay, rawClick, spoolClicks, UA } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
const links: string[] = [];
const AGENTS = [UA.iphone, UA.windowsChrome, UA.androidChrome, "curl/8.4.0"];
const COUNTRIES = ["US", "DE", "GB"];
const REFERRERS = ["", "https://www.google.com/search?q=x", "https://t.co/abc"];
const midnight = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS;
const MIN = 60_000;
const FIRST = 3; // days ago
const LAST = 1;

const person = (p: number) => ({ ip: `81.7.${p >> 8}.${p & 255}`, ua: AGENTS[p % 10 === 9 ? 3 : p % 3] });
const click = (p: number, ts: number, link = links[p % 2], i = 0): RawClick =>
  rawClick({
    account_id: accountId,
    link_id: link,
    ts,
    ...person(p),
    geo_country: COUNTRIES[p % 3],
    referrer: REFERRERS[(p + i) % 3],
  });

/** The clicks of three days around two midnights (m1: the start of FIRST−1 days ago, m2: of LAST days ago). */
function workload(): RawClick[] {
  const m1 = midnight(FIRST - 1);
  const m2 = midnight(LAST);
  const clicks: RawClick[] = [];
  for (let p = 0; p < 400; p++) {
    const kind = p % 5;
    if (kind === 0) clicks.push(click(p, m1 - 10 * MIN), click(p, m1 + 10 * MIN, links[p % 2], 1), click(p, m1 + 5 * 60 * MIN));
    else if (kind === 1)
      clicks.push(click(p, m1 - 40 * MIN), click(p, m1 + 10 * MIN)); // too long before midnight: no carry
    else if (kind === 2)
      clicks.push(click(p, m2 - 5 * MIN, links[0]), click(p, m2 + 20 * MIN, links[1], 2)); // carried onto another link
    else if (kind === 3) clicks.push(click(p, m1 - 12 * 60 * MIN), click(p, m1 + 12 * 60 * MIN), click(p, m2 + 2 * 60 * MIN));
    else clicks.push(click(p, m2 + (p % 7) * 60 * MIN, links[p % 2], p), click(p, m2 + (p % 7) * 60 * MIN + 30 * MIN, links[0], p + 1));
  }
  return clicks.sort((a, b) => a.ts - b.ts);
}

beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" }, { jobs: false });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  for (let i = 0; i < 2; i++) links.push((await createLink(t, key, `https://example.com/${i}`)).id);
  await spoolClicks(t, workload());
}, 120_000);
afterAll(() => t.close());

const ch = () => t.runtime.deps.ch;
const range = (from = FIRST) => `start_date=${daysAgo(from)}&end_date=${daysAgo(LAST)}`;
const data = async (path: string) => {
  const res = await get(t, key, path);
  expect(res.status).toBe(200);
  return res.body.data;
};
const rawCount = async (where: string, group: string) => {
  const rows = await ch().query<{ g: string; n: string }>(
    `SELECT toString(${group}) AS g, uniqExact(visitor_hash) AS n FROM ${ch().table("clicks")}
     WHERE account_id = {account:UUID} AND ${where} GROUP BY g ORDER BY g`,
    { account: accountId, from: daysAgo(FIRST), to: daysAgo(LAST) },
  );
  return Object.fromEntries(rows.map((r) => [r.g, Number(r.n)]));
};
const DAYS = "toDate(timestamp) BETWEEN {from:Date} AND {to:Date}";

/** Every report's visitors beside the raw clicks' distinct hashes of the same scope. */
async function expectExact() {
  const summary = (await data(`/analytics/summary?${range()}`)).analytics;
  expect(summary.unique_visitors).toBe((await rawCount(`${DAYS} AND is_bot = 0`, "''"))[""]);
  const all = (await data(`/analytics/summary?${range()}&bot_filter=all`)).analytics;
  expect(all.unique_visitors).toBe((await rawCount(DAYS, "''"))[""]);
  const bots = (await data(`/analytics/summary?${range()}&bot_filter=bot`)).analytics;
  expect(bots.unique_visitors).toBe((await rawCount(`${DAYS} AND is_bot = 1`, "''"))[""]);
  // A range that starts on the day after a midnight with carried hashes.
  const later = (await data(`/analytics/summary?${range(FIRST - 1)}`)).analytics;
  expect(later.unique_visitors).toBe((await rawCount(`toDate(timestamp) BETWEEN {from:Date} + 1 AND {to:Date} AND is_bot = 0`, "''"))[""]);
  const series = (await data(`/analytics/timeseries?${range()}`)).analytics;
  expect(Object.fromEntries(series.map((d: { date: string; unique_visitors: number }) => [d.date, d.unique_visitors]))).toEqual(
    await rawCount(`${DAYS} AND is_bot = 0`, "toDate(timestamp)"),
  );
  const hourly = (await data(`/analytics/hourly?${range()}`)).analytics;
  expect(
    Object.fromEntries(
      hourly
        .filter((h: { clicks: number }) => h.clicks > 0)
        .map((h: { hour: number; unique_visitors: number }) => [String(h.hour), h.unique_visitors]),
    ),
  ).toEqual(await rawCount(`${DAYS} AND is_bot = 0`, "toHour(timestamp)"));
  const geo = (await data(`/analytics/geo?${range()}`)).analytics;
  expect(
    Object.fromEntries(geo.map((g: { country_code: string; unique_visitors: number }) => [g.country_code, g.unique_visitors])),
  ).toEqual(await rawCount(`${DAYS} AND is_bot = 0`, "country_code"));
  const referrers = (await data(`/analytics/referrers?${range()}`)).analytics;
  expect(Object.fromEntries(referrers.map((r: { referrer: string; unique_visitors: number }) => [r.referrer, r.unique_visitors]))).toEqual(
    await rawCount(`${DAYS} AND is_bot = 0`, "referrer"),
  );
  for (const link of links) {
    const stats = await data(`/links/${link}/stats`);
    expect(stats.unique_visitors).toBe((await rawCount(`link_id = toUUID('${link}') AND is_bot = 0`, "''"))[""]);
    const one = (await data(`/analytics/summary?${range()}&link_id=${link}`)).analytics;
    expect(one.unique_visitors).toBe((await rawCount(`${DAYS} AND link_id = toUUID('${link}') AND is_bot = 0`, "''"))[""]);
  }
}

const storedDays = async () =>
  (
    await ch().query<{ d: string; v: string }>(
      `SELECT toString(day) AS d, tupleElement(max(stored), 4) AS v FROM ${ch().table("clicks_daily")}
       WHERE account_id = {account:UUID} AND is_bot = 10 AND domain = '*' GROUP BY d ORDER BY d`,
      { account: accountId },
    )
  ).map((r) => [r.d, Number(r.v)]);

test("the workload carries hashes across midnight, within a link and onto another", async () => {
  const [row] = await ch().query<{ carried: string; across_links: string }>(
    `SELECT countIf(days = 2) AS carried, countIf(days = 2 AND links = 2) AS across_links FROM
       (SELECT visitor_hash, uniqExact(toDate(timestamp)) AS days, uniqExact(link_id) AS links FROM ${ch().table("clicks")}
        WHERE account_id = {account:UUID} GROUP BY visitor_hash)`,
    { account: accountId },
  );
  expect(Number(row.carried)).toBeGreaterThan(100);
  expect(Number(row.across_links)).toBeGreaterThan(20);
});

test("every report counts the raw clicks' visitors, before and after the job stores the closed days", async () => {
  expect(await storedDays()).toEqual([]);
  await expectExact();
  await t.runtime.jobs.analytics.runOnce();
  const stored = await storedDays();
  expect(stored.map(([d]) => d)).toEqual([daysAgo(3), daysAgo(2), daysAgo(1)]);
  const perDay = await rawCount("is_bot = 0", "toDate(timestamp)");
  for (const [d, v] of stored) expect(v).toBe(perDay[d as string]);
  await expectExact();
}, 60_000);

test("late clicks into a day already stored are counted, before the job recomputes it and after", async () => {
  const m2 = midnight(LAST);
  const late = [
    // Returning visitors of FIRST−1 days ago and new ones, at noon of that closed day.
    ...Array.from({ length: 40 }, (_, i) => click(3 + 5 * i, midnight(FIRST - 1) + 12 * 60 * MIN + i * MIN)),
    ...Array.from({ length: 30 }, (_, i) => click(1000 + i, midnight(FIRST - 1) + 13 * 60 * MIN)),
    // A visitor of the minutes before the last midnight clicking again just after it: carried, late.
    ...Array.from({ length: 20 }, (_, i) => click(2 + 5 * i, m2 + 25 * MIN, links[0])),
  ];
  const before = (await data(`/analytics/summary?${range()}`)).analytics.unique_visitors;
  await spoolClicks(t, late);
  await expectExact();
  expect((await data(`/analytics/summary?${range()}`)).analytics.unique_visitors).toBe(before + 27); // 30 new people, 3 of them bots
  await t.runtime.jobs.analytics.runOnce();
  await expectExact();
  const perDay = await rawCount("is_bot = 0", "toDate(timestamp)");
  for (const [d, v] of await storedDays()) expect(v).toBe(perDay[d as string]);
}, 60_000);

test("after OPTIMIZE … FINAL of every click table the counts are the same", async () => {
  for (const table of [
    "clicks",
    "clicks_daily",
    "clicks_hourly",
    "clicks_daily_links",
    "clicks_daily_geo",
    "clicks_daily_referrers",
    "click_visitor_days",
  ] as const)
    await ch().command(`OPTIMIZE TABLE ${ch().table(table)} FINAL`);
  await expectExact();
}, 60_000);

test("today is counted from the raw clicks (no stored numbers) and with the days before", async () => {
  await spoolClicks(t, [click(0, Date.now() - MIN), click(5000, Date.now() - MIN)]);
  const summary = (await data("/analytics/summary?days=4")).analytics;
  const [{ n }] = await ch().query<{ n: string }>(
    `SELECT uniqExact(visitor_hash) AS n FROM ${ch().table("clicks")}
     WHERE account_id = {account:UUID} AND is_bot = 0 AND toDate(timestamp) >= {from:Date}`,
    { account: accountId, from: isoDay(Date.now() - 3 * DAY_MS) },
  );
  expect(summary.unique_visitors).toBe(Number(n));
});

// Today's overlap with yesterday is kept per process while today's first hour and yesterday keep their
// clicks: a carried click arriving late into today's first minutes must still count its visitor once.
test.skipIf(Date.now() - midnight(0) < 20 * MIN)("a late click carried into today's first minutes counts its visitor once", async () => {
  const p = 7000;
  await spoolClicks(t, [click(p, midnight(0) - 5 * MIN, links[0])]);
  const before = (await data("/analytics/summary?days=2")).analytics;
  await spoolClicks(t, [click(p, midnight(0) + 10 * MIN, links[1])]);
  const after = (await data("/analytics/summary?days=2")).analytics;
  expect(after.total_clicks).toBe(before.total_clicks + 1);
  expect(after.unique_visitors).toBe(before.unique_visitors);
  const [{ n }] = await ch().query<{ n: string }>(
    `SELECT uniqExact(visitor_hash) AS n FROM ${ch().table("clicks")}
     WHERE account_id = {account:UUID} AND is_bot = 0 AND toDate(timestamp) >= {from:Date}`,
    { account: accountId, from: daysAgo(1) },
  );
  expect(after.unique_visitors).toBe(Number(n));
});

// The stored numbers are rows of the aggregates (migration 0270: is_bot 10 and up, clicks 0): a link whose
// only click was on the day before a range has a stored row on the range's first day (its overlap), which
// no click figure may count, whatever the bot filter.
test("the stored rows count in no click figure: clicks, active links and the month's usage, whatever the bot filter", async () => {
  const quiet = (await createLink(t, key, "https://example.com/quiet")).id;
  await spoolClicks(t, [click(9000, midnight(FIRST) + 12 * 60 * MIN, quiet)]);
  await t.runtime.jobs.analytics.runOnce();
  const [stored] = await ch().query<{ n: string }>(
    `SELECT count() AS n FROM ${ch().table("clicks_daily_links")} WHERE link_id = {link:UUID} AND is_bot >= 10 AND day = {day:Date}`,
    { link: quiet, day: daysAgo(FIRST - 1) },
  );
  expect(Number(stored.n)).toBeGreaterThan(0);
  const [raw] = await ch().query<{ c: string; l: string }>(
    `SELECT count() AS c, uniqExact(link_id) AS l FROM ${ch().table("clicks")}
     WHERE account_id = {account:UUID} AND toDate(timestamp) BETWEEN {from:Date} AND {to:Date}`,
    { account: accountId, from: daysAgo(FIRST - 1), to: daysAgo(LAST) },
  );
  for (const filter of ["all", "real"]) {
    const s = (await data(`/analytics/summary?${range(FIRST - 1)}&bot_filter=${filter}`)).analytics;
    if (filter === "all") expect(s.total_clicks).toBe(Number(raw.c));
    expect(s.active_links).toBe(Number(raw.l));
  }
  // The usage figure, read in each report's own scan (or beside a one-link report's), counts every click of the month.
  const [month] = await ch().query<{ c: string }>(
    `SELECT count() AS c FROM ${ch().table("clicks")} WHERE account_id = {account:UUID} AND timestamp >= toStartOfMonth(now('UTC'))`,
    { account: accountId },
  );
  for (const path of ["summary?days=7", `summary?days=7&link_id=${quiet}`, "geo?days=7", "hourly?days=7", "referrers?days=7"])
    expect((await data(`/analytics/${path}`)).usage.clicks_this_month).toBe(Number(month.c));
  const series = (await data(`/analytics/timeseries?${range(FIRST - 1)}&bot_filter=all`)).analytics;
  expect(series.reduce((n: number, d: { clicks: number }) => n + d.clicks, 0)).toBe(Number(raw.c));
}, 60_000);
