// Visitor and converter counts of one link, or of a whole account, from the closed periods' counts
// (migration 0230: a row per day before today and per hour of today before the current one) and the
// open hour's bundles: a 30- or 90-day count reads a row per closed period instead of every bundle of
// the report's period. A visitor of the report's period [h, now) is counted once, at the first closed
// period they have a bundle in at or after h: the period that starts before h (the report's first day)
// by its units whose last event is at or after h, a later one by its units whose last event before it is
// before h (the rows' sumMap pairs); in the open hour when they have no bundle in [h, open hour), looked
// up by visitor in journey_visitor_hours. Converters likewise, with conversions for events.
//
// The stored periods are used only when the report's closed periods hold exactly as many bundle rows as
// their rows were computed from (bundle rows are only ever added), read in the same query; otherwise the
// count is taken from the bundles directly, and the journey job (report-cache-job.ts) computes the periods
// from the first changed one on again (a period's counts depend on those before it). Reports never write.
// Whatever has been merged, and however late events arrive, the count is the one the bundles give.
import type { Clickhouse } from "../storage/clickhouse/client";
import { noteScope, type ScopeDemand } from "./report-demand";
import { DAY_MS, HOUR_MS } from "../reports/period";

/** The scope of a closed-periods row: a link, or the whole account (this id). */
export const WHOLE_ACCOUNT = "00000000-0000-0000-0000-000000000000";
/** Units are read this far back for their previous event: no report period is longer than 90 days. */
const HISTORY_DAYS = 92;

export interface ClosedDaysScope {
  accountId: string;
  /** A link id, or WHOLE_ACCOUNT. */
  scope: string;
  /** The period start, a whole hour. */
  fromMs: number;
}
export interface PeriodCounts {
  visitors: number;
  converters: number;
}

const bundlesOf = (ch: Clickhouse, s: ClosedDaysScope) =>
  `${ch.table("journey_event_bundles")} WHERE account_id = {account:UUID}${s.scope === WHOLE_ACCOUNT ? "" : " AND link_id = {scope:UUID}"}`;
const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
/** A bundle's conversions at or after `param` (type 5 in migration 0207's codes). */
const convertedSince = (param: string) =>
  `arrayExists((o, ty) -> ty = 5 AND toUnixTimestamp64Milli(started) + o >= {${param}:Int64}, times, types)`;

function params(s: ClosedDaysScope, nowMs: number) {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    account: s.accountId,
    scope: s.scope,
    from: s.fromMs,
    first_day: Math.floor(s.fromMs / DAY_MS) * DAY_MS,
    today,
    open: Math.floor(nowMs / HOUR_MS) * HOUR_MS,
    history: today - HISTORY_DAYS * DAY_MS,
  };
}

/** A bundle's period: its day before today, its hour today. */
const PERIOD = `if(ended < ${at("today")}, toStartOfDay(toDateTime(ended, 'UTC')), toStartOfHour(toDateTime(ended, 'UTC')))`;
/** The latest row of each closed period of the report (days before today, hours of today before the open one). */
const storedOf = (ch: Clickhouse, columns: string) => `
  SELECT start, ${columns} FROM ${ch.table("journey_closed_days")}
  WHERE account_id = {account:UUID} AND link_id = {scope:UUID}
    AND ((span = 86400 AND start >= toDateTime(${at("first_day")}) AND start < toDateTime(${at("today")}))
      OR (span = 3600 AND start >= toDateTime(${at("today")}) AND start < toDateTime(${at("open")})))
  GROUP BY start`;
const latest = (...cols: string[]) => cols.map((c) => `argMax(${c}, computed_at) AS ${c}`).join(", ");

/** The period's counts if its closed periods' rows match the bundles; `stale` otherwise. */
async function countFromClosedDays(ch: Clickhouse, s: ClosedDaysScope, nowMs: number, converters: boolean) {
  const b = bundlesOf(ch, s);
  const open = `${b} AND ended >= ${at("open")}`;
  // The open hour's visitors (and converters) that had a bundle (a conversion) in [h, open hour) already.
  const lookup = (set: string, cond: string) => `
    SELECT uniqExact(vh) FROM ${ch.table("journey_visitor_hours")}
    WHERE account_id = {account:UUID} AND vh IN (${set})${s.scope === WHOLE_ACCOUNT ? "" : " AND link_id = {scope:UUID}"}
      AND hour < toDateTime(${at("open")}) AND ${cond}`;
  // Units of a period that starts before h count when their last hour is at or after h; of a later one,
  // when their previous hour is before h.
  const h = "toDateTime(intDiv({from:Int64}, 1000), 'UTC')";
  const counted = (last: string, prev: string) =>
    `sum(if(start < ${h}, arraySum((k, c) -> if(k >= ${h}, c, 0), ${last}.1, ${last}.2), arraySum((k, c) -> if(k < ${h}, c, 0), ${prev}.1, ${prev}.2)))`;
  // The stored rows are read once (a CTE named twice would be read twice), as one tuple.
  const closed = `SELECT (sum(bundles), ${counted("visitor_last", "visitor_prev")}, ${converters ? counted("converter_last", "converter_prev") : "0"})
    FROM (${storedOf(ch, latest("bundles", "visitor_last", "visitor_prev", ...(converters ? ["converter_last", "converter_prev"] : [])))})`;
  const [row] = await ch.query<Record<string, string>>(
    `
    WITH (${closed}) AS closed_sums
    SELECT
      (SELECT count() FROM ${b} AND ended >= ${at("first_day")} AND ended < ${at("open")}) AS current,
      closed_sums.1 AS stored, closed_sums.2 AS closed_visitors, closed_sums.3 AS closed_converters,
      (SELECT uniqExact(vh) FROM ${open}) AS open_visitors,
      (${lookup(`SELECT vh FROM ${open}`, `hour >= ${h}`)}) AS open_seen${
        converters
          ? `,
      (SELECT uniqExactIf(vh, ${convertedSince("from")}) FROM ${open}) AS open_converters,
      (${lookup(`SELECT vh FROM ${open} AND ${convertedSince("from")}`, `converted >= ${h}`)}) AS open_converters_seen`
          : ""
      }`,
    params(s, nowMs),
  );
  if (!row || Number(row.current) !== Number(row.stored ?? 0)) return "stale" as const;
  const n = (k: string) => Number(row[k] ?? 0);
  return {
    visitors: n("closed_visitors") + n("open_visitors") - n("open_seen"),
    converters: converters ? n("closed_converters") + n("open_converters") - n("open_converters_seen") : 0,
  };
}

/** The first closed period of the report whose bundle rows differ from its stored row's (ms), or null. */
async function firstChangedPeriod(ch: Clickhouse, s: ClosedDaysScope, nowMs: number): Promise<number | null> {
  const rows = await ch.query<{ start: string }>(
    `
    SELECT toUnixTimestamp(start) * 1000 AS start FROM (
      SELECT ${PERIOD} AS start, count() AS n FROM ${bundlesOf(ch, s)} AND ended >= ${at("first_day")} AND ended < ${at("open")}
      GROUP BY start) AS c
    LEFT JOIN (${storedOf(ch, latest("bundles"))}) AS r USING start
    WHERE n != bundles ORDER BY start LIMIT 1`,
    params(s, nowMs),
  );
  return rows.length ? Number(rows[0].start) : null;
}

/**
 * Stores the rows of the closed periods from `fromMs` on (days, then today's hours): each period's units
 * with the hour of their last event (conversion) and of the visitor's last event (conversion) before the
 * period, from the bundles of the visitors of those periods.
 */
async function computeClosedPeriods(ch: Clickhouse, s: ClosedDaysScope, nowMs: number, fromMs: number) {
  const b = bundlesOf(ch, s);
  const one = "[toUInt64(1)]";
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_closed_days")}
    SELECT {account:UUID}, {scope:UUID}, start, if(start < toDateTime(${at("today")}), 86400, 3600), sum(n),
      sumMap([last], ${one}), sumMap([prev], ${one}),
      sumMap(if(clast = 0, [], [toDateTime(clast, 'UTC')]), if(clast = 0, [], ${one})),
      sumMap(if(clast = 0, [], [toDateTime(cprev, 'UTC')]), if(clast = 0, [], ${one})),
      now64(3)
    FROM (
      SELECT vh, start, n, last, clast, max(last) OVER w AS prev, max(clast) OVER w AS cprev
      FROM (
        SELECT vh, ${PERIOD} AS start, count() AS n, toStartOfHour(toDateTime(max(ended), 'UTC')) AS last,
          intDiv(max(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0)), 3600000) * 3600 AS clast
        FROM ${b} AND ended >= ${at("history")} AND ended < ${at("open")}
          AND vh IN (SELECT vh FROM ${b} AND ended >= ${at("since")} AND ended < ${at("open")})
        GROUP BY vh, start)
      WINDOW w AS (PARTITION BY vh ORDER BY start ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
    WHERE start >= toDateTime(${at("since")})
    GROUP BY start`,
    { ...params(s, nowMs), since: fromMs },
  );
}

/**
 * The period's distinct visitors and (with `converters`) converters of the scope, exact; null when the
 * period starts today, or its closed periods' rows are missing or stale (late events): the caller counts
 * from the bundles, and the scope is noted for the journey job (refreshClosedDays). Never writes.
 */
export async function countWithClosedDays(
  ch: Clickhouse,
  s: ClosedDaysScope,
  converters: boolean,
  nowMs = Date.now(),
): Promise<PeriodCounts | null> {
  if (s.fromMs >= Math.floor(nowMs / DAY_MS) * DAY_MS) return null;
  const counts = await countFromClosedDays(ch, s, nowMs, converters);
  if (counts !== "stale") return counts;
  noteScope(ch, { accountId: s.accountId, scope: s.scope }, nowMs);
  return null;
}

/** The longest report period's first day: the job keeps every closed period from it on. */
const LONGEST_PERIOD_DAYS = 90;

/**
 * Stores the closed periods' rows of the scope that are missing or changed (late events), for every
 * period up to 90 days (the job's work; reports only read them). Returns whether it wrote.
 */
export async function refreshClosedDays(ch: Clickhouse, s: Omit<ClosedDaysScope, "fromMs">, nowMs = Date.now()): Promise<boolean> {
  const scope = { ...s, fromMs: Math.floor(nowMs / DAY_MS) * DAY_MS - LONGEST_PERIOD_DAYS * DAY_MS };
  const changed = await firstChangedPeriod(ch, scope, nowMs);
  if (changed === null) return false;
  await computeClosedPeriods(ch, scope, nowMs, changed);
  return true;
}

/** The scopes with rows computed since `sinceMs`: kept current after a restart, before anyone asks again. */
export async function storedScopes(ch: Clickhouse, sinceMs: number): Promise<ScopeDemand[]> {
  const rows = await ch.query<{ a: string; l: string }>(
    `SELECT DISTINCT toString(account_id) AS a, toString(link_id) AS l FROM ${ch.table("journey_closed_days")}
    WHERE computed_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')`,
    { since: sinceMs },
  );
  return rows.map((r) => ({ accountId: r.a, scope: r.l }));
}
