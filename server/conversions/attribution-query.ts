// The attribution report's query (docs/insights.md "Attribution"). Each conversion event in scope is
// credited to the links whose clicks brought its visitor within the window before it. A visitor's
// touch on a link is its arrival through that link: the short-link click whose id is the visitor_id
// (the tracker's svc_ref hand-off) or, without one, the visitor's first journey event on the link
// (journey_first_touch, migration 0200).
import type { Clickhouse } from "../storage/clickhouse/client";
import type { AttributionModel } from "./attribution-model";

export interface AttributionScope {
  accountId: string;
  fromMs: number;
  linkIds?: string[];
  windowMs: number;
}

/** Credited conversions and revenue (cents) per link id; "" holds the conversions no touch brought. */
export interface AttributionCredit {
  linkId: string;
  conversions: number;
  revenueCents: number;
}

// Per model: the credited link of a conversion's window `w` (sorted by time, then link), or the rows of
// its equal shares (linear). An empty window credits "".
const CREDIT: Record<AttributionModel, { join: string; label: string; weight: string }> = {
  first: { join: "", label: "if(empty(w), '', toString(w[1].2))", weight: "1" },
  last: { join: "", label: "if(empty(w), '', toString(w[-1].2))", weight: "1" },
  linear: {
    join: "ARRAY JOIN if(empty(w), [''], arrayMap(x -> toString(x.2), w)) AS l",
    label: "l",
    weight: "1 / greatest(length(w), 1)",
  },
};

/**
 * One pass over three inputs, grouped by visitor: the period's conversion events in scope, the
 * visitors' first touches per link that can fall in some window (the rollup's rows merged, then only
 * those from the period's start less the window), and the clicks of that time (a click id is the
 * visitor_id of the visitor it brought). A link's touch is the earlier of its click and its first event.
 */
export async function getAttributionCredits(ch: Clickhouse, s: AttributionScope, model: AttributionModel): Promise<AttributionCredit[]> {
  const links = s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "";
  const credit = CREDIT[model];
  const since = "fromUnixTimestamp64Milli({from:Int64} - {window:Int64}, 'UTC')";
  const rows = await ch.query<Record<string, string | number>>(
    `
    WITH per_visitor AS (
      SELECT visitor_id,
        groupArrayIf((at, cents), kind = 0) AS convs,
        groupArrayIf((at, link_id), kind = 1) AS touches,
        groupArrayIf((at, link_id), kind = 2) AS clicks
      FROM (
        SELECT visitor_id, 0 AS kind, toUnixTimestamp64Milli(timestamp) AS at, revenue_cents AS cents, link_id
        FROM ${ch.table("journey_events")}
        PREWHERE event_type = 'conversion'
        WHERE account_id = {account:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')${links}
        UNION ALL
        SELECT visitor_id, 1 AS kind, toUnixTimestamp64Milli(min(first_at)) AS at, toInt64(0) AS cents, link_id
        FROM ${ch.table("journey_first_touch")} WHERE account_id = {account:UUID}
        GROUP BY link_id, visitor_id HAVING min(first_at) >= ${since}
        UNION ALL
        SELECT toString(click_id) AS visitor_id, 2 AS kind, toUnixTimestamp64Milli(timestamp) AS at, toInt64(0) AS cents, link_id
        FROM ${ch.table("clicks")} WHERE account_id = {account:UUID} AND timestamp >= ${since}
      )
      GROUP BY visitor_id HAVING notEmpty(convs)
    ), windows AS (
      SELECT c.2 AS cents,
        arraySort(arrayFilter(x -> x.1 <= c.1 AND x.1 >= c.1 - {window:Int64},
          arrayMap(t -> (arrayMin(arrayPushBack(arrayMap(k -> if(k.2 = t.2, k.1, t.1), clicks), t.1)), t.2), touches))) AS w
      FROM per_visitor ARRAY JOIN convs AS c
    )
    SELECT ${credit.label} AS label, sum(${credit.weight}) AS n, sum(cents * ${credit.weight}) AS cents
    FROM windows ${credit.join}
    GROUP BY label`,
    { account: s.accountId, from: s.fromMs, links: s.linkIds ?? [], window: s.windowMs },
  );
  return rows.map((r) => ({ linkId: String(r.label), conversions: Number(r.n), revenueCents: Number(r.cents) }));
}
