// Clicks by country, by device/browser/OS and by referrer host, from the daily aggregates (from the raw
// clicks when filtered by source, which those aggregates do not hold).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickScope, DeviceRow, GeoRow, ReferrerRow } from "../model";
import { breakdownRows, num } from "./scope";

/** Long tails are cut: the top rows by clicks. */
const MAX_ROWS = 1000;

export async function getClicksByCountry(ch: Clickhouse, scope: ClickScope): Promise<GeoRow[]> {
  const r = breakdownRows(ch, scope, "clicks_daily_geo");
  const rows = await ch.query(
    `SELECT country_code, ${r.clicks} AS c, ${r.visitors} AS v
     FROM ${r.from} WHERE ${r.where}
     GROUP BY country_code ORDER BY c DESC, country_code LIMIT ${MAX_ROWS}`,
    r.params,
  );
  return rows.map((r) => ({ country_code: String(r.country_code), clicks: num(r.c), unique_visitors: num(r.v) }));
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
  const r = breakdownRows(ch, scope, "clicks_daily_referrers");
  const rows = await ch.query(
    `SELECT referrer, ${r.clicks} AS c, ${r.visitors} AS v
     FROM ${r.from} WHERE ${r.where}
     GROUP BY referrer ORDER BY c DESC, referrer LIMIT ${MAX_ROWS}`,
    r.params,
  );
  return rows.map((r) => ({ referrer: String(r.referrer), clicks: num(r.c), unique_visitors: num(r.v) }));
}
