// Migration 0222 on a database that already holds clicks (counted by the uniqCombined(14) sketches of
// 0100 and 0221): after it, the reports count the visitors of the clicks stored before it and after it
// exactly, without counting any click twice, and running it again changes nothing.
import { beforeAll, expect, test } from "bun:test";
import { getClicksByCountry } from "../../server/analytics/queries/breakdowns";
import { getClickGroups } from "../../server/analytics/queries/groups";
import { getLinkClickStats } from "../../server/analytics/queries/link-stats";
import { getClickTimeseries, getClickTotals, getClicksByHour } from "../../server/analytics/queries/totals";
import type { ClickScope } from "../../server/analytics/model";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { DAY_MS, isoDay } from "./helpers";

let ch: Clickhouse;
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const noon = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS + 12 * 3_600_000;

const migrated = useClickhouseBefore(222);
beforeAll(() => {
  ch = migrated.ch;
});

/** `n` visitors (hashes from..from+n-1) clicking `ago` days back, at noon plus `i` seconds, as country `cc`. */
const clicks = (from: number, n: number, ago: number, cc: string) =>
  Array.from({ length: n }, (_, i) => ({
    click_id: crypto.randomUUID(),
    timestamp: noon(ago) + i * 1000,
    account_id: account,
    link_id: link,
    visitor_hash: String(1_000_000 + from + i),
    is_bot: 0,
    country_code: cc,
  }));
const insertClicks = (rows: ReturnType<typeof clicks>) => ch.insert("clicks", rows);
/** 0222, then 0231 and 0270 (the stored numbers of the days held so far, in the aggregates the current reports read). */
const apply0222 = async () => {
  await migrated.apply(222);
  await migrated.apply(231);
  await migrated.apply(270);
};

test("clicks stored before 0222 are counted exactly after it, with those stored after", async () => {
  // Before: 1,500 visitors two days ago, 1,200 yesterday (700 of them in a second batch, 300 seen in the first).
  await insertClicks(clicks(0, 1500, 2, "US"));
  await insertClicks(clicks(10_000, 800, 1, "DE"));
  await insertClicks(clicks(10_500, 700, 1, "DE"));
  await apply0222();
  // After: 400 more yesterday, 200 of them already counted before the migration.
  await insertClicks(clicks(10_000 + 1000, 400, 1, "DE"));
  const scope: ClickScope = { accountId: account, range: { start: isoDay(noon(2)), end: isoDay(noon(1)) }, botFilter: "real" };
  const expected = async () => {
    expect(await getClickTotals(ch, scope)).toMatchObject({ clicks: 1500 + 800 + 700 + 400, unique_visitors: 1500 + 1400 });
    expect((await getClickTimeseries(ch, scope)).map((d) => d.unique_visitors)).toEqual([1500, 1400]);
    expect(await getClicksByCountry(ch, scope)).toEqual([
      { country_code: "DE", clicks: 1900, unique_visitors: 1400 },
      { country_code: "US", clicks: 1500, unique_visitors: 1500 },
    ]);
    expect((await getClicksByHour(ch, scope)).reduce((n, h) => n + h.unique_visitors, 0)).toBe(2900);
    expect(await getLinkClickStats(ch, { accountId: account, linkId: link })).toMatchObject({ human_clicks: 3400, unique_visitors: 2900 });
    expect(await getClickGroups(ch, scope, "source", false)).toEqual([{ value: "link", clicks: 3400, unique_visitors: 2900 }]);
  };
  await expected();
  // A migration interrupted before it was recorded runs again on the next start: nothing counts twice.
  await apply0222();
  await expected();
  // And whatever ClickHouse has merged.
  for (const table of ["clicks_daily", "clicks_hourly", "clicks_daily_links", "clicks_daily_geo", "clicks_daily_targets"] as const)
    await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  await expected();
}, 60_000);
