// One link's lifetime click numbers (clicks_daily_links) and its converters (journey_events).
import type { Clickhouse } from "../../storage/clickhouse/client";
import { isoOrNull, num } from "./scope";
import { countCellVisitors } from "../visitor-days";
import { isoDay } from "../range";

export interface LinkClickStats {
  human_clicks: number;
  bot_clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
}

/** Before any click: a link's lifetime as a range (the days before its first click add nothing). */
const LIFETIME_START = "2000-01-01";

/** unique_visitors counts people: bot traffic is left out. Visitors: the link's cells (visitor-days.ts). */
export async function getLinkClickStats(ch: Clickhouse, a: { accountId: string; linkId: string }): Promise<LinkClickStats> {
  const params = { account: a.accountId, link: a.linkId };
  const scope = "account_id = {account:UUID} AND link_id = {link:UUID}";
  const { live, byKey } = await countCellVisitors(
    ch,
    { accountId: a.accountId, report: "link", bot: 0, domain: "*", key: a.linkId },
    { start: LIFETIME_START, end: isoDay(Date.now()) },
    {
      sql: `SELECT day AS ld, {cell:String} AS lk, sumIf(clicks, is_bot = 0) AS lc, sumIf(clicks, is_bot = 1) AS lx,
                   toUnixTimestamp64Milli(max(last_click)) AS ly
            FROM ${ch.table("clicks_daily_links")} WHERE ${scope} GROUP BY day`,
      params: { ...params, cell: a.linkId },
    },
  );
  return {
    human_clicks: live.reduce((n, r) => n + r.clicks, 0),
    bot_clicks: live.reduce((n, r) => n + r.x, 0),
    unique_visitors: byKey.get(a.linkId) ?? 0,
    last_click_at: isoOrNull(Math.max(0, ...live.map((r) => r.y))),
  };
}

/** Distinct visitors with a conversion event on the link. */
export async function countLinkConverters(ch: Clickhouse, a: { accountId: string; linkId: string }): Promise<number> {
  const [row] = await ch.query(
    `SELECT uniqExact(visitor_id) AS n FROM ${ch.table("journey_events")}
     WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND event_type = 'conversion'`,
    { account: a.accountId, link: a.linkId },
  );
  return num(row?.n);
}
