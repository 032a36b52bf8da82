// The retention report over journey_event_bundles (migration 0207: a row per insert batch, UTC day,
// session and visitor, so all of a row's events fall in one week): a visitor's first visit is the start
// of their first bundle on the link, ever; their cohort is its week (Monday, UTC); they return in a later
// week when they have an event in it before the window's end.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Window } from "./compare";

export interface RetentionRow {
  /** The cohort's Monday, YYYY-MM-DD. */
  cohort: string;
  visitors: number;
  /** Of them, those with an event in a later week. */
  returning: number;
  /** Weeks after the cohort's (1, 2, …) → visitors with an event in that week. */
  returns: Map<number, number>;
}

/** Per cohort week whose first visits fall in the window: its visitors and their returns. */
export async function queryRetention(ch: Clickhouse, accountId: string, linkId: string, w: Window): Promise<RetentionRow[]> {
  const bundles = ch.table("journey_event_bundles");
  const rows = await ch.query<{ cohort: string; n: string; ret: string; offsets: number[]; counts: string[] }>(
    `
    SELECT toString(cohort) AS cohort, count() AS n, countIf(length(offs) > 0) AS ret,
      sumMap(offs, arrayMap(x -> toUInt64(1), offs)) AS m, m.1 AS offsets, arrayMap(x -> toString(x), m.2) AS counts
    FROM (
      SELECT vh, toMonday(min(started)) AS cohort,
        arrayFilter(x -> x > 0, arrayMap(wk -> toUInt32(dateDiff('week', cohort, wk)), groupUniqArray(toMonday(started)))) AS offs
      FROM ${bundles}
      WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
      GROUP BY vh
      HAVING min(started) >= fromUnixTimestamp64Milli({from:Int64}, 'UTC'))
    GROUP BY cohort
    ORDER BY cohort`,
    { account: accountId, link: linkId, from: w.fromMs, to: w.toMs },
  );
  return rows.map((r) => ({
    cohort: r.cohort,
    visitors: Number(r.n),
    returning: Number(r.ret),
    returns: new Map(r.offsets.map((o, i) => [Number(o), Number(r.counts[i])])),
  }));
}
