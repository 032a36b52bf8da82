// Migration 0231 on a database that already holds clicks, while an instance of the previous version keeps
// inserting clicks (it knows nothing of click_visitor_days): the migration stores the closed days'
// numbers from the aggregates' visitor sets; the days the old instance wrote into meanwhile no longer
// match their stored clicks, so the reports count them from the raw clicks until the job recomputes them.
// Every figure equals the distinct hashes of the raw clicks: after the migration, after a re-run of it,
// after the job and after OPTIMIZE … FINAL.
import { beforeAll, expect, test } from "bun:test";
import { getClicksByCountry } from "../../server/analytics/queries/breakdowns";
import { getLinkClickStats } from "../../server/analytics/queries/link-stats";
import { getClickTimeseries, getClickTotals, getClicksByHour } from "../../server/analytics/queries/totals";
import type { ClickScope } from "../../server/analytics/model";
import { refreshVisitorDays } from "../../server/analytics/visitor-days-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { DAY_MS, isoDay } from "./helpers";

let ch: Clickhouse;
const account = crypto.randomUUID();
const links = [crypto.randomUUID(), crypto.randomUUID()];
const midnight = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS;

const migrated = useClickhouseBefore(231);
beforeAll(() => {
  ch = migrated.ch;
});

/**
 * `n` visitors of the day `ago` days back (hashes salted by the day, as the product makes them), each
 * clicking at `minute` past midnight (plus its index in seconds); `carriedFrom` makes them the previous
 * day's hashes, as the carry does just after midnight.
 */
const clicks = (ago: number, n: number, minute: number, o: { from?: number; carriedFrom?: boolean; cc?: string } = {}) =>
  Array.from({ length: n }, (_, i) => ({
    click_id: crypto.randomUUID(),
    timestamp: midnight(ago) + minute * 60_000 + i * 1000,
    account_id: account,
    link_id: links[i % 2],
    visitor_hash: String((ago + (o.carriedFrom ? 1 : 0)) * 1_000_000 + (o.from ?? 0) + i),
    is_bot: i % 11 === 0 ? 1 : 0,
    country_code: o.cc ?? ["US", "DE"][i % 2],
  }));
const insert = (rows: ReturnType<typeof clicks>) => ch.insert("clicks", rows);

const scope = (from: number, to: number): ClickScope => ({
  accountId: account,
  range: { start: isoDay(midnight(from)), end: isoDay(midnight(to)) },
  botFilter: "real",
});

async function raw(where: string, group = "''") {
  const rows = await ch.query<{ g: string; n: string }>(
    `SELECT toString(${group}) AS g, uniqExact(visitor_hash) AS n FROM ${ch.table("clicks")}
     WHERE account_id = {account:UUID} AND is_bot = 0 AND ${where} GROUP BY g ORDER BY g`,
    { account },
  );
  return Object.fromEntries(rows.map((r) => [r.g, Number(r.n)]));
}
const days = (from: number, to: number) => `toDate(timestamp) BETWEEN '${isoDay(midnight(from))}' AND '${isoDay(midnight(to))}'`;

async function expectExact() {
  for (const [from, to] of [
    [5, 0],
    [4, 1],
    [3, 2],
  ]) {
    const s = scope(from, to);
    expect((await getClickTotals(ch, s)).unique_visitors).toBe((await raw(days(from, to)))[""] ?? 0);
    expect(Object.fromEntries((await getClickTimeseries(ch, s)).map((d) => [d.date, d.unique_visitors]))).toEqual(
      await raw(days(from, to), "toDate(timestamp)"),
    );
    expect(Object.fromEntries((await getClicksByCountry(ch, s)).map((g) => [g.country_code, g.unique_visitors]))).toEqual(
      await raw(days(from, to), "country_code"),
    );
    expect(Object.fromEntries((await getClicksByHour(ch, s)).map((h) => [String(h.hour), h.unique_visitors]))).toEqual(
      await raw(days(from, to), "toHour(timestamp)"),
    );
  }
  for (const link of links)
    expect((await getLinkClickStats(ch, { accountId: account, linkId: link })).unique_visitors).toBe(
      (await raw(`link_id = toUUID('${link}')`))[""],
    );
}

/** click_visitor_days' numbers (0231), per report, bot, domain, key and day. */
const storedNumbers = async () =>
  (
    await ch.query<{ r: string }>(
      `SELECT concat(report, '|', toString(bot), '|', domain, '|', key, '|', toString(day), '|', toString(clicks), '|',
         toString(prev_clicks), '|', toString(visitors), '|', toString(overlap)) AS r
       FROM ${ch.table("click_visitor_days")} FINAL ORDER BY r`,
    )
  ).map((x) => x.r);

/** The same numbers as 0270 keeps them: the latest stored tuple of each cell's rows in its aggregate. */
async function movedNumbers() {
  const parts = [
    ["total", "clicks_daily", "day", "''"],
    ["hour", "clicks_hourly", "toDate(hour)", "toString(toHour(hour))"],
    ["country", "clicks_daily_geo", "day", "toString(country_code)"],
    ["link", "clicks_daily_links", "day", "toString(link_id)"],
    ["referrer", "clicks_daily_referrers", "day", "referrer"],
  ].map(
    ([report, table, day, key]) =>
      `SELECT concat('${report}', '|', toString(is_bot - 10), '|', toString(domain), '|', ${key}, '|', toString(${day}), '|',
         toString(tupleElement(max(stored), 2)), '|', toString(tupleElement(max(stored), 3)), '|',
         toString(tupleElement(max(stored), 4)), '|', toString(tupleElement(max(stored), 5))) AS r
       FROM ${ch.table(table as "clicks_daily")} WHERE is_bot >= 10 GROUP BY is_bot, domain, ${key}, ${day}`,
  );
  const rows = await ch.query<{ r: string }>(`SELECT r FROM (${parts.join(" UNION ALL ")}) ORDER BY r`);
  return rows.map((x) => x.r);
}

test("0231 stores the closed days while the previous version keeps writing; the counts stay exact throughout", async () => {
  // Before: five days, each with its own visitors, some carried just after midnight, some at midnight's edge.
  for (let ago = 5; ago >= 1; ago--) {
    await insert(clicks(ago, 1200, 8 * 60));
    await insert(clicks(ago, 300, 23 * 60 + 40, { from: 5000 }));
    if (ago < 5) await insert(clicks(ago, 150, 10, { from: 5000, carriedFrom: true })); // the previous evening's visitors
  }
  // The old instance goes on inserting while the migration runs: into closed days (late clicks) and today.
  let writing = true;
  const oldInstance = (async () => {
    for (let round = 0; writing || round < 3; round++) {
      await insert(clicks(2, 50, 9 * 60, { from: 20_000 + round * 100 }));
      await insert(clicks(0, 40, 5, { from: 30_000 + round * 100 }));
      await Bun.sleep(5);
    }
  })();
  await migrated.apply(231);
  writing = false;
  await oldInstance;
  const [{ n }] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("click_visitor_days")}`);
  expect(Number(n)).toBeGreaterThan(0);
  // 0270 moves them into the aggregates, where the current reports read them: the same numbers, cell by cell.
  await migrated.apply(270);
  expect(await movedNumbers()).toEqual(await storedNumbers());
  await expectExact();
  // A migration interrupted before it was recorded runs again on the next start: the numbers are replaced, not added.
  await migrated.apply(231);
  await migrated.apply(270);
  expect(await movedNumbers()).toEqual(await storedNumbers());
  await expectExact();
  // The old instance's next flush, into a day the migration has stored: counted before the job recomputes it.
  await insert(clicks(2, 30, 15 * 60, { from: 40_000 }));
  await expectExact();
  expect(await refreshVisitorDays(ch)).toBeGreaterThan(0);
  await expectExact();
  for (const table of ["clicks_daily", "clicks_hourly", "clicks_daily_links", "clicks_daily_geo", "click_visitor_days"] as const)
    await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  await expectExact();
  // The job found nothing stale left: every closed day's stored clicks are the aggregate's.
  expect(await refreshVisitorDays(ch)).toBe(0);
}, 120_000);
