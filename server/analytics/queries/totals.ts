// Account-level click totals and days (clicks_daily), hours of the day (clicks_hourly), active links
// (clicks_daily_links).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickScope, HourlyRow } from "../model";
import { breakdownRows, dailyScope, dailyTable, isoOrNull, num, VISITORS } from "./scope";

export interface ClickTotals {
  clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
}

export async function getClickTotals(ch: Clickhouse, scope: ClickScope): Promise<ClickTotals> {
  const { where, params } = dailyScope(scope);
  const [row] = await ch.query(
    `SELECT sum(clicks) AS clicks, ${VISITORS} AS unique_visitors, toUnixTimestamp64Milli(max(last_click)) AS last_ms
     FROM ${dailyTable(ch, scope, "clicks_daily")} WHERE ${where}`,
    params,
  );
  return { clicks: num(row?.clicks), unique_visitors: num(row?.unique_visitors), last_click_at: isoOrNull(row?.last_ms) };
}

export interface DailyClicks {
  date: string;
  clicks: number;
  unique_visitors: number;
}

/** Days with clicks only; callers fill the gaps. Without `withVisitors`, unique_visitors is 0 (its sets are not read). */
export async function getClickTimeseries(ch: Clickhouse, scope: ClickScope, withVisitors = true): Promise<DailyClicks[]> {
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
