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

/** unique_visitors counts people: bot traffic is left out. Visitors: the link's cells (visitor-days.ts). */
export async function getLinkClickStats(ch: Clickhouse, a: { accountId: string; linkId: string }): Promise<LinkClickStats> {
  const rows = await ch.query(
    `SELECT toString(day) AS d, sumIf(clicks, is_bot = 0) AS human, sumIf(clicks, is_bot = 1) AS bot,
            toUnixTimestamp64Milli(max(last_click)) AS last_ms
     FROM ${ch.table("clicks_daily_links")} WHERE account_id = {account:UUID} AND link_id = {link:UUID} GROUP BY d ORDER BY d`,
    { account: a.accountId, linkId: a.linkId, link: a.linkId },
  );
  const days = rows.map((r) => ({ day: String(r.d), key: a.linkId, clicks: num(r.human) }));
  const start = days.find((d) => d.clicks > 0)?.day;
  const visitors = start
    ? await countCellVisitors(
        ch,
        { accountId: a.accountId, report: "link", bot: 0, domain: "*", key: a.linkId },
        { start, end: isoDay(Date.now()) },
        Promise.resolve(days),
      )
    : undefined;
  return {
    human_clicks: rows.reduce((n, r) => n + num(r.human), 0),
    bot_clicks: rows.reduce((n, r) => n + num(r.bot), 0),
    unique_visitors: visitors?.byKey.get(a.linkId) ?? 0,
    last_click_at: isoOrNull(Math.max(0, ...rows.map((r) => num(r.last_ms)))),
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
