// Every report against figures computed here from what was sent: a seeded workload of ~127,000
// journey events (85 days, ~6,100 visitors, ~10,700 sessions, ~2,000 conversions, half without revenue,
// with the awkward timing of workload.ts) in ~2,600 batches and 29 flushes, and 2,000 clicks, read once
// with every table's parts unmerged (merges stopped for the whole ingest) and once after OPTIMIZE …
// FINAL of every table, with identical results. ~1 minute on 2 idle cores (4 to 8 under a load of 20).
//
// How the data goes in: journey events through POST /journey/events (validation, idempotency, quota,
// the spool and its flusher: the real ingest path, with many flushes so that sessions, rollups and
// visitor rows are split across parts); 800 clicks through real redirects (the app's redirect route)
// and 1,200 click records spooled with chosen times (the click flusher enriches and hashes them, as it
// does the redirect's records). Nothing is written to ClickHouse directly.
//
// ACCURACY_SEED picks another workload (default: a fixed seed, so a failure is reproducible).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, P, rawClick, visit } from "../analytics/helpers";
import { domains, links } from "../../server/storage/postgres/schema";
import {
  CLICK_ADDRESSES,
  CLICK_AGENTS,
  DAY,
  journeyBatches,
  PERIOD_HOURS,
  type PeriodName,
  periodFrom,
  prng,
  randomClicker,
  REFERRERS,
  type SentClick,
  spooledClicks,
} from "./workload";
import * as ref from "./reference";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";

const SEED = Number(process.env.ACCURACY_SEED ?? 20261125);
const NOW = Date.now();
const DAYS = 85;

let t: TestApp;
let key: string;
let accountId: string;
let linkIds: string[] = [];
let domainId: string;
const events: ref.Stored[] = [];
const clicks: ref.StoredClick[] = [];
const clickIds = new Map<string, { link: string; ms: number }>();

const api = async (path: string) => {
  const res = await t.call(`${P}${path}`, { key });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { data: any; meta: any };
};

async function mergeTreeTables() {
  const ch = t.runtime.deps.ch;
  const rows = await ch.query<{ name: ClickhouseTable }>(
    "SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'",
    {
      db: ch.database,
    },
  );
  return rows.map((r) => ch.table(r.name));
}

beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  const ch = t.runtime.deps.ch;
  for (const table of await mergeTreeTables()) await ch.command(`SYSTEM STOP MERGES ${table}`);

  const made = [await createLink(t, key, "https://shop.example/a"), await createLink(t, key, "https://shop.example/b")];
  const db = t.runtime.deps.pg.db;
  [{ id: domainId }] = await db
    .insert(domains)
    .values({ accountId, name: `go-${crypto.randomUUID().slice(0, 8)}.example`, verificationToken: "x" })
    .returning();
  const [onDomain] = await db
    .insert(links)
    .values({ accountId, domainId, shortCode: "acc-c", originalUrl: "https://shop.example/c" })
    .returning();
  linkIds = [...made.map((l) => l.id), onDomain.id];

  // Clicks: spooled over the days, then real redirects today.
  // In time order, as redirects write them: the visitor hashing keeps each day's salt only while that
  // day is among the last three it has seen, so a click of an older day hashed afterwards would get a
  // fresh salt.
  const spooled = spooledClicks({ seed: SEED, nowMs: NOW, days: DAYS, count: 1200, links: 2 }).sort((a, b) => a.ts - b.ts);
  await t.runtime.deps.streams.clicks.append(
    spooled.map((c) =>
      rawClick({
        account_id: accountId,
        link_id: linkIds[c.link],
        click_id: c.click_id,
        ts: c.ts,
        ip: c.ip,
        ua: c.ua,
        referrer: c.referrer,
      }),
    ),
  );
  for (const c of spooled) recordClick(c);
  const r = prng(SEED ^ 0xc11c);
  const redirectsFrom = clicks.length;
  const redirectsStarted = Date.now();
  for (let i = 0; i < 800; i++) {
    const who = randomClicker(r);
    const link = r.int(2);
    expect([200, 302]).toContain(await visit(t, made[link].short_code, { ip: who.ip, ua: who.ua, referrer: who.referrer || undefined }));
    recordClick({ click_id: "", ts: Date.now(), link, ...who });
  }
  await t.flush();
  // The server stamps a redirect with its own clock: the reference takes those times (the redirects
  // were sent one after another, so their times are in the order they were sent).
  const stamped = await t.runtime.deps.ch.query<{ ms: string }>(
    `SELECT toUnixTimestamp64Milli(timestamp) AS ms FROM ${t.runtime.deps.ch.table("clicks")}
     WHERE timestamp >= fromUnixTimestamp64Milli({from:Int64}) AND click_id NOT IN {spooled:Array(UUID)} ORDER BY timestamp`,
    { from: redirectsStarted, spooled: [...clickIds.keys()] },
  );
  expect(stamped.length).toBe(800);
  stamped.forEach((row, i) => (clicks[redirectsFrom + i].ms = Number(row.ms)));

  // Journey events, in batches as a tracker would send them.
  const attributed = spooled
    .filter((c) => c.agent >= 0)
    .slice(0, 60)
    .map((c) => ({ visitorId: c.click_id, link: c.link, at: c.ts }));
  const batches = journeyBatches({ seed: SEED, nowMs: NOW, linkIds, sessions: 11_000, visitors: 5_000, days: DAYS }, attributed);
  for (const b of batches) {
    const res = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      json: { events: b.events },
      headers: b.idempotencyKey ? { "x-idempotency-key": b.idempotencyKey } : {},
    });
    expect(res.status).toBe(202);
    expect(res.body.data.count).toBe(b.repeat ? 0 : b.events.length);
    if (!b.repeat) events.push(...b.events.map(ref.stored));
    if (b.flushAfter) await t.flush();
  }
  expect(events.length).toBeGreaterThanOrEqual(100_000);
}, 900_000);

afterAll(() => t.close());

function recordClick(c: SentClick) {
  const agent = CLICK_AGENTS[c.agent];
  clicks.push({
    link: linkIds[c.link],
    ms: c.ts,
    person: `${c.ip} ${c.ua}`,
    bot: c.agent < 0,
    country: CLICK_ADDRESSES.find((a) => a.ip === c.ip)!.country,
    // Bots are stored as desktop without browser or OS (the enrichment tests show it).
    device: agent?.device ?? "desktop",
    browser: agent?.browser ?? "",
    os: agent?.os ?? "",
    referrer: REFERRERS.find((x) => x.url === c.referrer)!.host,
  });
  if (c.click_id) clickIds.set(c.click_id, { link: linkIds[c.link], ms: c.ts });
}

const PERIODS = Object.keys(PERIOD_HOURS) as PeriodName[];
const FUNNELS = [
  ["page_view", "add_to_cart", "conversion"],
  ["https://shop.example/p/3", "signup", "purchase"],
  ["signup", "add_to_cart"],
  ["share", "video_play", "subscribe", "nobody-does-this"],
];
const DIMENSIONS = ["device", "country", "link", "name"] as const;

/** Every report, as the API answers it. */
async function readReports() {
  const out: Record<string, unknown> = {};
  const [l0, l1, l2] = linkIds;
  for (const link of linkIds)
    for (const period of PERIODS) out[`summary ${link} ${period}`] = (await api(`/journey/links/${link}/summary?period=${period}`)).data;
  const allPages = async (path: string, limit: number, maxPages = Infinity) => {
    const items: unknown[] = [];
    for (let page = 1; ; page++) {
      const res = await api(`${path}${path.includes("?") ? "&" : "?"}limit=${limit}&page=${page}`);
      items.push(...res.data);
      if (page >= res.meta.total_pages || page >= maxPages) return { items, total: res.meta.total };
    }
  };
  out[`sessions ${l0} 7d`] = await allPages(`/journey/links/${l0}/sessions?period=7d`, 100);
  out[`sessions ${l2} 90d`] = await allPages(`/journey/links/${l2}/sessions?period=90d`, 100);
  // One session per page: the newest-first path for the first pages.
  out[`sessions ${l0} 24h by one`] = (await allPages(`/journey/links/${l0}/sessions?period=24h`, 1, 12)).items;
  for (const visitor of ["visitor-0-x", "visitor-1-y", "visitor-7-y"])
    out[`sessions ${l0} 90d ${visitor}`] = await allPages(`/journey/links/${l0}/sessions?period=90d&visitor_id=${visitor}`, 100);
  const withoutIds = (x: { items: { id: string }[]; total: number }) => ({
    total: x.total,
    ids: new Set(x.items.map((e) => e.id)).size,
    ordered: x.items.every(
      (e, i) =>
        i === 0 || (x.items[i - 1] as unknown as { timestamp: string }).timestamp >= (e as unknown as { timestamp: string }).timestamp,
    ),
    items: x.items.map(({ id, ...rest }) => rest).sort(byJson),
  });
  out[`events ${l2} 30d`] = withoutIds((await allPages(`/journey/links/${l2}/events?period=30d`, 200)) as never);
  out[`events ${l0} 24h`] = withoutIds((await allPages(`/journey/links/${l0}/events?period=24h`, 200)) as never);
  out[`events ${l1} 30d conversion`] = withoutIds(
    (await allPages(`/journey/links/${l1}/events?period=30d&event_type=conversion`, 200)) as never,
  );
  for (const steps of FUNNELS)
    out[`funnel ${l0} 30d ${steps}`] = (
      await api(`/journey/links/${l0}/funnel?period=30d&steps=${encodeURIComponent(steps.join(","))}`)
    ).data;
  out[`funnel ${l1} 90d`] = (await api(`/journey/links/${l1}/funnel?period=90d&steps=${FUNNELS[0].join(",")}`)).data;
  out[`funnel ${l2} 24h`] = (await api(`/journey/links/${l2}/funnel?period=24h&steps=${FUNNELS[1].join(",")}`)).data;
  for (const period of ["7d", "30d", "90d"]) out[`conversions ${period}`] = (await api(`/conversions/summary?period=${period}`)).data;
  out[`conversions ${l1} 30d`] = (await api(`/conversions/summary?link_id=${l1}`)).data;
  out["conversions domain 90d"] = (await api(`/conversions/summary?period=90d&domain_id=${domainId}`)).data;
  out["conversions timeseries 30d"] = (await api("/conversions/timeseries?interval=day")).data;
  for (const d of DIMENSIONS) out[`breakdown ${d} 90d`] = (await api(`/conversions/breakdown?period=90d&dimension=${d}`)).data;
  out["time-to-convert 90d"] = (await api("/conversions/time-to-convert?period=90d")).data;
  out[`time-to-convert ${l0} 30d`] = (await api(`/conversions/time-to-convert?link_id=${l0}`)).data;
  for (const days of [1, 7, 30, 90]) {
    const s = (await api(`/analytics/summary?days=${days}`)).data.analytics;
    out[`clicks summary ${days}`] = pick(s, ["total_clicks", "unique_visitors", "last_click_at", "active_links"]);
  }
  out["clicks timeseries 90"] = (await api("/analytics/timeseries?days=90")).data.analytics;
  out["clicks hourly 90"] = (await api("/analytics/hourly?days=90")).data.analytics;
  out["clicks geo 90"] = (await api("/analytics/geo?days=90")).data.analytics;
  out["clicks referrers 90"] = (await api("/analytics/referrers?days=90")).data.analytics;
  out["clicks devices 90"] = (await api("/analytics/devices?days=90")).data.analytics;
  for (const link of linkIds.slice(0, 2))
    out[`link stats ${link}`] = pick((await api(`/links/${link}/stats`)).data, [
      "total_clicks",
      "human_clicks",
      "bot_clicks",
      "unique_visitors",
      "conversion_rate",
    ]);
  return out;
}

const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

/** The same reports computed from what was sent, for the periods as of `now`. */
function expectedReports(now: number) {
  const out: Record<string, unknown> = {};
  const [l0, l1, l2] = linkIds;
  const of = (link: string) => events.filter((e) => e.link_id === link);
  const from = (p: PeriodName) => periodFrom(p, now);
  for (const link of linkIds)
    for (const period of PERIODS) out[`summary ${link} ${period}`] = { ...ref.journeySummary(of(link), from(period)), imported: null };
  const sessions = (link: string, p: PeriodName, visitor?: string) => {
    const items = ref.sessionsList(of(link), from(p), visitor);
    return { items, total: items.length };
  };
  out[`sessions ${l0} 7d`] = sessions(l0, "7d");
  out[`sessions ${l2} 90d`] = sessions(l2, "90d");
  out[`sessions ${l0} 24h by one`] = sessions(l0, "24h").items.slice(0, 12);
  for (const visitor of ["visitor-0-x", "visitor-1-y", "visitor-7-y"]) out[`sessions ${l0} 90d ${visitor}`] = sessions(l0, "90d", visitor);
  const listed = (link: string, p: PeriodName, type?: string) => {
    const items = of(link)
      .filter((e) => e.ms >= from(p) && (type === undefined || e.event_type === type))
      .map(ref.listedEvent);
    return { total: items.length, ids: items.length, ordered: true, items: items.sort(byJson) };
  };
  out[`events ${l2} 30d`] = listed(l2, "30d");
  out[`events ${l0} 24h`] = listed(l0, "24h");
  out[`events ${l1} 30d conversion`] = listed(l1, "30d", "conversion");
  for (const steps of FUNNELS) out[`funnel ${l0} 30d ${steps}`] = ref.funnel(of(l0), from("30d"), steps, 30 * DAY);
  out[`funnel ${l1} 90d`] = ref.funnel(of(l1), from("90d"), FUNNELS[0], 90 * DAY);
  out[`funnel ${l2} 24h`] = ref.funnel(of(l2), from("24h"), FUNNELS[1], DAY);
  for (const period of ["7d", "30d", "90d"] as const) out[`conversions ${period}`] = ref.conversionSummary(events, from(period));
  out[`conversions ${l1} 30d`] = ref.conversionSummary(of(l1), from("30d"));
  out["conversions domain 90d"] = ref.conversionSummary(of(l2), from("90d"));
  out["conversions timeseries 30d"] = ref.conversionTimeseriesByDay(events, from("30d"), now);
  for (const d of DIMENSIONS) out[`breakdown ${d} 90d`] = ref.conversionBreakdown(events, from("90d"), d);
  out["time-to-convert 90d"] = ref.timeToConvert(events, from("90d"), clickIds);
  out[`time-to-convert ${l0} 30d`] = ref.timeToConvert(of(l0), from("30d"), clickIds);
  for (const days of [1, 7, 30, 90]) out[`clicks summary ${days}`] = ref.clickSummary(ref.clicksInRange(clicks, days, now));
  const ninety = ref.clicksInRange(clicks, 90, now);
  out["clicks timeseries 90"] = ref.clickTimeseries(ninety, 90, now);
  out["clicks hourly 90"] = ref.clickHours(ninety);
  out["clicks geo 90"] = ref
    .clicksBy(ninety, (c) => c.country)
    .map((x) => ({ country_code: x.label, clicks: x.clicks, unique_visitors: x.unique_visitors }));
  out["clicks referrers 90"] = ref
    .clicksBy(ninety, (c) => c.referrer)
    .map((x) => ({ referrer: x.label, clicks: x.clicks, unique_visitors: x.unique_visitors }));
  out["clicks devices 90"] = ref
    .clicksBy(ninety, (c) => `${c.device}\t${c.browser}\t${c.os}`)
    .map((x) => {
      const [device_type, browser, os] = x.label.split("\t");
      return { device_type, browser, os, clicks: x.clicks };
    })
    .sort((a, b) => b.clicks - a.clicks || cmp(a.device_type, b.device_type) || cmp(a.browser, b.browser) || cmp(a.os, b.os));
  for (const link of linkIds.slice(0, 2)) {
    const s = ref.linkClickStats(clicks, link);
    const converters = new Set(
      of(link)
        .filter((e) => e.event_type === "conversion")
        .map((e) => e.visitor_id),
    ).size;
    out[`link stats ${link}`] = {
      ...s,
      conversion_rate: s.unique_visitors > 0 ? Math.round((converters / s.unique_visitors) * 100 * 100) / 100 : 0,
    };
  }
  return out;
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Reads every report within one UTC hour (periods move on the hour), retrying once across a boundary. */
async function readWithinOneHour() {
  for (let attempt = 0; ; attempt++) {
    const before = Date.now();
    const reports = await readReports();
    const after = Date.now();
    if (Math.floor(before / 3_600_000) === Math.floor(after / 3_600_000) || attempt === 1) return { reports, now: before };
  }
}

function expectAll(actual: Record<string, unknown>, expected: Record<string, unknown>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const k of Object.keys(expected)) {
    expect({ [k]: actual[k] }).toEqual({ [k]: expected[k] });
  }
}

describe("a seeded workload of 100,000+ journey events and 2,000 clicks", () => {
  let unmerged: Record<string, unknown>;

  test("every report matches the figures computed from what was sent, with every table unmerged", async () => {
    const ch = t.runtime.deps.ch;
    const [{ parts }] = await ch.query<{ parts: string }>(
      "SELECT max(c) AS parts FROM (SELECT count() AS c FROM system.parts WHERE database = {db:String} AND active GROUP BY table)",
      { db: ch.database },
    );
    expect(Number(parts)).toBeGreaterThan(10);
    const { reports, now } = await readWithinOneHour();
    unmerged = reports;
    expectAll(reports, expectedReports(now));
    // The reports noted what the journey job should store (closed days' visitor counts, funnel states);
    // after its round they read that, and answer the same.
    await t.runtime.jobs.journey.runOnce();
    const stored = await readWithinOneHour();
    expectAll(stored.reports, expectedReports(stored.now));
  }, 600_000);

  test("after OPTIMIZE … FINAL of every table, every report gives the same answer", async () => {
    const ch = t.runtime.deps.ch;
    for (const table of await mergeTreeTables()) {
      await ch.command(`SYSTEM START MERGES ${table}`);
      await ch.command(`OPTIMIZE TABLE ${table} FINAL`);
    }
    const { reports, now } = await readWithinOneHour();
    expectAll(reports, expectedReports(now));
    expect(reports).toEqual(unmerged);
  }, 600_000);
});

test("the workload has the awkward cases it is meant to have", async () => {
  const accepted = events.length;
  const sessionsAcrossStarts = PERIODS.map((p) => {
    const from = periodFrom(p, NOW);
    const bySession = new Map<string, number[]>();
    for (const e of events) if (e.session_id) bySession.set(e.session_id, [...(bySession.get(e.session_id) ?? []), e.ms]);
    return [...bySession.values()].filter((ms) => Math.min(...ms) < from && Math.max(...ms) >= from).length;
  });
  const ties = events.filter((e, i) => i > 0 && e.ms === events[i - 1].ms && e.page_url !== events[i - 1].page_url).length;
  const conversions = events.filter((e) => e.event_type === "conversion");
  expect(accepted).toBeGreaterThanOrEqual(100_000);
  expect(new Set(events.map((e) => e.visitor_id)).size).toBeGreaterThan(3_000);
  expect(sessionsAcrossStarts.every((n) => n > 20)).toBe(true);
  expect(ties).toBeGreaterThan(100);
  expect(conversions.length).toBeGreaterThan(800);
  expect(conversions.filter((e) => e.revenue_cents === undefined).length).toBeGreaterThan(300);
  expect(events.filter((e) => e.ms > NOW).length).toBeGreaterThan(0);
  expect(clicks.length).toBe(2000);
  // The count of rows stored is the count accepted: nothing lost or stored twice.
  const [{ n }] = await t.runtime.deps.ch.query<{ n: string }>(`SELECT count() AS n FROM ${t.runtime.deps.ch.table("journey_events")}`);
  expect(Number(n)).toBe(accepted);
  const [{ c }] = await t.runtime.deps.ch.query<{ c: string }>(`SELECT count() AS c FROM ${t.runtime.deps.ch.table("clicks")}`);
  expect(Number(c)).toBe(2000);
});
