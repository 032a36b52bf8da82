// Migration 0240 (click_days_touched) and the analytics job's incremental rounds, on a database that
// already holds clicks and stored visitor numbers, while an instance of the previous version keeps
// inserting (it knows nothing of the new table: the view on the raw clicks records its inserts anyway).
// Every figure equals the distinct hashes of the raw clicks throughout; after a round each recomputed
// day's latest numbers are the raw clicks'; a later round looks only at the days that received clicks
// since the last one (and the day after each).
import { beforeAll, expect, test } from "bun:test";
import { getClicksByCountry } from "../../server/analytics/queries/breakdowns";
import { getLinkClickStats } from "../../server/analytics/queries/link-stats";
import { getClickTimeseries, getClickTotals, getClicksByHour } from "../../server/analytics/queries/totals";
import type { ClickScope } from "../../server/analytics/model";
import { refreshVisitorDays, visitorDaysRefresher } from "../../server/analytics/visitor-days-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { until } from "../helpers/until";
import { DAY_MS, isoDay } from "./helpers";

let ch: Clickhouse;
const accounts = [crypto.randomUUID(), crypto.randomUUID()];
const links = [crypto.randomUUID(), crypto.randomUUID()];
const midnight = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS;

const migrated = useClickhouseBefore(240);
beforeAll(() => {
  ch = migrated.ch;
});

/** `n` visitors of the day `ago` days back, from `minute` past midnight; `carriedFrom`: the day before's hashes. */
const clicks = (ago: number, n: number, minute: number, o: { from?: number; carriedFrom?: boolean; account?: string } = {}) =>
  Array.from({ length: n }, (_, i) => ({
    click_id: crypto.randomUUID(),
    timestamp: midnight(ago) + minute * 60_000 + i * 1000,
    account_id: o.account ?? accounts[0],
    link_id: links[i % 2],
    visitor_hash: String((ago + (o.carriedFrom ? 1 : 0)) * 1_000_000 + (o.from ?? 0) + i),
    is_bot: i % 11 === 0 ? 1 : 0,
    country_code: ["US", "DE", "FR"][i % 3],
  }));
const insert = (rows: ReturnType<typeof clicks>) => ch.insert("clicks", rows);

const scope = (from: number, to: number): ClickScope => ({
  accountId: accounts[0],
  range: { start: isoDay(midnight(from)), end: isoDay(midnight(to)) },
  botFilter: "real",
});
async function raw(where: string, group = "''") {
  const rows = await ch.query<{ g: string; n: string }>(
    `SELECT toString(${group}) AS g, uniqExact(visitor_hash) AS n FROM ${ch.table("clicks")}
     WHERE account_id = {account:UUID} AND is_bot = 0 AND ${where} GROUP BY g ORDER BY g`,
    { account: accounts[0] },
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
    expect((await getLinkClickStats(ch, { accountId: accounts[0], linkId: link })).unique_visitors).toBe(
      (await raw(`link_id = toUUID('${link}')`))[""],
    );
}

/**
 * The stored visitors of a day (report total, people, every domain: the latest version of its stored
 * rows in clicks_daily, migration 0270), whether it has any, and the raw count.
 */
async function storedDay(ago: number) {
  const [row] = await ch.query<{ v: string; n: string }>(
    `SELECT tupleElement(max(stored), 4) AS v, count() AS n FROM ${ch.table("clicks_daily")}
     WHERE account_id = {account:UUID} AND is_bot = 10 AND domain = '*' AND day = {day:Date}`,
    { account: accounts[0], day: isoDay(midnight(ago)) },
  );
  return { visitors: Number(row?.v ?? 0), stored: Number(row?.n ?? 0) > 0, raw: (await raw(days(ago, ago)))[""] ?? 0 };
}

test("0240 while the previous version keeps writing; the job's rounds then recompute only the days that received clicks", async () => {
  for (let ago = 5; ago >= 1; ago--) {
    await insert(clicks(ago, 600, 8 * 60));
    await insert(clicks(ago, 200, 23 * 60 + 40, { from: 5000 }));
    if (ago < 5) await insert(clicks(ago, 100, 10, { from: 5000, carriedFrom: true }));
  }
  // The previous version's job has stored every closed day (where the current job stores them: migration 0270's column).
  await migrated.apply(270);
  expect(await refreshVisitorDays(ch)).toBeGreaterThan(0);
  let writing = true;
  const oldInstance = (async () => {
    for (let round = 0; writing || round < 3; round++) {
      await insert(clicks(2, 30, 9 * 60, { from: 20_000 + round * 100 }));
      await insert(clicks(0, 20, 5, { from: 30_000 + round * 100 }));
      await Bun.sleep(5);
    }
  })();
  await migrated.apply(240);
  writing = false;
  await oldInstance;
  await expectExact();

  // The new version's job: a first round over every day recomputes the one the old instance wrote into.
  const refresh = visitorDaysRefresher(ch);
  expect(await refresh()).toBeGreaterThan(0);
  const d2 = await storedDay(2);
  expect(d2).toEqual({ visitors: d2.raw, stored: true, raw: d2.raw });
  await expectExact();

  // A late click into day 3 (a visitor carried from day 4's evening among them): the next round stores
  // day 3 again, and the day after it (its overlap).
  await insert([...clicks(3, 15, 14 * 60, { from: 40_000 }), ...clicks(3, 5, 12, { from: 5000, carriedFrom: true })]);
  const before3 = await storedDay(3);
  expect(before3.visitors).not.toBe(before3.raw);
  await expectExact();
  expect(await refresh()).toBeGreaterThan(0);
  for (const ago of [3, 2]) {
    const d = await storedDay(ago);
    expect(d).toEqual({ visitors: d.raw, stored: true, raw: d.raw });
  }
  await expectExact();
  // Nothing new since: the round stores nothing.
  expect(await refresh()).toBe(0);
}, 120_000);

test("a round after the last one looks at the days that received clicks since, not at the others", async () => {
  // Day 5's stored numbers go missing; no click arrives for it.
  await ch.command(`DELETE FROM ${ch.table("clicks_daily")} WHERE account_id = {account:UUID} AND day = {day:Date} AND is_bot >= 10`, {
    account: accounts[0],
    day: isoDay(midnight(5)),
  });
  expect((await storedDay(5)).stored).toBe(false);
  await expectExact(); // counted from the raw clicks meanwhile
  // Once ClickHouse's clock is in a later minute than every insert so far (the table's stamps are
  // minutes), another account's late click arrives.
  const [{ last }] = await ch.query<{ last: string }>(
    `SELECT toUnixTimestamp(max(touched_at)) AS last FROM ${ch.table("click_days_touched")}`,
  );
  await until(async () => {
    const [{ now }] = await ch.query<{ now: string }>("SELECT toUnixTimestamp(toStartOfMinute(now())) AS now");
    return Number(now) > Number(last);
  }, 90_000);
  await insert(clicks(4, 10, 9 * 60, { account: accounts[1] }));
  // A round whose last one began a second ago (beside its margin for inserts in flight): only the other account's day 4 (and 3).
  const now = Date.now();
  const margin = 10 * 60_000;
  expect(await refreshVisitorDays(ch, now, undefined, now + margin - 1_000)).toBeGreaterThan(0);
  expect((await storedDay(5)).stored).toBe(false);
  const [{ n }] = await ch.query<{ n: string }>(
    `SELECT count() AS n FROM ${ch.table("clicks_daily")} WHERE account_id = {account:UUID} AND day = {day:Date} AND is_bot >= 10`,
    { account: accounts[1], day: isoDay(midnight(4)) },
  );
  expect(Number(n)).toBeGreaterThan(0);
  // A first round (a new process) looks at every day again.
  expect(await visitorDaysRefresher(ch)()).toBeGreaterThan(0);
  const d5 = await storedDay(5);
  expect(d5).toEqual({ visitors: d5.raw, stored: true, raw: d5.raw });
  await expectExact();
}, 180_000);
