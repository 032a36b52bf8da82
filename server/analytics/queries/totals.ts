// Account-level click totals and days (clicks_daily), hours of the day (clicks_hourly), active links
// (clicks_daily_links).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickScope, HourlyRow } from "../model";
import { breakdownRows, dailyScope, dailyTable, hourlyScope, isoOrNull, num, VISITORS } from "./scope";
import { cellSelector, countCellVisitors } from "../visitor-days";
import type { CellSelector } from "./visitor-days";

export interface ClickTotals {
  clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
}

export async function getClickTotals(ch: Clickhouse, scope: ClickScope): Promise<ClickTotals> {
  const sel = cellSelector(scope, "total");
  if (sel) {
    const days = await dailyVisitors(ch, scope, sel);
    const clicks = days.rows.reduce((n, r) => n + r.clicks, 0);
    const lastMs = Math.max(0, ...days.rows.map((r) => r.lastMs));
    return { clicks, unique_visitors: days.visitors.byKey.get(sel.key ?? "") ?? 0, last_click_at: isoOrNull(lastMs) };
  }
  const { where, params } = dailyScope(scope);
  const [row] = await ch.query(
    `SELECT sum(clicks) AS clicks, ${VISITORS} AS unique_visitors, toUnixTimestamp64Milli(max(last_click)) AS last_ms
     FROM ${dailyTable(ch, scope, "clicks_daily")} WHERE ${where}`,
    params,
  );
  return { clicks: num(row?.clicks), unique_visitors: num(row?.unique_visitors), last_click_at: isoOrNull(row?.last_ms) };
}

/** The scope's clicks per day (clicks_daily, or one link's rows of clicks_daily_links) and its visitors (visitor-days.ts). */
async function dailyVisitors(ch: Clickhouse, scope: ClickScope, sel: CellSelector) {
  const { where, params } = dailyScope(scope);
  const table = ch.table(sel.report === "link" ? "clicks_daily_links" : "clicks_daily");
  const visitors = await countCellVisitors(ch, sel, scope.range, {
    sql: `SELECT day AS ld, {cell:String} AS lk, sum(clicks) AS lc, toUnixTimestamp64Milli(max(last_click)) AS lx, 0 AS ly
          FROM ${table} WHERE ${where} GROUP BY day`,
    params: { ...params, cell: sel.key ?? "" },
  });
  const rows = visitors.live.map((r) => ({ day: r.day, clicks: r.clicks, lastMs: r.x })).sort((a, b) => (a.day < b.day ? -1 : 1));
  return { rows, visitors };
}

export interface DailyClicks {
  date: string;
  clicks: number;
  unique_visitors: number;
}

/** Days with clicks only; callers fill the gaps. Without `withVisitors`, unique_visitors is 0 (its sets are not read). */
export async function getClickTimeseries(ch: Clickhouse, scope: ClickScope, withVisitors = true): Promise<DailyClicks[]> {
  const sel = withVisitors ? cellSelector(scope, "total") : undefined;
  if (sel) {
    const days = await dailyVisitors(ch, scope, sel);
    return days.rows.map((r) => ({ date: r.day, clicks: r.clicks, unique_visitors: days.visitors.byDay.get(r.day) ?? 0 }));
  }
  const { where, params } = dailyScope(scope);
  const rows = await ch.query(
    `SELECT toString(day) AS date, sum(clicks) AS clicks, ${withVisitors ? VISITORS : "0"} AS unique_visitors
     FROM ${dailyTable(ch, scope, "clicks_daily")} WHERE ${where} GROUP BY date ORDER BY date`,
    params,
  );
  return rows.map((r) => ({ date: String(r.date), clicks: num(r.clicks), unique_visitors: num(r.unique_visitors) }));
}

/** Hours of the day (UTC) with clicks only; callers fill the gaps. */
export async function getClicksByHour(ch: Clickhouse, scope: ClickScope): Promise<HourlyRow[]> {
  const sel = cellSelector(scope, "hour");
  if (sel) {
    const { where, params } = hourlyScope(scope);
    const { live, byKey } = await countCellVisitors(ch, sel, scope.range, {
      sql: `SELECT toDate(hour) AS ld, toString(toHour(hour)) AS lk, sum(clicks) AS lc, 0 AS lx, 0 AS ly
            FROM ${ch.table("clicks_hourly")} WHERE ${where} GROUP BY ld, lk`,
      params,
    });
    const clicks = new Map<number, number>();
    for (const c of live) clicks.set(Number(c.key), (clicks.get(Number(c.key)) ?? 0) + c.clicks);
    return [...clicks].sort((a, b) => a[0] - b[0]).map(([hour, n]) => ({ hour, clicks: n, unique_visitors: byKey.get(String(hour)) ?? 0 }));
  }
  const r = breakdownRows(ch, scope, "clicks_hourly");
  const rows = await ch.query(
    `SELECT toHour(${r.hour}) AS h, ${r.clicks} AS clicks, ${r.visitors} AS unique_visitors
     FROM ${r.from} WHERE ${r.where} GROUP BY h ORDER BY h`,
    r.params,
  );
  return rows.map((r) => ({ hour: num(r.h), clicks: num(r.clicks), unique_visitors: num(r.unique_visitors) }));
}

/** Every click of the account per day since `from` (bots included, every domain): usage and cutoff. */
export async function getAccountDailyClicks(ch: Clickhouse, a: { accountId: string; from: string }): Promise<Map<string, number>> {
  const rows = await ch.query(
    `SELECT toString(day) AS date, sum(clicks) AS clicks
     FROM ${ch.table("clicks_daily")} WHERE account_id = {account:UUID} AND day >= {from:Date} GROUP BY date`,
    { account: a.accountId, from: a.from },
  );
  return new Map(rows.map((r) => [String(r.date), num(r.clicks)]));
}

/** Links with at least one click in the scope. */
export async function countActiveLinks(ch: Clickhouse, scope: ClickScope): Promise<number> {
  const { where, params } = dailyScope(scope);
  const [row] = await ch.query(`SELECT uniqExact(link_id) AS n FROM ${dailyTable(ch, scope, "clicks_daily_links")} WHERE ${where}`, params);
  return num(row?.n);
}
