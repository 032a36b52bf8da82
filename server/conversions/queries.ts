// ClickHouse queries of the conversion reports. Conversions are journey events with event_type
// `conversion`; rates divide unique converters by unique visitors of the journey events in scope, both
// counted by the rule of every journey visitor count (server/journey/visitors-query.ts).
import type { Clickhouse } from "../storage/clickhouse/client";
import { countJourneyVisitors, countJourneyVisitorsByLink, countSummaryVisitors } from "../journey/read";
import type { Dimension, Interval } from "./model";
import { indexedBreakdown } from "./breakdown-index";
import type { IndexScope } from "./closed-index-query";
import { indexedTimeToConvert } from "./time-to-convert-index";

export interface Scope {
  accountId: string;
  fromMs: number;
  /** A compared past window's end (exclusive, a whole hour); none: up to now and beyond (events dated ahead). */
  toMs?: number;
  linkIds?: string[];
}

/** The end bound of a compared window on a time column, or nothing. */
const before = (s: Scope, column: string) => (s.toMs === undefined ? "" : ` AND ${column} < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`);

/** The scope over the hourly rollups (migration 0200); periods start on a whole hour. */
function hourlyScopeOf(s: Scope) {
  const where = [
    "account_id = {account:UUID}",
    "hour >= toDateTime(intDiv({from:Int64}, 1000), 'UTC')",
    ...(s.toMs === undefined ? [] : ["hour < toDateTime(intDiv({to:Int64}, 1000), 'UTC')"]),
    ...(s.linkIds ? ["link_id IN {links:Array(UUID)}"] : []),
  ].join(" AND ");
  return { where, params: { account: s.accountId, from: s.fromMs, to: s.toMs ?? 0, links: s.linkIds ?? [] } };
}

export async function getConversionTotals(ch: Clickhouse, s: Scope) {
  const { where, params } = hourlyScopeOf(s);
  const sums = `SELECT sum(conversions) AS conversions, sum(revenue_cents) AS revenue_cents FROM ${ch.table("journey_hourly")} WHERE ${where}`;
  // The sums go in the visitor index's statement (one round trip) when it answers, else on their own.
  const counted = await countSummaryVisitors(ch, s, true, {
    columns: [`(SELECT (sum(conversions), sum(revenue_cents)) FROM ${ch.table("journey_hourly")} WHERE ${where}) AS sums`],
    params,
  });
  const [conversions, revenueCents] = counted.beside
    ? (counted.beside.sums as [string, string])
    : await ch.query<Record<string, string>>(sums, params).then(([row]) => [row?.conversions, row?.revenue_cents]);
  return {
    conversions: Number(conversions ?? 0),
    converters: counted.converters,
    revenueCents: Number(revenueCents ?? 0),
    visitors: counted.visitors,
  };
}

const BUCKET: Record<Interval, string> = {
  hour: "hour",
  day: "toStartOfDay(hour)",
  week: "toDateTime(toMonday(hour), 'UTC')",
  month: "toDateTime(toStartOfMonth(hour), 'UTC')",
};

/** Conversions and revenue per bucket start (epoch seconds); empty buckets are absent. */
export async function getConversionBuckets(ch: Clickhouse, s: Scope, interval: Interval) {
  const { where, params } = hourlyScopeOf(s);
  const rows = await ch.query<Record<string, string | number>>(
    `
    SELECT toUnixTimestamp(${BUCKET[interval]}) AS bucket, sum(conversions) AS n, sum(revenue_cents) AS cents
    FROM ${ch.table("journey_hourly")} WHERE ${where}
    GROUP BY bucket HAVING n > 0 ORDER BY bucket`,
    params,
  );
  return rows.map((r) => ({ bucket: Number(r.bucket), conversions: Number(r.n), revenueCents: Number(r.cents) }));
}

/**
 * Per A/B variant (its URL): the journey events of visitors who came through a click of that variant
 * (their visitor id is the click id, as the tracker sends it after an svc_ref redirect). The rate divides
 * the variant's converters by its visitors with any journey event in the period, both counted exactly.
 */
function variantBreakdownSql(ch: Clickhouse, s: Scope) {
  const links = s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "";
  return `SELECT c.variant AS label, countIf(j.event_type = 'conversion') AS n, sumIf(j.revenue_cents, j.event_type = 'conversion') AS cents,
      uniqExactIf(j.visitor_id, j.event_type = 'conversion') AS converters, uniqExact(j.visitor_id) AS visitors
    FROM ${ch.table("journey_events")} AS j
    INNER JOIN (SELECT toString(click_id) AS cid, variant FROM ${ch.table("clicks")}
                WHERE account_id = {account:UUID} AND variant != ''${links}) AS c ON c.cid = j.visitor_id
    WHERE j.account_id = {account:UUID} AND j.timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')${before(s, "j.timestamp")}${links.replace("link_id", "j.link_id")}
    GROUP BY label`;
}

/**
 * Per label: conversions and revenue (the hourly rollups, migration 0200), unique converters and the
 * visitors the rate divides by, all exact. A link's visitors and converters follow the rule of every
 * visitor count (server/journey/visitors-query.ts); a device's, country's or conversion name's come from
 * the rollup's sets of the same visitor hashes (migration 0223), and a name's rate is over every visitor
 * in scope; a variant's are counted from its visitors' events.
 */
export async function getConversionBreakdown(ch: Clickhouse, s: Scope, dimension: Dimension) {
  const { where, params } = hourlyScopeOf(s);
  if (dimension === "link") {
    const [rows, counts] = await Promise.all([
      ch.query<Record<string, string>>(
        `SELECT toString(link_id) AS label, sum(conversions) AS n, sum(revenue_cents) AS cents
         FROM ${ch.table("journey_hourly")} WHERE ${where} GROUP BY label HAVING n > 0 ORDER BY n DESC, label LIMIT 1000`,
        params,
      ),
      countJourneyVisitorsByLink(ch, s),
    ]);
    return rows.map((r) => ({ ...sums(r), ...(counts.get(r.label) ?? { converters: 0, visitors: 0 }) }));
  }
  // A device's or country's rows from the in-memory index (breakdown-index.ts) when it answers.
  const indexScope = indexScopeOf(s);
  if ((dimension === "device" || dimension === "country") && indexScope) {
    const indexed = await indexedBreakdown(ch, indexScope, dimension, s.fromMs);
    if (indexed)
      return indexed.sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)).slice(0, 1000);
  }
  // Variants are compared by their rates, so one with visitors and no conversion stays in.
  // A name's rows hold conversions only (their visitor set is their converter set): its rate divides by
  // every visitor in scope, counted at the same time.
  const visitors = dimension === "name" ? "0" : "uniqExactMerge(visitor_set)";
  const sql =
    dimension === "variant"
      ? `${variantBreakdownSql(ch, s)} ORDER BY n DESC, label LIMIT 1000`
      : `SELECT label, sum(conversions) AS n, sum(revenue_cents) AS cents, uniqExactMerge(converter_set) AS converters, ${visitors} AS visitors
     FROM ${ch.table("journey_dims_hourly")} WHERE ${where} AND dimension = {dimension:String}
     GROUP BY label HAVING n > 0 ORDER BY n DESC, label LIMIT 1000`;
  const [rows, all] = await Promise.all([
    ch.query<Record<string, string>>(sql, { ...params, dimension }),
    dimension === "name" ? countJourneyVisitors(ch, s, false).then((c) => c.visitors) : 0,
  ]);
  return rows.map((r) => ({
    ...sums(r),
    converters: Number(r.converters),
    visitors: dimension === "name" ? all : Number(r.visitors),
  }));
}

/** The scope of an in-memory index: the current period (no end) of the whole account or of one link. */
export function indexScopeOf(s: Scope): IndexScope | null {
  if (s.toMs !== undefined) return null;
  if (!s.linkIds) return { accountId: s.accountId, linkId: null };
  return s.linkIds.length === 1 ? { accountId: s.accountId, linkId: s.linkIds[0] } : null;
}

const sums = (r: Record<string, string>) => ({ label: r.label, conversions: Number(r.n), revenueCents: Number(r.cents) });

/**
 * One entry per converting (link, visitor) whose first conversion on the link falls in the period:
 * from the visitor's click (clicks.click_id is the visitor_id the tracker sends after an svc_ref
 * redirect) or, without one, from the visitor's first journey event on the link. Both come from the
 * journey_first_touch rollup (migrations 0200, 0201) for the candidates journey_conversion_times
 * (migration 0202) lists, so no raw events are scanned.
 */
export async function getTimeToConvert(ch: Clickhouse, s: Scope) {
  // From the in-memory index (time-to-convert-index.ts) when it answers.
  const indexScope = indexScopeOf(s);
  const indexed = indexScope && (await indexedTimeToConvert(ch, indexScope, s.fromMs));
  if (indexed) return indexed;
  const links = s.linkIds ? " AND link_id IN {links:Array(UUID)}" : "";
  const from = "fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
  const touch = ch.table("journey_first_touch");
  // Candidates: (link, visitor)s with a conversion in the period, read by time from migration 0202's
  // table. The rollup is narrowed to their visitors by a UInt64 hash (cheaper than a (link, visitor)
  // set; extra rows cannot pass): the HAVING keeps those whose first conversion is in the period.
  const converted = `SELECT link_id, visitor_id FROM ${ch.table("journey_conversion_times")}
    WHERE account_id = {account:UUID} AND converted_at >= ${from}${before(s, "converted_at")}${links}`;
  const [row] = await ch.query<Record<string, string | number | null>>(
    `
    WITH conv AS (
      SELECT link_id, visitor_id, min(first_at) AS first_touch, min(first_conversion_at) AS converted_at
      FROM ${touch}
      WHERE account_id = {account:UUID}${links}
        AND cityHash64(visitor_id) IN (SELECT cityHash64(visitor_id) FROM (${converted}))
      GROUP BY link_id, visitor_id HAVING converted_at >= ${from}${before(s, "converted_at")}
    ), click AS (
      SELECT link_id, click_id, min(timestamp) AS clicked_at, 1 AS matched FROM ${ch.table("clicks")}
      WHERE account_id = {account:UUID} AND click_id IN (SELECT toUUIDOrZero(visitor_id) FROM (${converted}))
      GROUP BY link_id, click_id
    ), spans AS (
      SELECT greatest(0, toUnixTimestamp64Milli(assumeNotNull(conv.converted_at))
        - toUnixTimestamp64Milli(if(click.matched = 1, click.clicked_at, conv.first_touch))) / 1000 AS s
      FROM conv LEFT JOIN click ON click.link_id = conv.link_id AND click.click_id = toUUIDOrZero(conv.visitor_id)
    )
    SELECT countIf(s < 3600) AS b0, countIf(s >= 3600 AND s < 86400) AS b1, countIf(s >= 86400 AND s < 604800) AS b2,
      countIf(s >= 604800) AS b3, avgOrNull(s) AS average, quantileExactInclusiveOrNull(0.5)(s) AS median
    FROM spans SETTINGS optimize_aggregation_in_order = 1`,
    { account: s.accountId, from: s.fromMs, to: s.toMs ?? 0, links: s.linkIds ?? [] },
  );
  return {
    counts: [row.b0, row.b1, row.b2, row.b3].map(Number),
    averageSeconds: Number(row.average ?? 0),
    medianSeconds: Number(row.median ?? 0),
  };
}
