// The attribution report's query (docs/insights.md "Attribution"). Each conversion event in scope is
// credited to the links whose clicks brought its visitor within the window before it. A visitor's
// touch on a link is its arrival through that link: the short-link click whose id is the visitor_id
// (the tracker's svc_ref hand-off) or, without one, the visitor's first journey event on the link
// (journey_first_touch, migration 0200). Only the converting visitors' rows are read.
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

export async function getAttributionCredits(ch: Clickhouse, s: AttributionScope, model: AttributionModel): Promise<AttributionCredit[]> {
  const links = s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "";
  const credit = CREDIT[model];
  const rows = await ch.query<Record<string, string | number>>(
    `
    WITH conv AS (
      SELECT visitor_id, toUnixTimestamp64Milli(timestamp) AS at, revenue_cents AS cents FROM ${ch.table("journey_events")}
      WHERE account_id = {account:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
        AND event_type = 'conversion'${links}
    ), touch AS (
      SELECT link_id, visitor_id, min(first_at) AS first_at FROM ${ch.table("journey_first_touch")}
      WHERE account_id = {account:UUID} AND visitor_id IN (SELECT visitor_id FROM conv)
      GROUP BY link_id, visitor_id
    ), click AS (
      SELECT link_id, click_id, min(timestamp) AS clicked_at, 1 AS matched FROM ${ch.table("clicks")}
      WHERE account_id = {account:UUID} AND click_id IN (SELECT toUUIDOrZero(visitor_id) FROM conv)
      GROUP BY link_id, click_id
    ), paths AS (
      SELECT touch.visitor_id AS visitor_id,
        groupArray((toUnixTimestamp64Milli(if(click.matched = 1, least(click.clicked_at, touch.first_at), touch.first_at)), touch.link_id)) AS touches
      FROM touch LEFT JOIN click ON click.link_id = touch.link_id AND click.click_id = toUUIDOrZero(touch.visitor_id)
      GROUP BY touch.visitor_id
    ), windows AS (
      SELECT conv.cents AS cents, arraySort(arrayFilter(x -> x.1 <= conv.at AND x.1 >= conv.at - {window:Int64}, paths.touches)) AS w
      FROM conv LEFT JOIN paths ON paths.visitor_id = conv.visitor_id
    )
    SELECT ${credit.label} AS label, sum(${credit.weight}) AS n, sum(cents * ${credit.weight}) AS cents
    FROM windows ${credit.join}
    GROUP BY label`,
    { account: s.accountId, from: s.fromMs, links: s.linkIds ?? [], window: s.windowMs },
  );
  return rows.map((r) => ({ linkId: String(r.label), conversions: Number(r.n), revenueCents: Number(r.cents) }));
}
