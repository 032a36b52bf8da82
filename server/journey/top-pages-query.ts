// The account's most viewed pages over whole UTC days, across its links: the daily top values
// (migration 0206, fed from journey_tops_hourly) of kind `page` (page views' page_url). The mailed
// reports (server/alerts/) read it through read.ts.
import type { Clickhouse } from "../storage/clickhouse/client";

export interface TopPage {
  url: string;
  views: number;
}

/** The `limit` most viewed page URLs of the account on the days [start, end) (YYYY-MM-DD, UTC). */
export async function getAccountTopPages(
  ch: Clickhouse,
  q: { accountId: string; start: string; end: string; limit: number },
): Promise<TopPage[]> {
  const rows = await ch.query<{ value: string; n: string }>(
    `
    SELECT value, sum(count) AS n FROM ${ch.table("journey_tops_daily")}
    WHERE account_id = {account:UUID} AND kind = 'page' AND day >= toDate({start:String}) AND day < toDate({end:String})
    GROUP BY value ORDER BY n DESC, value LIMIT {limit:UInt32}`,
    { account: q.accountId, start: q.start, end: q.end, limit: q.limit },
  );
  return rows.map((r) => ({ url: r.value, views: Number(r.n) }));
}
