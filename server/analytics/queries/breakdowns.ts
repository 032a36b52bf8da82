// Clicks by country, by device/browser/OS and by referrer host, from the daily aggregates (from the raw
// clicks when filtered by source, which those aggregates do not hold).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickhouseTable } from "../../storage/clickhouse/tables";
import type { ClickScope, DeviceRow, GeoRow, ReferrerRow } from "../model";
import { breakdownRows, dailyScope, num } from "./scope";
import { cellSelector, countCellVisitors } from "../visitor-days";

/** Long tails are cut: the top rows by clicks. */
const MAX_ROWS = 1000;

export async function getClicksByCountry(ch: Clickhouse, scope: ClickScope): Promise<GeoRow[]> {
  const rows = await topValues(ch, scope, "clicks_daily_geo", "country_code");
  return rows.map((r) => ({ country_code: r.value, clicks: r.clicks, unique_visitors: r.visitors }));
}

export async function getClicksByDevice(ch: Clickhouse, scope: ClickScope): Promise<DeviceRow[]> {
  const r = breakdownRows(ch, scope, "clicks_daily_devices");
  const rows = await ch.query(
    `SELECT device_type, browser, os, ${r.clicks} AS c
     FROM ${r.from} WHERE ${r.where}
     GROUP BY device_type, browser, os ORDER BY c DESC, device_type, browser, os LIMIT ${MAX_ROWS}`,
    r.params,
  );
  return rows.map((r) => ({ device_type: String(r.device_type), browser: String(r.browser), os: String(r.os), clicks: num(r.c) }));
}

export async function getClicksByReferrer(ch: Clickhouse, scope: ClickScope): Promise<ReferrerRow[]> {
  const rows = await topValues(ch, scope, "clicks_daily_referrers", "referrer");
  return rows.map((r) => ({ referrer: r.value, clicks: r.clicks, unique_visitors: r.visitors }));
}

/** The top values of one column (a fixed name, never user input) with their clicks and visitors. */
async function topValues(ch: Clickhouse, scope: ClickScope, aggregate: ClickhouseTable, column: "country_code" | "referrer") {
  const sel = cellSelector(scope, column === "country_code" ? "country" : "referrer");
  if (sel) {
    const { where, params } = dailyScope(scope);
    const { byKey } = await countCellVisitors(ch, sel, scope.range, {
      table: aggregate,
      columns: `day AS ld, toString(${column}) AS lk, clicks AS lc, 0 AS lx, 0 AS ly`,
      where,
      params,
    });
    return [...byKey]
      .sort((a, b) => b[1].clicks - a[1].clicks || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, MAX_ROWS)
      .map(([value, c]) => ({ value, clicks: c.clicks, visitors: c.visitors }));
  }
  const r = breakdownRows(ch, scope, aggregate);
  const rows = await ch.query(
    `SELECT ${column} AS value, ${r.clicks} AS c, ${r.visitors} AS v
     FROM ${r.from} WHERE ${r.where}
     GROUP BY ${column} ORDER BY c DESC, ${column} LIMIT ${MAX_ROWS}`,
    r.params,
  );
  return rows.map((r) => ({ value: String(r.value), clicks: num(r.c), visitors: num(r.v) }));
}
