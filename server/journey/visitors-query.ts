// Exact visitor counts of the journey and conversion reports, over journey_visitor_latest (migration
// 0212): one row per visitor, link (or the whole account) and breakdown label, holding the visitor's
// latest event and latest conversion there. Periods run from their start to now, so the visitors of
// a period are the merged rows whose latest event is at or after its start. For the account or one
// link that is a count of rows once FINAL has merged each visitor's rows; for some links (a domain's)
// a visitor may have a row per link, so it is a distinct count of their hashes.
import type { Clickhouse } from "../storage/clickhouse/client";

/** An account's journey events since `fromMs` (a whole hour), optionally of some links only. */
export interface VisitorScope {
  accountId: string;
  fromMs: number;
  linkIds?: string[];
}
export type VisitorDimension = "all" | "device" | "country" | "name";

/** The link_id of a visitor's account-wide rows. */
const ACCOUNT_ROWS = "00000000-0000-0000-0000-000000000000";
const FROM = "fromUnixTimestamp64Milli({from:Int64}, 'UTC')";

/** The scope's rows of a dimension, and how to count visitors and converters in them. */
function scopeRows(ch: Clickhouse, s: VisitorScope) {
  const table = ch.table("journey_visitor_latest");
  const where = `account_id = {account:UUID} AND dimension = {dimension:String}`;
  const one = s.linkIds === undefined ? ACCOUNT_ROWS : s.linkIds.length === 1 ? s.linkIds[0] : null;
  const params = { account: s.accountId, from: s.fromMs, link: one ?? ACCOUNT_ROWS, links: s.linkIds ?? [] };
  if (one !== null) {
    return {
      rows: `${table} FINAL WHERE ${where} AND link_id = {link:UUID} AND last_seen >= ${FROM}`,
      visitors: "count()",
      converters: `countIf(last_conversion >= ${FROM})`,
      params,
    };
  }
  return {
    rows: `${table} WHERE ${where} AND link_id IN {links:Array(UUID)} AND last_seen >= ${FROM}`,
    visitors: "uniqExact(vh)",
    converters: `uniqExactIf(vh, last_conversion >= ${FROM})`,
    params,
  };
}

/**
 * Distinct visitors of the journey events in scope and those of them with a conversion, exact (by a
 * 64-bit hash of the visitor id): the summary, the funnel and the conversion reports give the same
 * number for the same link and period.
 */
export async function countJourneyVisitors(ch: Clickhouse, s: VisitorScope) {
  const q = scopeRows(ch, s);
  const [row] = await ch.query<{ visitors: string; converters: string }>(
    `SELECT ${q.visitors} AS visitors, ${q.converters} AS converters FROM ${q.rows}`,
    { ...q.params, dimension: "all" },
  );
  return { visitors: Number(row?.visitors ?? 0), converters: Number(row?.converters ?? 0) };
}

/**
 * SQL of visitors and converters per label (`label`, `visitors`, `converters`) with its parameters:
 * per breakdown label, or per link (`all` rows of each link) for dimension "link".
 */
export function visitorsByLabelSql(ch: Clickhouse, s: VisitorScope, dimension: VisitorDimension | "link") {
  if (dimension === "link") {
    const links = s.linkIds ? "link_id IN {links:Array(UUID)}" : "link_id != {link:UUID}";
    return {
      sql: `SELECT toString(link_id) AS label, count() AS visitors, countIf(last_conversion >= ${FROM}) AS converters
        FROM ${ch.table("journey_visitor_latest")} FINAL
        WHERE account_id = {account:UUID} AND dimension = 'all' AND ${links} AND last_seen >= ${FROM} GROUP BY label`,
      params: { account: s.accountId, from: s.fromMs, link: ACCOUNT_ROWS, links: s.linkIds ?? [] },
    };
  }
  const q = scopeRows(ch, s);
  return {
    sql: `SELECT label, ${q.visitors} AS visitors, ${q.converters} AS converters FROM ${q.rows} GROUP BY label`,
    params: { ...q.params, dimension },
  };
}
