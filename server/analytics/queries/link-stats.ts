// One link's lifetime click numbers (clicks_daily_links) and its converters (journey_events).
import type { Clickhouse } from "../../storage/clickhouse/client";
import { isoOrNull, num, VISITORS_IF } from "./scope";

export interface LinkClickStats {
  human_clicks: number;
  bot_clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
}

/** unique_visitors counts people: bot traffic is left out. */
export async function getLinkClickStats(ch: Clickhouse, a: { accountId: string; linkId: string }): Promise<LinkClickStats> {
  const [row] = await ch.query(
    `SELECT sumIf(clicks, is_bot = 0) AS human, sumIf(clicks, is_bot = 1) AS bot,
            ${VISITORS_IF("is_bot = 0")} AS visitors, toUnixTimestamp64Milli(max(last_click)) AS last_ms
     FROM ${ch.table("clicks_daily_links")} WHERE account_id = {account:UUID} AND link_id = {link:UUID}`,
    { account: a.accountId, link: a.linkId },
  );
  return {
    human_clicks: num(row?.human),
    bot_clicks: num(row?.bot),
    unique_visitors: num(row?.visitors),
    last_click_at: isoOrNull(row?.last_ms),
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
