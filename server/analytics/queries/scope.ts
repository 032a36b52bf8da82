// The WHERE clause every analytics query shares. Only fixed SQL text is chosen here; every value is a
// bound parameter.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickhouseTable } from "../../storage/clickhouse/tables";
import type { ClickScope } from "../model";

export const num = (v: unknown) => Number(v ?? 0);

/**
 * Distinct visitors of the rows read: the union of the aggregates' exact visitor sets (migration 0222),
 * the same count in every click report and link stats; `VISITORS_IF` counts those of the rows meeting a condition.
 */
export const VISITORS = "uniqExactMerge(visitor_set)";
export const VISITORS_IF = (condition: string) => `uniqExactMergeIf(visitor_set, ${condition})`;
/** Epoch milliseconds from toUnixTimestamp64Milli; 0 (no clicks) → null. */
export const isoOrNull = (ms: unknown) => (num(ms) > 0 ? new Date(num(ms)).toISOString() : null);

/** For the daily aggregates (column `day`). */
export function dailyScope(s: ClickScope) {
  return {
    where: [
      "account_id = {account:UUID}",
      "day >= {start:Date} AND day <= {end:Date}",
      botCondition(s),
      s.domain !== undefined ? "domain = {domain:String}" : "",
      s.source !== undefined ? "source = {source:String}" : "",
      linkCondition(s),
    ]
      .filter(Boolean)
      .join(" AND "),
    params: params(s),
  };
}

/**
 * A daily report's table: its aggregate, or with a source or link filter clicks_daily_targets (migration
 * 0221), which has the same columns (day, domain, is_bot, clicks, visitor_set, last_click), a source and a link_id.
 */
export const dailyTable = (ch: Clickhouse, s: ClickScope, aggregate: ClickhouseTable) =>
  ch.table(s.source === undefined && s.linkIds === undefined ? aggregate : "clicks_daily_targets");

/** What a breakdown reads: its aggregate, or the raw clicks when a source or link filter asks for what it does not hold. */
export interface ClickRows {
  from: string;
  where: string;
  params: Record<string, unknown>;
  clicks: string;
  visitors: string;
  /** The row's hour (the hourly report). */
  hour: string;
}

export function breakdownRows(ch: Clickhouse, s: ClickScope, aggregate: ClickhouseTable): ClickRows {
  if (s.source === undefined && s.linkIds === undefined) {
    const { where, params } = aggregate === "clicks_hourly" ? hourlyScope(s) : dailyScope(s);
    return { from: ch.table(aggregate), where, params, clicks: "sum(clicks)", visitors: VISITORS, hour: "hour" };
  }
  const where = [
    "account_id = {account:UUID}",
    "timestamp >= toDateTime({start:Date}, 'UTC') AND timestamp < toDateTime({end:Date} + 1, 'UTC')",
    botCondition(s),
    s.domain !== undefined ? "domain = {domain:String}" : "",
    s.source !== undefined ? "source = {source:String}" : "",
    linkCondition(s),
  ]
    .filter(Boolean)
    .join(" AND ");
  return {
    from: ch.table("clicks"),
    where,
    params: params(s),
    clicks: "count()",
    visitors: "uniqExact(visitor_hash)",
    hour: "timestamp",
  };
}

/** For the hourly aggregate (column `hour`, UTC). */
export function hourlyScope(s: ClickScope) {
  return {
    where: [
      "account_id = {account:UUID}",
      "hour >= toDateTime({start:Date}, 'UTC') AND hour < toDateTime({end:Date} + 1, 'UTC')",
      botCondition(s),
      s.domain !== undefined ? "domain = {domain:String}" : "",
    ]
      .filter(Boolean)
      .join(" AND "),
    params: params(s),
  };
}

const linkCondition = (s: ClickScope) => (s.linkIds !== undefined ? "link_id IN {links:Array(UUID)}" : "");

/** "all": every click, not the stored rows of closed days' visitor numbers (is_bot 10 and up, migration 0270). */
const botCondition = (s: ClickScope) => (s.botFilter === "real" ? "is_bot = 0" : s.botFilter === "bot" ? "is_bot = 1" : "is_bot < 2");

const params = (s: ClickScope) => ({
  account: s.accountId,
  start: s.range.start,
  end: s.range.end,
  ...(s.domain !== undefined ? { domain: s.domain } : {}),
  ...(s.source !== undefined ? { source: s.source } : {}),
  ...(s.linkIds !== undefined ? { links: s.linkIds } : {}),
});
