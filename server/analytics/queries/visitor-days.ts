// Click visitors per day and report cell (click_visitor_days, migration 0231): the stored numbers of
// closed days, the same numbers counted from the raw clicks for the days a report cannot take from the
// table (today, days whose clicks changed since), and the job's refresh. How they add up: ../visitor-days.ts.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickhouseTable } from "../../storage/clickhouse/tables";
import { num } from "./scope";

/** How long after midnight a click may keep the previous day's visitor hash (ingest/clicks/enrich/visitor-hash.ts). */
const CARRY_SECONDS = 30 * 60;

export type VisitorReport = "total" | "hour" | "country" | "referrer" | "link";
export const VISITOR_REPORTS: VisitorReport[] = ["total", "hour", "country", "referrer", "link"];

/** Where each report's cells come from: its aggregate (day and key columns) and the same key on the raw clicks. */
const SOURCES: Record<VisitorReport, { table: ClickhouseTable; day: string; key: string; rawKey: string }> = {
  total: { table: "clicks_daily", day: "day", key: "''", rawKey: "''" },
  hour: { table: "clicks_hourly", day: "toDate(hour)", key: "toString(toHour(hour))", rawKey: "toString(toHour(timestamp))" },
  country: { table: "clicks_daily_geo", day: "day", key: "toString(country_code)", rawKey: "toString(country_code)" },
  referrer: { table: "clicks_daily_referrers", day: "day", key: "referrer", rawKey: "referrer" },
  link: { table: "clicks_daily_links", day: "day", key: "toString(link_id)", rawKey: "toString(link_id)" },
};

/** Which cells a report reads: bot 0 people, 1 bots, 2 both; domain '*' for every domain; key for one cell (a link). */
export interface CellSelector {
  accountId: string;
  report: VisitorReport;
  bot: 0 | 1 | 2;
  domain: string;
  key?: string;
}

export interface StoredCell {
  day: string;
  key: string;
  clicks: number;
  prev_clicks: number;
  visitors: number;
  overlap: number;
}

/** The raw clicks of the selector's cells (the bound parameters are rawParams'). */
function rawScope(sel: CellSelector) {
  return [
    "account_id = {account:UUID}",
    sel.bot === 2 ? "" : "is_bot = {bot:UInt8}",
    sel.domain === "*" ? "" : "domain = {domain:String}",
    sel.key !== undefined && sel.report === "link" ? "link_id = {key:UUID}" : "",
  ]
    .filter(Boolean)
    .join(" AND ");
}
/** Days as a time range the sorting key and the partitions can use, then the days themselves. */
const IN_DAYS = (days: string) =>
  `timestamp >= toDateTime(arrayMin({${days}:Array(Date)}), 'UTC') AND timestamp < toDateTime(arrayMax({${days}:Array(Date)}) + 1, 'UTC') AND toDate(timestamp) IN {${days}:Array(Date)}`;
const rawParams = (sel: CellSelector, days: string[]) => ({
  account: sel.accountId,
  bot: sel.bot,
  domain: sel.domain,
  key: sel.key ?? "",
  days,
  prev: days.map((d) => new Date(Date.parse(d) - 86_400_000).toISOString().slice(0, 10)),
});

export interface CellCount {
  day: string;
  key: string;
  n: number;
}

/** Distinct visitor hashes per (day, cell) of these days, from the raw clicks. */
export async function countRawVisitors(ch: Clickhouse, sel: CellSelector, days: string[]): Promise<CellCount[]> {
  if (days.length === 0) return [];
  const rows = await ch.query(
    `SELECT toString(toDate(timestamp)) AS d, ${SOURCES[sel.report].rawKey} AS k, uniqExact(visitor_hash) AS n
     FROM ${ch.table("clicks")} WHERE ${rawScope(sel)} AND ${IN_DAYS("days")} GROUP BY d, k`,
    rawParams(sel, days),
  );
  return rows.map((r) => ({ day: String(r.d), key: String(r.k), n: num(r.n) }));
}

/**
 * Per (day, cell) of these days, the visitor hashes the cell also had the day before, from the raw clicks.
 * Today's: the hashes of its first 30 minutes looked for in the day before, in two small reads (hashes
 * salted by the day cross midnight only through the carry; an IN over a subquery of the whole day
 * measured 70–220 ms on the benchmark, these ~10 ms). Closed days touched by late clicks (rare): every
 * hash of the day, as the stored numbers count them, so that a day counts the same from either source
 * whatever the hashes.
 */
export async function countRawOverlaps(ch: Clickhouse, sel: CellSelector, days: string[], today: string): Promise<CellCount[]> {
  const closed = days.filter((d) => d < today);
  const [late, open] = await Promise.all([
    countFullOverlaps(ch, sel, closed),
    countCarriedOverlaps(
      ch,
      sel,
      days.filter((d) => d >= today),
    ),
  ]);
  return [...late, ...open];
}

async function countFullOverlaps(ch: Clickhouse, sel: CellSelector, days: string[]): Promise<CellCount[]> {
  if (days.length === 0) return [];
  const scope = rawScope(sel);
  const key = SOURCES[sel.report].rawKey;
  const clicks = ch.table("clicks");
  const rows = await ch.query(
    `SELECT toString(toDate(timestamp) + 1) AS day, ${key} AS k, uniqExact(visitor_hash) AS n FROM ${clicks}
     PREWHERE account_id = {account:UUID} AND ${IN_DAYS("prev")}
     WHERE ${scope} AND (toDate(timestamp) + 1, ${key}, visitor_hash) IN
       (SELECT toDate(timestamp), ${key}, visitor_hash FROM ${clicks} WHERE ${scope} AND ${IN_DAYS("days")})
     GROUP BY day, k`,
    rawParams(sel, days),
  );
  return rows.map((r) => ({ day: String(r.day), key: String(r.k), n: num(r.n) }));
}

async function countCarriedOverlaps(ch: Clickhouse, sel: CellSelector, days: string[]): Promise<CellCount[]> {
  if (days.length === 0) return [];
  const scope = rawScope(sel);
  const key = SOURCES[sel.report].rawKey;
  const clicks = ch.table("clicks");
  const early = await ch.query<{ d: string; k: string; h: string }>(
    `SELECT DISTINCT toString(toDate(timestamp)) AS d, ${key} AS k, toString(visitor_hash) AS h FROM ${clicks}
     WHERE ${scope} AND ${IN_DAYS("days")} AND timestamp < toDateTime(toDate(timestamp), 'UTC') + ${CARRY_SECONDS}`,
    rawParams(sel, days),
  );
  if (early.length === 0) return [];
  const before = await ch.query<{ d: string; k: string; h: string }>(
    `SELECT DISTINCT toString(toDate(timestamp) + 1) AS d, ${key} AS k, toString(visitor_hash) AS h FROM ${clicks}
     PREWHERE account_id = {account:UUID} AND ${IN_DAYS("prev")}
     WHERE ${scope} AND visitor_hash IN {hashes:Array(UInt64)}`,
    { ...rawParams(sel, days), hashes: [...new Set(early.map((e) => e.h))].map(BigInt) },
  );
  const seen = new Set(before.map((b) => `${b.d}|${b.k}|${b.h}`));
  const counts = new Map<string, CellCount>();
  for (const e of early) {
    if (!seen.has(`${e.d}|${e.k}|${e.h}`)) continue;
    const id = `${e.d}|${e.k}`;
    const c = counts.get(id) ?? { day: e.d, key: String(e.k), n: 0 };
    c.n++;
    counts.set(id, c);
  }
  return [...counts.values()];
}

/** A report's read of its aggregate: one row per (day, cell) with columns ld, lk, lc (the day, the cell, its clicks) and lx, ly (the report's own). */
export interface LiveQuery {
  sql: string;
  params: Record<string, unknown>;
}

export interface FirstRound {
  live: { day: string; key: string; clicks: number; x: number; y: number }[];
  stored: StoredCell[];
  /** Today's clicks of the scope in its first hour (every cell): today's carried hashes are among them. */
  firstHourClicks: number;
}

/**
 * In one statement: the report's own read of its aggregate, the stored numbers of the range and, when the
 * range has today, the scope's clicks in today's first hour (clicks_hourly).
 */
export async function readFirstRound(
  ch: Clickhouse,
  sel: CellSelector,
  start: string,
  end: string,
  live: LiveQuery,
  today?: string,
): Promise<FirstRound> {
  const parts = [
    `SELECT 'l' AS t, toString(ld) AS d, toString(lk) AS k, toUInt64(lc) AS a, toUInt64(lx) AS b, toUInt64(ly) AS e, toUInt64(0) AS o FROM (${live.sql})`,
    `SELECT 's', toString(day), key, clicks, prev_clicks, visitors, overlap FROM ${ch.table("click_visitor_days")}
     WHERE account_id = {account:UUID} AND report = {report:String} AND bot = {bot:UInt8} AND domain = {domain:String}
       ${sel.key !== undefined ? "AND key = {key:String}" : ""} AND day >= {start:Date} AND day <= {end:Date}
     ORDER BY computed_at DESC LIMIT 1 BY day, key`,
  ];
  if (today)
    parts.push(
      `SELECT 'h', '', '', toUInt64(sum(clicks)), toUInt64(0), toUInt64(0), toUInt64(0) FROM ${ch.table("clicks_hourly")}
       WHERE account_id = {account:UUID} AND hour = toDateTime({today:Date}, 'UTC')
         ${sel.bot === 2 ? "" : "AND is_bot = {bot:UInt8}"} ${sel.domain === "*" ? "" : "AND domain = {domain:String}"}`,
    );
  const rows = await ch.query<{ t: string; d: string; k: string; a: string; b: string; e: string; o: string }>(
    parts.join("\nUNION ALL\n"),
    {
      ...live.params,
      ...rawParams(sel, today ? [today] : []),
      report: sel.report,
      start,
      end,
      today: today ?? end,
    },
  );
  const out: FirstRound = { live: [], stored: [], firstHourClicks: 0 };
  for (const r of rows) {
    const [day, k] = [String(r.d), String(r.k)];
    if (r.t === "l") out.live.push({ day, key: k, clicks: num(r.a), x: num(r.b), y: num(r.e) });
    else if (r.t === "s") out.stored.push({ day, key: k, clicks: num(r.a), prev_clicks: num(r.b), visitors: num(r.e), overlap: num(r.o) });
    else out.firstHourClicks = num(r.a);
  }
  return out;
}

// ---- the job ----

/** Account-days of a report whose stored numbers are missing or no longer match the aggregate's clicks. */
export async function findStaleDays(ch: Clickhouse, report: VisitorReport, from: string, before: string): Promise<Map<string, string[]>> {
  const s = SOURCES[report];
  const params = { from, before, report };
  const [live, stored] = await Promise.all([
    ch.query(
      `SELECT toString(account_id) AS a, toString(${s.day}) AS d, sum(clicks) AS c FROM ${ch.table(s.table)}
       WHERE ${s.day} >= {from:Date} - 1 AND ${s.day} < {before:Date} GROUP BY a, d`,
      params,
    ),
    ch.query(
      `SELECT toString(account_id) AS a, toString(day) AS d, sum(clicks) AS c, sum(prev_clicks) AS p
       FROM ${ch.table("click_visitor_days")} FINAL
       WHERE report = {report:String} AND bot = 2 AND domain = '*' AND day >= {from:Date} AND day < {before:Date} GROUP BY a, d`,
      params,
    ),
  ]);
  const liveClicks = new Map(live.map((r) => [`${r.a}|${r.d}`, num(r.c)]));
  const storedRows = new Map(stored.map((r) => [`${r.a}|${r.d}`, { c: num(r.c), p: num(r.p) }]));
  const prevDay = (d: string) => new Date(Date.parse(d) - 86_400_000).toISOString().slice(0, 10);
  const nextDay = (d: string) => new Date(Date.parse(d) + 86_400_000).toISOString().slice(0, 10);
  const stale = new Map<string, Set<string>>();
  const mark = (a: string, d: string) => {
    if (d < from || d >= before) return;
    if (!stale.has(a)) stale.set(a, new Set());
    stale.get(a)!.add(d);
  };
  // A day with clicks, or the day after one (its overlap), needs its numbers; they hold if both days' clicks are unchanged.
  const days = new Set<string>();
  for (const k of liveClicks.keys()) {
    const [a, d] = k.split("|");
    days.add(`${a}|${d}`);
    days.add(`${a}|${nextDay(d)}`);
  }
  for (const k of storedRows.keys()) days.add(k);
  for (const k of days) {
    const [a, d] = k.split("|");
    const st = storedRows.get(k);
    const c = liveClicks.get(k) ?? 0;
    const p = liveClicks.get(`${a}|${prevDay(d)}`) ?? 0;
    if (!st ? c + p > 0 : st.c !== c || st.p !== p) mark(a, d);
  }
  return new Map([...stale].map(([a, ds]) => [a, [...ds].sort()]));
}

/** Computes and stores the numbers of these days of one account (from the aggregate's visitor sets, as migration 0231 does). */
export async function storeVisitorDays(ch: Clickhouse, report: VisitorReport, accountId: string, days: string[]): Promise<void> {
  const s = SOURCES[report];
  const prev = days.map((d) => new Date(Date.parse(d) - 86_400_000).toISOString().slice(0, 10));
  await ch.command(
    `INSERT INTO ${ch.table("click_visitor_days")} (account_id, report, bot, domain, key, day, clicks, prev_clicks, visitors, overlap, computed_at)
     SELECT account_id, {report:String}, b, dm, k, d, sumIf(clicks, role = 0), sumIf(clicks, role = 1),
       uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set), now64(3)
     FROM (SELECT account_id, ${s.day} + role AS d, ${s.key} AS k, b, dm, clicks, visitor_set, role FROM ${ch.table(s.table)}
       ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm
       WHERE account_id = {account:UUID} AND ${s.day} IN {read:Array(Date)})
     WHERE d IN {days:Array(Date)}
     GROUP BY account_id, d, b, dm, k`,
    { report, account: accountId, days, read: [...new Set([...days, ...prev])] },
  );
}
