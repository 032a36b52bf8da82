// Visitor and converter counts of one link, or of a whole account, from the closed days' counts
// (migration 0230) and today's bundles: a 30- or 90-day count reads a row per closed day instead of
// every bundle of the period. A visitor of the period [h, now) is counted once, at the first day of the
// period they have an event on: on the period's first day when their last event of that day is at or
// after h, on a later closed day when their last event before that day is before h (the rows' sumMap
// pairs), today when they have no event in [h, today) (today's visitors are looked up in the period's
// bundles). Converters likewise, with conversions for events.
//
// The closed days are used only when the period's closed days hold exactly as many bundle rows as their
// rows were computed from (bundle rows are only ever added), read in the same query; otherwise the days
// from the first changed one on are computed again and stored (a day's counts depend on the days before
// it), and if they changed once more meanwhile the count is taken from the bundles directly. Whatever has
// been merged, and however late events arrive, the count is the one the bundles give.
import type { Clickhouse } from "../storage/clickhouse/client";

/** The scope of a closed-days row: a link, or the whole account (this id). */
export const WHOLE_ACCOUNT = "00000000-0000-0000-0000-000000000000";
const DAY_MS = 86_400_000;
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
  const firstDay = Math.floor(s.fromMs / DAY_MS) * DAY_MS;
  return { account: s.accountId, scope: s.scope, from: s.fromMs, first_day: firstDay, today, history: today - HISTORY_DAYS * DAY_MS };
}

/** The period's counts if its closed days' rows match the bundles; `stale` otherwise. */
async function countFromClosedDays(ch: Clickhouse, s: ClosedDaysScope, nowMs: number, converters: boolean) {
  const b = bundlesOf(ch, s);
  const closed = `${b} AND ended >= ${at("first_day")} AND ended < ${at("today")}`;
  const today = `${b} AND ended >= ${at("today")}`;
  // Hours are compared as epoch seconds: the rows hold DateTime('UTC') hours.
  const firstDayCount = (col: string) => `arraySum((k, c) -> if(toUnixTimestamp(k) * 1000 >= {from:Int64}, c, 0), ${col}.1, ${col}.2)`;
  const laterDayCount = (col: string) => `arraySum((k, c) -> if(toUnixTimestamp(k) * 1000 < {from:Int64}, c, 0), ${col}.1, ${col}.2)`;
  const closedCount = (last: string, prev: string) =>
    `sum(if(day = toDate(${at("first_day")}), ${firstDayCount(last)}, ${laterDayCount(prev)}))`;
  const [row] = await ch.query<Record<string, string>>(
    `
    WITH stored AS (
      SELECT day, argMax(bundles, computed_at) AS n, argMax(visitor_last, computed_at) AS vl, argMax(visitor_prev, computed_at) AS vp,
        argMax(converter_last, computed_at) AS cl, argMax(converter_prev, computed_at) AS cp
      FROM ${ch.table("journey_closed_days")}
      WHERE account_id = {account:UUID} AND link_id = {scope:UUID} AND day >= toDate(${at("first_day")}) AND day < toDate(${at("today")})
      GROUP BY day)
    SELECT
      (SELECT count() FROM ${closed}) AS current,
      (SELECT sum(n) FROM stored) AS stored,
      (SELECT ${closedCount("vl", "vp")} FROM stored) AS closed_visitors,
      (SELECT uniqExact(vh) FROM ${today}) AS today_visitors,
      (SELECT uniqExact(vh) FROM ${b} AND ended >= ${at("from")} AND ended < ${at("today")}
        AND vh IN (SELECT vh FROM ${today})) AS today_seen${
          converters
            ? `,
      (SELECT ${closedCount("cl", "cp")} FROM stored) AS closed_converters,
      (SELECT uniqExactIf(vh, ${convertedSince("today")}) FROM ${today}) AS today_converters,
      (SELECT uniqExact(vh) FROM ${b} AND ended >= ${at("from")} AND ended < ${at("today")}
        AND vh IN (SELECT vh FROM ${today} AND ${convertedSince("today")}) AND ${convertedSince("from")}) AS today_converters_seen`
            : ""
        }`,
    params(s, nowMs),
  );
  if (!row || Number(row.current) !== Number(row.stored ?? 0)) return "stale" as const;
  const n = (k: string) => Number(row[k] ?? 0);
  return {
    visitors: n("closed_visitors") + n("today_visitors") - n("today_seen"),
    converters: converters ? n("closed_converters") + n("today_converters") - n("today_converters_seen") : 0,
  };
}

/** The first closed day of the period whose bundle rows differ from its stored row's (ms), or null. */
async function firstChangedDay(ch: Clickhouse, s: ClosedDaysScope, nowMs: number): Promise<number | null> {
  const rows = await ch.query<{ day: string }>(
    `
    SELECT toUnixTimestamp(toDateTime(day, 'UTC')) * 1000 AS day FROM (
      SELECT toDate(ended) AS day, count() AS n FROM ${bundlesOf(ch, s)} AND ended >= ${at("first_day")} AND ended < ${at("today")} GROUP BY day) AS c
    LEFT JOIN (
      SELECT day, argMax(bundles, computed_at) AS stored FROM ${ch.table("journey_closed_days")}
      WHERE account_id = {account:UUID} AND link_id = {scope:UUID} AND day >= toDate(${at("first_day")}) GROUP BY day) AS r USING day
    WHERE n != stored ORDER BY day LIMIT 1`,
    params(s, nowMs),
  );
  return rows.length ? Number(rows[0].day) : null;
}

/**
 * Stores the rows of the closed days from `fromDayMs` on (migration 0230 computes them the same way for
 * every scope): each day's units with the hour of their last event and of the visitor's last event
 * before the day, read from the bundles of the visitors of those days.
 */
async function computeClosedDays(ch: Clickhouse, s: ClosedDaysScope, nowMs: number, fromDayMs: number) {
  const b = bundlesOf(ch, s);
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_closed_days")}
    SELECT {account:UUID}, {scope:UUID}, day, sum(n) AS bundles,
      sumMap([last], [toUInt64(1)]), sumMap([prev], [toUInt64(1)]),
      sumMap(if(clast = 0, [], [toDateTime(clast, 'UTC')]), if(clast = 0, [], [toUInt64(1)])),
      sumMap(if(clast = 0, [], [toDateTime(cprev, 'UTC')]), if(clast = 0, [], [toUInt64(1)])),
      now64(3)
    FROM (
      SELECT vh, day, n, last, clast, max(last) OVER w AS prev, max(clast) OVER w AS cprev
      FROM (
        SELECT vh, toDate(ended) AS day, count() AS n, toStartOfHour(toDateTime(max(ended), 'UTC')) AS last,
          intDiv(max(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0)), 3600000) * 3600 AS clast
        FROM ${b} AND ended >= ${at("history")} AND ended < ${at("today")}
          AND vh IN (SELECT vh FROM ${b} AND ended >= ${at("day")} AND ended < ${at("today")})
        GROUP BY vh, day)
      WINDOW w AS (PARTITION BY vh ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
    WHERE day >= toDate(${at("day")})
    GROUP BY day`,
    { ...params(s, nowMs), day: fromDayMs },
  );
}

/**
 * The period's distinct visitors and (with `converters`) converters of the scope, exact; null when the
 * period starts today (nothing closed to reuse) or its closed days kept changing while it was counted:
 * the caller counts from the bundles.
 */
export async function countWithClosedDays(
  ch: Clickhouse,
  s: ClosedDaysScope,
  converters: boolean,
  nowMs = Date.now(),
): Promise<PeriodCounts | null> {
  if (Math.floor(s.fromMs / DAY_MS) >= Math.floor(nowMs / DAY_MS)) return null;
  const first = await countFromClosedDays(ch, s, nowMs, converters);
  if (first !== "stale") return first;
  const changed = await firstChangedDay(ch, s, nowMs);
  if (changed !== null) await computeClosedDays(ch, s, nowMs, changed);
  const again = await countFromClosedDays(ch, s, nowMs, converters);
  return again === "stale" ? null : again;
}
