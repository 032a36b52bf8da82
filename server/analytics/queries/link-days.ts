// Clicks per link and day (clicks_daily_links): the links list's clicks column and its sparkline.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickScope } from "../model";
import { dailyScope, num } from "./scope";

/** Days with clicks only, per link of the scope's linkIds; callers fill the gaps. */
export async function getLinkDailyClicks(ch: Clickhouse, scope: ClickScope): Promise<{ link_id: string; date: string; clicks: number }[]> {
  const { where, params } = dailyScope(scope);
  const rows = await ch.query(
    `SELECT toString(link_id) AS link, toString(day) AS date, sum(clicks) AS clicks
     FROM ${ch.table("clicks_daily_links")} WHERE ${where} GROUP BY link, date`,
    params,
  );
  return rows.map((r) => ({ link_id: String(r.link), date: String(r.date), clicks: num(r.clicks) }));
}

/** People's clicks per link of the account since `since` (a UTC date): the links list's clicks sort. */
export async function getAccountLinkClicks(ch: Clickhouse, a: { accountId: string; since: string }): Promise<Map<string, number>> {
  const rows = await ch.query(
    `SELECT toString(link_id) AS link, sum(clicks) AS clicks
     FROM ${ch.table("clicks_daily_links")}
     WHERE account_id = {account:UUID} AND day >= {since:Date} AND is_bot = 0 GROUP BY link`,
    { account: a.accountId, since: a.since },
  );
  return new Map(rows.map((r) => [String(r.link), num(r.clicks)]));
}
