// One link's lifetime click numbers (clicks_daily_links), its converters (journey_events) and its imported
// raw clicks (imported_clicks), in one statement.
import type { Clickhouse } from "../../storage/clickhouse/client";
import { isoOrNull } from "./scope";
import { extraPart } from "./visitor-days";
import { countCellVisitors } from "../visitor-days";
import { isoDay } from "../range";

export interface LinkClickStats {
  human_clicks: number;
  bot_clicks: number;
  unique_visitors: number;
  last_click_at: string | null;
  converters: number;
  /** Raw clicks imported for the link (imports' table, counted as imports/repository.ts counts them; 0 unless withImported). */
  imported: number;
}

/** Before any click: a link's lifetime as a range (the days before its first click add nothing). */
const LIFETIME_START = "2000-01-01";

/**
 * unique_visitors counts people: bot traffic is left out. Visitors: the link's cells (visitor-days.ts);
 * its converters (people with a conversion event on the link) in the same statement.
 */
export async function getLinkClickStats(
  ch: Clickhouse,
  a: { accountId: string; linkId: string; withImported?: boolean },
): Promise<LinkClickStats> {
  const params = { account: a.accountId, link: a.linkId };
  const scope = "account_id = {account:UUID} AND link_id = {link:UUID}";
  const converters = {
    sql: `${extraPart(4, "uniqExact(visitor_id)")} FROM ${ch.table("journey_events")} WHERE ${scope} AND event_type = 'conversion'`,
    params,
  };
  // The imported clicks are read here, not through imports/read.ts, to keep link stats one statement.
  const imported = {
    sql: `${extraPart(5, "uniqExact(source, click_key)")} FROM ${ch.table("imported_clicks")} WHERE ${scope}`,
    params,
  };
  const { byKey, extras } = await countCellVisitors(
    ch,
    { accountId: a.accountId, report: "link", bot: 0, domain: "*", key: a.linkId },
    { start: LIFETIME_START, end: isoDay(Date.now()) },
    {
      table: "clicks_daily_links",
      columns: `day AS ld, {cell:String} AS lk, if(is_bot = 0, clicks, 0) AS lc, toUnixTimestamp64Milli(last_click) AS lx,
                if(is_bot = 1, clicks, 0) AS ly`,
      where: `${scope} AND is_bot < 2`,
      params: { ...params, cell: a.linkId },
    },
    a.withImported ? [converters, imported] : [converters],
  );
  const cell = byKey.get(a.linkId);
  return {
    human_clicks: cell?.clicks ?? 0,
    bot_clicks: cell?.y ?? 0,
    unique_visitors: cell?.visitors ?? 0,
    last_click_at: isoOrNull(cell?.x ?? 0),
    converters: extras.find((e) => e.side === 4)?.a ?? 0,
    imported: extras.find((e) => e.side === 5)?.a ?? 0,
  };
}
