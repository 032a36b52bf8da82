// Migration 0224 (the journey views stop computing visitor states nothing reads) on a database that holds
// clicks and journey events written before it and before 0222. Every click and journey report counts the
// data written before and after exactly, the rows written after carry empty sketches, an insert in the row
// shape of an older instance still feeds every report, and running 0224 again changes nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { getClicksByCountry, getClicksByReferrer } from "../../server/analytics/queries/breakdowns";
import { getClickGroups } from "../../server/analytics/queries/groups";
import { getLinkClickStats } from "../../server/analytics/queries/link-stats";
import { getClickTimeseries, getClickTotals, getClicksByHour } from "../../server/analytics/queries/totals";
import type { ClickScope } from "../../server/analytics/model";
import { getConversionBreakdown, getConversionTotals } from "../../server/conversions/queries";
import { getJourneySummary } from "../../server/journey/queries";
import { openClickhouse, type Clickhouse } from "../../server/storage/clickhouse/client";
import { readClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { sharedChdb, testClickhouseUrl } from "../helpers/stores";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const noon = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS + 12 * HOUR_MS;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const CLICK_AGGREGATES = [
  "clicks_daily",
  "clicks_hourly",
  "clicks_daily_links",
  "clicks_daily_geo",
  "clicks_daily_referrers",
  "clicks_daily_targets",
] as const;
const JOURNEY_STATES = ["visitors", "sessions", "converters", "visitors_sketch"] as const;

/** A database of its own, on the shared chDB or (SVC_TEST_CLICKHOUSE_URL) the ClickHouse server; no migration run yet. */
async function emptyDatabase(): Promise<Clickhouse> {
  const database = `t_mig224_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const skip = async <T>() => undefined as T;
  const ch = testClickhouseUrl
    ? await openClickhouse({ url: testClickhouseUrl, database, dataDir: tmpdir(), migrationLock: skip })
    : await openClickhouse({ database, dataDir: tmpdir(), sharedClient: await sharedChdb(), migrationLock: skip });
  await ch.command(`CREATE DATABASE ${database}`);
  return ch;
}

const statementsOf = (ch: Clickhouse, keep: (version: number) => boolean) =>
  readClickhouseMigrations(ch)
    .filter((m) => keep(m.version))
    .flatMap((m) => m.statements);

/** The definitions of every view, with the database's name taken out (to compare two databases). */
async function viewDefinitions(ch: Clickhouse): Promise<Record<string, string>> {
  const rows = await ch.query<{ name: string; q: string }>(
    "SELECT name, create_table_query AS q FROM system.tables WHERE database = {db:String} AND engine = 'MaterializedView' ORDER BY name",
    { db: ch.database },
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.q.replaceAll(`${ch.database}.`, "db.")]));
}

interface Fixture {
  ch: Clickhouse;
  account: string;
  link: string;
  /** An account that only has clicks and events written after 0224. */
  later: string;
  laterLink: string;
  clicks: { hash: number; at: number; country: string; referrer: string }[];
  events: { visitor: number; at: number; type: string; revenue: number }[];
}

function clickRows(f: Fixture, account: string, link: string, hashes: number[], ago: number, country: string, referrer: string) {
  const rows = hashes.map((hash, i) => ({ hash, at: noon(ago) + i * 1000, country, referrer }));
  if (account === f.account) f.clicks.push(...rows);
  return rows.map((r) => ({
    click_id: crypto.randomUUID(),
    timestamp: r.at,
    account_id: account,
    link_id: link,
    visitor_hash: String(1_000_000 + r.hash),
    is_bot: 0,
    country_code: r.country,
    referrer: r.referrer,
  }));
}

/** Each visitor views a page, and every tenth converts (250 cents), in a session of its own. */
function eventRows(f: Fixture, account: string, link: string, visitors: number[], ago: number) {
  const rows = visitors.flatMap((visitor, i) => [
    { visitor, at: noon(ago) + i * 1000, type: "page_view", revenue: 0 },
    ...(visitor % 10 === 0 ? [{ visitor, at: noon(ago) + i * 1000 + 500, type: "conversion", revenue: 250 }] : []),
  ]);
  if (account === f.account) f.events.push(...rows);
  return rows.map((e) => ({
    event_id: crypto.randomUUID(),
    received_at: e.at,
    timestamp: e.at,
    account_id: account,
    link_id: link,
    visitor_id: `visitor-${e.visitor}`,
    session_id: `session-${e.visitor}-${ago}`,
    event_type: e.type,
    conversion_name: e.type === "conversion" ? "purchase" : "",
    revenue_cents: e.revenue,
    page_url: `https://shop.example/${e.visitor % 3}`,
  }));
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** An older instance's spool rows: no source, variant, rule (migration 0220) nor has_revenue (0210). */
async function insertOldShape(ch: Clickhouse, table: "clicks" | "journey_events", rows: Record<string, unknown>[]) {
  const columns = Object.keys(rows[0]);
  const data = Buffer.from(rows.map((r) => JSON.stringify(columns.map((c) => r[c]))).join("\n"));
  await ch.insertRaw(table, columns, "JSONCompactEachRow", data);
}

/** What every report should say about `f.account`, computed from the rows inserted. */
function expected(f: Fixture) {
  const visitors = new Set(f.clicks.map((c) => c.hash)).size;
  const breakdown = (key: "country" | "referrer") => {
    const groups = new Map<string, { clicks: number; v: Set<number> }>();
    for (const c of f.clicks) {
      const g = groups.get(c[key]) ?? { clicks: 0, v: new Set() };
      g.clicks++;
      g.v.add(c.hash);
      groups.set(c[key], g);
    }
    return [...groups]
      .map(([value, g]) => ({ value, clicks: g.clicks, unique_visitors: g.v.size }))
      .sort((a, b) => b.clicks - a.clicks || a.value.localeCompare(b.value));
  };
  const days = [...new Set(f.clicks.map((c) => isoDay(c.at)))].sort();
  const perDay = days.map((d) => new Set(f.clicks.filter((c) => isoDay(c.at) === d).map((c) => c.hash)).size);
  const conversions = f.events.filter((e) => e.type === "conversion");
  return {
    clicks: f.clicks.length,
    visitors,
    perDay,
    countries: breakdown("country").map(({ value, ...n }) => ({ country_code: value, ...n })),
    referrers: breakdown("referrer").map(({ value, ...n }) => ({ referrer: value, ...n })),
    events: f.events.length,
    journeyVisitors: new Set(f.events.map((e) => e.visitor)).size,
    sessions: new Set(f.events.map((e) => `${e.visitor}-${isoDay(e.at)}`)).size,
    conversions: conversions.length,
    converters: new Set(conversions.map((e) => e.visitor)).size,
    revenue: conversions.reduce((n, e) => n + e.revenue, 0),
  };
}

/** Every click and journey report of `f.account`, as the service reads them. */
async function reports(f: Fixture) {
  const scope: ClickScope = { accountId: f.account, range: { start: isoDay(noon(3)), end: isoDay(noon(1)) }, botFilter: "real" };
  const journey = { accountId: f.account, linkId: f.link, fromMs: noon(3) - 2 * HOUR_MS };
  const conversions = { accountId: f.account, fromMs: journey.fromMs };
  const summary = await getJourneySummary(f.ch, journey);
  return {
    totals: await getClickTotals(f.ch, scope),
    perDay: (await getClickTimeseries(f.ch, scope)).map((d) => d.unique_visitors),
    byHour: (await getClicksByHour(f.ch, scope)).reduce((n, h) => n + h.unique_visitors, 0),
    countries: await getClicksByCountry(f.ch, scope),
    referrers: await getClicksByReferrer(f.ch, scope),
    linkStats: await getLinkClickStats(f.ch, { accountId: f.account, linkId: f.link }),
    sources: await getClickGroups(f.ch, scope, "source", false),
    journey: { visitors: summary.total_visitors, events: summary.total_events, sessions: summary.total_sessions },
    conversionTotals: await getConversionTotals(f.ch, conversions),
    conversionsByLink: await getConversionBreakdown(f.ch, conversions, "link"),
  };
}

function expectReports(r: Awaited<ReturnType<typeof reports>>, f: Fixture) {
  const e = expected(f);
  expect(r.totals).toMatchObject({ clicks: e.clicks, unique_visitors: e.visitors });
  expect(r.perDay).toEqual(e.perDay);
  expect(r.byHour).toBe(e.visitors); // every click is at 12:0x UTC: the hour of day 12 has every visitor
  expect(r.countries).toEqual(e.countries);
  expect(r.referrers).toEqual(e.referrers);
  expect(r.linkStats).toMatchObject({ human_clicks: e.clicks, unique_visitors: e.visitors });
  expect(r.sources).toEqual([{ value: "link", clicks: e.clicks, unique_visitors: e.visitors }]);
  expect(r.journey).toEqual({ visitors: e.journeyVisitors, events: e.events, sessions: e.sessions });
  expect(r.conversionTotals).toEqual({
    conversions: e.conversions,
    converters: e.converters,
    revenueCents: e.revenue,
    visitors: e.journeyVisitors,
  });
  expect(r.conversionsByLink).toEqual([
    { label: f.link, conversions: e.conversions, revenueCents: e.revenue, converters: e.converters, visitors: e.journeyVisitors },
  ]);
}

/** Distinct values each sketch column of an account's rollup rows holds (0: only empty states). */
async function sketchCounts(ch: Clickhouse, account: string) {
  const counts: Record<string, number> = {};
  const merged = async (table: string, expr: string) => {
    const [row] = await ch.query<{ n: string }>(`SELECT ${expr} AS n FROM ${ch.database}.${table} WHERE account_id = {a:UUID}`, {
      a: account,
    });
    return Number(row.n);
  };
  for (const t of CLICK_AGGREGATES) counts[`${t}.visitors`] = await merged(t, "uniqCombinedMerge(14)(visitors)");
  for (const c of JOURNEY_STATES)
    counts[`journey_hourly.${c}`] = await merged(
      "journey_hourly",
      c === "visitors_sketch" ? "uniqCombinedMerge(14)(visitors_sketch)" : `uniqMerge(${c})`,
    );
  for (const t of ["journey_visitors_hourly", "journey_visitors_daily"])
    counts[`${t}.visitors_sketch`] = await merged(t, "uniqCombinedMerge(14)(visitors_sketch)");
  return counts;
}

const f = {} as Fixture;
let viewsAfter: Record<string, string> | undefined;
afterAll(async () => {
  await f.ch?.command(`DROP DATABASE IF EXISTS ${f.ch.database}`);
});

describe("after migrations 0222 and 0223", () => {
  beforeAll(async () => {
    Object.assign(f, {
      ch: await emptyDatabase(),
      account: crypto.randomUUID(),
      link: crypto.randomUUID(),
      later: crypto.randomUUID(),
      laterLink: crypto.randomUUID(),
      clicks: [],
      events: [],
    });
    const run = async (statements: string[]) => {
      for (const s of statements) await f.ch.command(s);
    };
    await run(statementsOf(f.ch, (v) => v < 222));
    // Three days ago, before 0222: 300 visitors; clicks counted by the sketches only.
    await f.ch.insert("clicks", clickRows(f, f.account, f.link, range(0, 300), 3, "US", "a.example"));
    await f.ch.insert("journey_events", eventRows(f, f.account, f.link, range(0, 100), 3));
    const m0222 = statementsOf(f.ch, (v) => v === 222);
    await run(m0222);
    await run(statementsOf(f.ch, (v) => v > 222 && v < 224));
    // 0230 and 0231 (closed periods' journey visitor counts; click_visitor_days: new tables, no view
    // changed) are read by the current reports, which this test runs before and after 0224.
    await run(statementsOf(f.ch, (v) => v >= 230));
    // Two days ago, before 0224: 200 visitors, 100 of them seen three days ago.
    await f.ch.insert("clicks", clickRows(f, f.account, f.link, range(200, 200), 2, "DE", "b.example"));
    await f.ch.insert("journey_events", eventRows(f, f.account, f.link, range(50, 100), 2));
  }, 120_000);

  test("the reports count what was written before 0224 and after it exactly", async () => {
    const before = await reports(f);
    expectReports(before, f);
    for (const s of statementsOf(f.ch, (v) => v === 224)) await f.ch.command(s);
    expect(await reports(f)).toEqual(before);
    // Yesterday, after 0224: 150 visitors (50 seen before), in the shape of the current version...
    await f.ch.insert("clicks", clickRows(f, f.account, f.link, range(350, 100), 1, "DE", "c.example"));
    await f.ch.insert("journey_events", eventRows(f, f.account, f.link, range(100, 60), 1));
    // ...and of an older instance still flushing its spool during a rolling upgrade.
    await insertOldShape(f.ch, "clicks", clickRows(f, f.account, f.link, range(450, 50), 1, "FR", "c.example"));
    await insertOldShape(f.ch, "journey_events", eventRows(f, f.account, f.link, range(160, 40), 1));
    const after = await reports(f);
    expectReports(after, f);
    expect(after.totals.unique_visitors).toBe(500);
    expect(after.journey.visitors).toBe(200);
    // Whatever ClickHouse has merged.
    for (const t of [...CLICK_AGGREGATES, "journey_hourly", "journey_visitors_hourly", "journey_visitors_daily"])
      await f.ch.command(`OPTIMIZE TABLE ${f.ch.database}.${t} FINAL`);
    expect(await reports(f)).toEqual(after);
  }, 120_000);

  test("rows written after 0224 carry no sketch; rows written before keep theirs", async () => {
    await f.ch.insert("clicks", clickRows(f, f.later, f.laterLink, range(0, 40), 1, "US", "d.example"));
    await f.ch.insert("journey_events", eventRows(f, f.later, f.laterLink, range(0, 40), 1));
    const later = await sketchCounts(f.ch, f.later);
    expect(Object.values(later).every((n) => n === 0)).toBe(true);
    expect(Object.keys(later).length).toBe(CLICK_AGGREGATES.length + JOURNEY_STATES.length + 2);
    // The account written to before 0222 and 0224 still has its sketches (what the check above would see
    // had the views kept computing them).
    const earlier = await sketchCounts(f.ch, f.account);
    expect(earlier["clicks_daily.visitors"]).toBe(300);
    expect(earlier["journey_hourly.visitors_sketch"]).toBe(150);
    expect(earlier["journey_visitors_daily.visitors_sketch"]).toBe(150);
    // The later account's rollups have their counts all the same.
    const [rollup] = await f.ch.query<{ events: string; daily: string; set: string }>(
      `SELECT (SELECT sum(events) FROM ${f.ch.database}.journey_hourly WHERE account_id = {a:UUID}) AS events,
                (SELECT sum(events) FROM ${f.ch.database}.journey_visitors_daily WHERE account_id = {a:UUID}) AS daily,
                (SELECT uniqExactMerge(visitor_set) FROM ${f.ch.database}.clicks_daily WHERE account_id = {a:UUID}) AS set`,
      { a: f.later },
    );
    expect([rollup.events, rollup.daily, rollup.set].map(Number)).toEqual([44, 44, 40]);
  }, 60_000);

  test("running 0224 again changes nothing", async () => {
    const views = await viewDefinitions(f.ch);
    const before = await reports(f);
    for (const s of statementsOf(f.ch, (v) => v === 224)) await f.ch.command(s);
    expect(await viewDefinitions(f.ch)).toEqual(views);
    expect(await reports(f)).toEqual(before);
    viewsAfter = views;
  }, 60_000);
});

test("the views after 0224 compute no sketch", () => {
  const views = viewsAfter ?? {};
  expect(Object.keys(views).length).toBeGreaterThan(15);
  const changed = Object.keys(views).filter((name) => /^(clicks_|journey_hourly_mv|journey_visitors_)/.test(name));
  expect(changed.length).toBe(CLICK_AGGREGATES.length + 1 + 3);
  for (const name of changed) {
    expect(`${name}: ${views[name]}`).not.toMatch(/uniqCombined|uniqState|visitors_sketch/);
    if (CLICK_AGGREGATES.some((t) => name === `${t}_mv`)) expect(views[name]).toContain("uniqExactState(visitor_hash) AS visitor_set");
  }
});
