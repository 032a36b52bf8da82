// The journey summary's session count and average duration of one link from the closed hours' stored
// state (migration 0251) and the open hour's bundles, giving exactly what journey_sessions_v2 FINAL gives
// (the sessions with an event in the period [h, now), each from its first event, or h when it began
// before, to its last; a session belongs to the hours of its bundles' ends, migration 0207).
//
// A session is counted once, in the first hour at or after h it has a bundle ending in: the stored rows'
// `first` units (no earlier bundle at all) and their `after_prev` units whose previous bundle ended before
// h. Its duration is a telescoping sum over those hours: in its first hour in the period, end − max(first
// event, h) (h when it had a bundle before h); in each later one, end − the previous end. The open hour is
// read raw: its sessions, and for each the end of its latest bundle before the open hour within the period
// and whether it had one before the period, from one read of the session hashes of the link's bundles.
//
// The stored rows are used only when the period's closed hours hold exactly as many session bundles as
// the rows were computed from, and when no session's bundle began before its earlier ones (a batch that
// carried a late event with later ones: `anomalies`); otherwise the summary reads journey_sessions_v2
// FINAL, and the scope is noted for the journey job (report-cache-job.ts), which computes the hours from
// the first changed one on (an hour's units depend on the hours before it). Reports never write.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { LinkRange } from "./link-range";
import { noteScope } from "./report-demand";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The job keeps every closed hour of the longest report period (90 days) and the first day's. */
const LONGEST_PERIOD_DAYS = 90;

export interface SessionFigures {
  sessions: number;
  /** Average seconds, null without sessions. */
  avgSeconds: number | null;
}

const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
const ms = (col: string) => `toUnixTimestamp64Milli(${col})`;
const allOf = (ch: Clickhouse) => `${ch.table("journey_event_bundles")} WHERE account_id = {account:UUID} AND link_id = {link:UUID}`;
/** The bundles of sessions (events without a session_id have sid 0 and no session). */
const bundlesOf = (ch: Clickhouse) => `${allOf(ch)} AND sid != 0`;

function params(r: LinkRange, nowMs: number) {
  return { account: r.accountId, link: r.linkId, from: r.fromMs, open: Math.floor(nowMs / HOUR_MS) * HOUR_MS };
}

/** The latest row of each closed hour in [h, open). */
const storedOf = (ch: Clickhouse, columns: string) => `
  SELECT start, ${columns} FROM ${ch.table("journey_session_hours")}
  WHERE account_id = {account:UUID} AND link_id = {link:UUID}
    AND start >= toDateTime(${at("from")}) AND start < toDateTime(${at("open")})
  GROUP BY start`;
const latest = (...cols: string[]) => cols.map((c) => `argMax(${c}, computed_at) AS ${c}`).join(", ");

/** The stored figures of [h, open) and the open hour's, in one statement; null when they cannot be used. */
export async function storedSessionFigures(ch: Clickhouse, r: LinkRange, nowMs: number): Promise<SessionFigures | null> {
  const b = bundlesOf(ch);
  // Per stored row (hour `start`): the sessions counted here and the ms they add to the period's durations.
  const h = `toDateTime(${at("from")})`;
  const sinceH = `(toInt64(toUnixTimestamp(start)) * 1000 - {from:Int64})`;
  const add = (m: string) =>
    `arraySum((k, c, dx, dp) -> if(k >= ${h}, toInt64(dx), toInt64(dp) + toInt64(c) * ${sinceH}), ${m}.1, ${m}.2, ${m}.3, ${m}.4)`;
  // One tuple (a CTE named twice would be read twice): the rows' bundles, sessions, ms, anomalies, and the
  // earliest row's hour and count of the link's bundles before it.
  const closed = `
    SELECT (sum(bundles), sum(arraySum((k, c) -> if(k < ${h}, c, 0), after_prev.1, after_prev.2) + arraySum(first.2)),
      sum(${add("after_prev")} + ${add("first")}), sum(anomalies), minOrNull(start), argMin(before, start))
    FROM (${storedOf(ch, latest("bundles", "after_prev", "first", "anomalies", "before"))})`;
  // The open hour's sessions (their end and first event there) and, from one read of the link's earlier
  // bundles' session hashes, the end of their latest bundle in [h, open hour) (p = 0: none) with the
  // earliest start of those, and whether they had one before h (then they count from h).
  const open = `SELECT sid, max(${ms("ended")}) AS e, min(${ms("started")}) AS s FROM ${b} AND ended >= ${at("open")} GROUP BY sid`;
  const before = `
    SELECT sid, maxIf(${ms("ended")}, ended >= ${at("from")}) AS p, minIf(${ms("started")}, ended >= ${at("from")}) AS sb,
      countIf(ended < ${at("from")}) AS pre
    FROM ${b} AND ended < ${at("open")} AND sid IN (SELECT sid FROM (${open}))
    GROUP BY sid`;
  const [row] = await ch.query<Record<string, string>>(
    `
    WITH (${closed}) AS c
    SELECT c.1 AS stored, c.2 AS closed_sessions, c.3 AS closed_ms, c.4 AS anomalies, c.6 AS stored_before,
      (SELECT count() FROM ${b} AND ended >= ${at("from")} AND ended < ${at("open")}) AS current,
      (SELECT count() FROM ${allOf(ch)} AND ended < ifNull(c.5, toDateTime(0, 'UTC'))) AS current_before,
      countIf(p = 0) AS open_sessions,
      sum(if(p = 0, e - if(pre > 0, {from:Int64}, greatest(s, {from:Int64})), e - p)) AS open_ms,
      countIf(p != 0 AND s < sb) AS open_anomalies
    FROM (${open}) AS o LEFT JOIN (${before}) AS pr USING sid
    SETTINGS join_use_nulls = 0`,
    params(r, nowMs),
  );
  if (!row) return null;
  const n = (k: string) => Number(row[k] ?? 0);
  const late = n("current") !== n("stored") || n("current_before") !== n("stored_before");
  if (late || n("anomalies") > 0 || n("open_anomalies") > 0) return null;
  const sessions = n("closed_sessions") + n("open_sessions");
  return { sessions, avgSeconds: sessions ? (n("closed_ms") + n("open_ms")) / sessions / 1000 : null };
}

/** The same from journey_sessions_v2 FINAL: its cost follows the link's whole history. */
export async function sessionsFromTable(ch: Clickhouse, r: LinkRange): Promise<SessionFigures> {
  const [row] = await ch.query<{ n: string; avg: number | null }>(
    `
    SELECT count() AS n,
      avgOrNull(toUnixTimestamp64Milli(ended) - greatest(toUnixTimestamp64Milli(started), {from:Int64})) / 1000 AS avg
    FROM ${ch.table("journey_sessions_v2")} FINAL
    WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')`,
    { account: r.accountId, link: r.linkId, from: r.fromMs },
  );
  return { sessions: Number(row?.n ?? 0), avgSeconds: row?.avg == null ? null : Number(row.avg) };
}

/** The summary's sessions, exact: from the stored hours when they are current, else from the table. */
export async function countSummarySessions(ch: Clickhouse, r: LinkRange, nowMs = Date.now()): Promise<SessionFigures> {
  const stored = await storedSessionFigures(ch, r, nowMs);
  if (stored) return stored;
  noteScope(ch, { accountId: r.accountId, scope: r.linkId }, nowMs);
  return sessionsFromTable(ch, r);
}

/**
 * The first closed hour since `fromMs` whose session bundles differ from its stored row's (ms), `fromMs`
 * itself when bundles were added before the first stored row (an event dated earlier), or null.
 */
async function firstChangedHour(ch: Clickhouse, r: LinkRange, nowMs: number): Promise<number | null> {
  const rows = await ch.query<{ start: string }>(
    `
    SELECT toUnixTimestamp(start) * 1000 AS start FROM (
      SELECT toStartOfHour(toDateTime(ended, 'UTC')) AS start, count() AS n FROM ${bundlesOf(ch)}
        AND ended >= ${at("from")} AND ended < ${at("open")}
      GROUP BY start) AS c
    LEFT JOIN (${storedOf(ch, latest("bundles"))}) AS r USING start
    WHERE n != bundles ORDER BY start LIMIT 1
    SETTINGS join_use_nulls = 0`,
    params(r, nowMs),
  );
  if (rows.length) return Number(rows[0].start);
  const [first] = await ch.query<{ stored: string; current: string }>(
    `
    SELECT argMin(before, start) AS stored,
      (SELECT count() FROM ${allOf(ch)} AND ended < (SELECT min(start) FROM (${storedOf(ch, "1")}))) AS current
    FROM (${storedOf(ch, latest("before"))})`,
    params(r, nowMs),
  );
  return first && Number(first.stored) !== Number(first.current) ? r.fromMs : null;
}

/**
 * Stores the rows of the closed hours from `sinceMs` on: each hour's sessions with the end of their
 * previous bundle (from every earlier bundle of theirs, however old) or their first event.
 */
async function computeHours(ch: Clickhouse, r: LinkRange, nowMs: number, sinceMs: number) {
  const b = bundlesOf(ch);
  const one = "[toUInt64(1)]";
  const entry = (cond: string, key: string, x: string) =>
    `if(${cond}, [${key}], []), if(${cond}, ${one}, []), if(${cond}, [toUInt64(e - ${x})], []), if(${cond}, [toUInt64(e - hour_ms)], [])`;
  // Each hour's count of the link's bundles (any session) that ended before it.
  const befores = `
    SELECT start, (SELECT count() FROM ${allOf(ch)} AND ended < ${at("since")})
      + sum(n) OVER (ORDER BY start ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
    FROM (SELECT toStartOfHour(toDateTime(ended, 'UTC')) AS start, count() AS n FROM ${allOf(ch)}
      AND ended >= ${at("since")} AND ended < ${at("open")} GROUP BY start)`;
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_session_hours")}
    SELECT {account:UUID}, {link:UUID}, start, bundles, after_prev, first, anomalies, before, now64(3)
    FROM (
      SELECT start, sum(n) AS bundles,
        sumMap(${entry("earlier > 0", "toStartOfHour(toDateTime(intDiv(p, 1000), 'UTC'))", "p")}) AS after_prev,
        sumMap(${entry("earlier = 0", "toStartOfHour(toDateTime(intDiv(s, 1000), 'UTC'))", "s")}) AS first,
        countIf(earlier > 0 AND s < sb) AS anomalies
      FROM (
        SELECT sid, start, toInt64(toUnixTimestamp(start)) * 1000 AS hour_ms, n, e, s,
          count() OVER w AS earlier, max(e) OVER w AS p, min(s) OVER w AS sb
        FROM (
          SELECT sid, toStartOfHour(toDateTime(ended, 'UTC')) AS start, count() AS n, max(${ms("ended")}) AS e, min(${ms("started")}) AS s
          FROM ${b} AND ended < ${at("open")} AND sid IN (SELECT sid FROM ${b} AND ended >= ${at("since")} AND ended < ${at("open")})
          GROUP BY sid, start)
        WINDOW w AS (PARTITION BY sid ORDER BY start ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
      WHERE start >= toDateTime(${at("since")})
      GROUP BY start) AS a
    LEFT JOIN (${befores}) AS bf USING start
    SETTINGS join_use_nulls = 0`,
    { ...params(r, nowMs), since: sinceMs },
  );
}

/**
 * Stores the session rows of the link's closed hours that are missing or changed (late events), for every
 * period up to 90 days (the job's work; reports only read them). Returns whether it wrote.
 */
export async function refreshSessionHours(ch: Clickhouse, s: { accountId: string; linkId: string }, nowMs = Date.now()): Promise<boolean> {
  const r = { ...s, fromMs: Math.floor(nowMs / DAY_MS) * DAY_MS - LONGEST_PERIOD_DAYS * DAY_MS };
  const changed = await firstChangedHour(ch, r, nowMs);
  if (changed === null) return false;
  await computeHours(ch, r, nowMs, changed);
  return true;
}
