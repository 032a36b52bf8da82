// Account-level click totals and days (clicks_daily), hours of the day (clicks_hourly), active links
// (clicks_daily_links).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickScope, HourlyRow } from "../model";
import { breakdownRows, dailyScope, dailyTable, hourlyScope, isoOrNull, num, VISITORS } from "./scope";
import { cellSelector, countCellVisitors } from "../visitor-days";
import { type CellSelector, type ExtraQuery, extraPart } from "./visitor-days";

export interface ClickTotals {
  clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
}

export async function getClickTotals(ch: Clickhouse, scope: ClickScope): Promise<ClickTotals> {
  const sel = cellSelector(scope, "total");
  if (sel) {
    const { byKey } = await dailyVisitors(ch, scope, sel);
    const cell = byKey.get(sel.key ?? "");
    return { clicks: cell?.clicks ?? 0, unique_visitors: cell?.visitors ?? 0, last_click_at: isoOrNull(cell?.x ?? 0) };
  }
  const { where, params } = dailyScope(scope);
  const [row] = await ch.query(
    `SELECT sum(clicks) AS clicks, ${VISITORS} AS unique_visitors, toUnixTimestamp64Milli(max(last_click)) AS last_ms
     FROM ${dailyTable(ch, scope, "clicks_daily")} WHERE ${where}`,
    params,
  );
  return { clicks: num(row?.clicks), unique_visitors: num(row?.unique_visitors), last_click_at: isoOrNull(row?.last_ms) };
}

/**
 * The scope's clicks and visitors per day and in all (clicks_daily, or one link's rows of
 * clicks_daily_links; visitor-days.ts), with the extra parts' rows in the same statement.
 */
function dailyVisitors(ch: Clickhouse, scope: ClickScope, sel: CellSelector, extras: ExtraQuery[] = []) {
  const { where, params } = dailyScope(scope);
  return countCellVisitors(
    ch,
    sel,
    scope.range,
    {
      table: sel.report === "link" ? "clicks_daily_links" : "clicks_daily",
      columns: "day AS ld, {cell:String} AS lk, clicks AS lc, toUnixTimestamp64Milli(last_click) AS lx, 0 AS ly",
      where,
      params: { ...params, cell: sel.key ?? "" },
    },
    extras,
  );
}

export interface SummaryClicks {
  totals: ClickTotals;
  activeLinks: number;
  /** Clicks per day of the range's days (the summary's today and yesterday). */
  clicksOn: (day: string) => number;
}

/**
 * The summary's click numbers: totals, active links and clicks per day, in one statement when the scope's
 * visitors are stored per day; undefined otherwise (the caller reads them one by one).
 */
export async function getSummaryClicks(ch: Clickhouse, scope: ClickScope): Promise<SummaryClicks | undefined> {
  const sel = cellSelector(scope, "total");
  if (!sel) return undefined;
  const { where, params } = dailyScope(scope);
  const active = {
    sql: `${extraPart(4, "uniqExact(link_id)")} FROM ${dailyTable(ch, scope, "clicks_daily_links")} WHERE ${where}`,
    params,
  };
  // One link (report "link"): active when it has clicks in the scope, which its own read tells.
  const oneLink = sel.report === "link";
  const { byKey, byDay, extras } = await dailyVisitors(ch, scope, sel, oneLink ? [] : [active]);
  const cell = byKey.get(sel.key ?? "");
  return {
    totals: { clicks: cell?.clicks ?? 0, unique_visitors: cell?.visitors ?? 0, last_click_at: isoOrNull(cell?.x ?? 0) },
    activeLinks: oneLink ? Number((cell?.clicks ?? 0) > 0) : (extras.find((e) => e.side === 4)?.a ?? 0),
    clicksOn: (day) => byDay.get(day)?.clicks ?? 0,
  };
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
    const { byDay } = await dailyVisitors(ch, scope, sel);
    return [...byDay].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([date, d]) => ({ date, clicks: d.clicks, unique_visitors: d.visitors }));
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
    const { byKey } = await countCellVisitors(ch, sel, scope.range, {
      table: "clicks_hourly",
      columns: "toDate(hour) AS ld, toString(toHour(hour)) AS lk, clicks AS lc, 0 AS lx, 0 AS ly",
      where,
      params,
    });
    return [...byKey]
      .map(([hour, h]) => ({ hour: Number(hour), clicks: h.clicks, unique_visitors: h.visitors }))
      .sort((a, b) => a.hour - b.hour);
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
     FROM ${ch.table("clicks_daily")} WHERE account_id = {account:UUID} AND day >= {from:Date} AND is_bot < 2 GROUP BY date`,
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
