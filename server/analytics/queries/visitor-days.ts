// Click visitors per day and report cell: the stored numbers of closed days (rows of the report's own
// aggregate, migration 0270; before it click_visitor_days, 0231), the same numbers counted from the raw
// clicks for the days a report cannot take from them (today, days whose clicks changed since), and the
// job's refresh. How they add up: ../visitor-days.ts.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickhouseTable } from "../../storage/clickhouse/tables";
import { num } from "./scope";
import type { UsageProbe } from "../model";

/** How long after midnight a click may keep the previous day's visitor hash (ingest/clicks/enrich/visitor-hash.ts). */
const CARRY_SECONDS = 30 * 60;

export type VisitorReport = "total" | "hour" | "country" | "referrer" | "link";
export const VISITOR_REPORTS: VisitorReport[] = ["total", "hour", "country", "referrer", "link"];

/**
 * Where each report's cells come from: its aggregate (day and key columns), the same key on the raw
 * clicks, the condition that picks one cell's rows (a link) and how the job writes a stored row (columns,
 * then their values from the day d, the key k, the domain dm and the bot b).
 */
const SOURCES: Record<
  VisitorReport,
  { table: ClickhouseTable; day: string; key: string; rawKey: string; keyIs?: string; columns: string; values: string }
> = {
  total: { table: "clicks_daily", day: "day", key: "''", rawKey: "''", columns: "day", values: "d" },
  hour: {
    table: "clicks_hourly",
    day: "toDate(hour)",
    key: "toString(toHour(hour))",
    rawKey: "toString(toHour(timestamp))",
    columns: "hour",
    values: "toDateTime(d, 'UTC') + toUInt32(k) * 3600",
  },
  country: {
    table: "clicks_daily_geo",
    day: "day",
    key: "toString(country_code)",
    rawKey: "toString(country_code)",
    columns: "day, country_code",
    values: "d, k",
  },
  referrer: { table: "clicks_daily_referrers", day: "day", key: "referrer", rawKey: "referrer", columns: "day, referrer", values: "d, k" },
  link: {
    table: "clicks_daily_links",
    day: "day",
    key: "toString(link_id)",
    rawKey: "toString(link_id)",
    keyIs: "link_id = toUUID({key:String})",
    columns: "link_id, day",
    values: "toUUID(k), d",
  },
};

/** The side of the usage rows (the account's clicks per day, ClickScope.usage) in a report's statement. */
export const USAGE_SIDE = 9;

/** A stored row's is_bot: 10 + the selector's bot (migration 0270); the live rows' is_bot is 0 or 1. */
const STORED_BOT = 10;

/** Which cells a report reads: bot 0 people, 1 bots, 2 both; domain '*' for every domain; key for one cell (a link). */
export interface CellSelector {
  accountId: string;
  report: VisitorReport;
  bot: 0 | 1 | 2;
  domain: string;
  key?: string;
  /** The usage figures to read in the same statement (ClickScope.usage). */
  usage?: UsageProbe;
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

/**
 * A report's read of its aggregate: `columns` give ld (the day), lk (the cell), lc (clicks), lx (a number
 * of the report's own kept as a maximum, such as the last click) and ly (one kept as a sum) of the rows
 * `where` picks (live rows only: is_bot below 10). readCells reads the cells' stored rows in the same scan.
 */
export interface LiveQuery {
  table: ClickhouseTable;
  columns: string;
  where: string;
  params: Record<string, unknown>;
}

/** Per cell over the range (or per day): the live clicks, the report's own numbers and the stored numbers that hold. */
export interface CellSums {
  clicks: number;
  x: number;
  y: number;
  /** Σ stored visitors of the (day, cell)s whose numbers hold; Σ stored overlaps of those after the range's first day. */
  visitors: number;
  overlap: number;
}

/** What a report's one statement answers (readCells). */
export interface CellRead {
  byKey: Map<string, CellSums>;
  byDay: Map<string, CellSums>;
  /** The closed (day, cell)s with clicks whose stored visitors (n) or overlap (o) do not hold. */
  stale: { day: string; key: string; n: boolean; o: boolean }[];
  /** Today's distinct visitors per cell, from the raw clicks (when the range has today). */
  today: Map<string, number>;
  /** Today's clicks of the scope in its first 30 minutes (today's carried hashes are among them). */
  todayEarlyClicks: number;
  /** The rows of the extra parts. */
  extras: { side: number; d: string; k: string; a: number; b: number }[];
}

/** A part of the statement beside the cells (extraPart's columns: side 4 or more, then two numbers). */
export interface ExtraQuery {
  sql: string;
  params: Record<string, unknown>;
}

const U64 = (e: string) => `toUInt64(${e})`;
/** The stored tuple of a part without stored rows (migration 0270's column type). */
const NO_STORED = "tuple(toDateTime64(0, 3, 'UTC'), toUInt64(0), toUInt64(0), toUInt64(0), toUInt64(0))";
export const extraPart = (side: number, a: string, b = "0") =>
  `SELECT toUInt8(${side}) AS side, '' AS dd, '' AS kk, ${U64(a)} AS lc, ${U64(b)} AS sv, ${["so", "x", "y", "a", "b", "u"].map((c) => `${U64("0")} AS ${c}`).join(", ")},
   ${NO_STORED} AS st`;

/** The selector's stored rows of the range's closed days in its aggregate (migration 0270). */
function storedRows(sel: CellSelector) {
  const s = SOURCES[sel.report];
  return [
    "is_bot = {stored_bot:UInt8} AND domain = {domain:String}",
    `${s.day} >= {start:Date} AND ${s.day} <= {end:Date} AND ${s.day} < {today:Date}`,
    sel.key !== undefined ? (s.keyIs ?? "1") : "",
  ]
    .filter(Boolean)
    .join(" AND ");
}

/**
 * In one statement, one scan of the report's aggregate for its live rows and its stored rows, with the
 * cells summed per cell (side 0) and per day (side 1) so that no per-(day, cell) row crosses the wire. Per
 * (day, cell): the live clicks, the same rows a day later (the clicks of the day before) and the latest
 * stored numbers (`max` of the stored tuples, merged or not); a closed day's stored visitors hold while
 * its stored clicks are the live ones (clicks are only ever added), its overlap while the day before's are
 * too. Only the numbers that hold are summed; the (day, cell)s with clicks whose numbers do not are listed
 * (side 3), for the raw clicks to count. When the range has today: today's visitors per cell from the raw
 * clicks (side 2). Then the report's extra parts (side 4 and up). Columns: side, dd, kk, lc, sv, so, x,
 * y, a, b (a, b: the numbers of stale visitors and overlaps).
 */
export async function readCells(
  ch: Clickhouse,
  sel: CellSelector,
  range: { start: string; end: string },
  today: string,
  live: LiveQuery,
  extras: ExtraQuery[],
): Promise<CellRead> {
  const s = SOURCES[sel.report];
  const stored = storedRows(sel);
  // The usage: every click of the account per day since usage.from, from this same aggregate (each holds
  // every click), except clicks_daily_links, whose rows are sorted by link first: there a scan of every
  // link's month costs more than a read of clicks_daily of its own.
  const inScan = sel.usage !== undefined && live.table !== "clicks_daily_links";
  const usage = inScan ? `is_bot < 2 AND ${s.day} >= {usage_from:Date}` : "";
  if (sel.usage && !inScan)
    extras = [
      ...extras,
      {
        sql: `SELECT toUInt8(${USAGE_SIDE}) AS side, toString(day) AS dd, '' AS kk, toUInt64(sum(clicks)) AS lc,
                ${["sv", "so", "x", "y", "a", "b", "u"].map((c) => `${U64("0")} AS ${c}`).join(", ")}, ${NO_STORED} AS st
              FROM ${ch.table("clicks_daily")} WHERE account_id = {account:UUID} AND day >= {usage_from:Date} AND is_bot < 2 GROUP BY day`,
        params: {},
      },
    ];
  // One aggregation level: the per-(day, cell) rows come back and are checked and summed here (a second
  // level in ClickHouse, with the day before's clicks joined by shifting the rows, cost ~3× the CPU).
  const parts = [
    `SELECT toUInt8(0) AS side, toString(d0) AS dd, k AS kk, sum(c0) AS lc, tupleElement(st, 4) AS sv, tupleElement(st, 5) AS so,
       max(x0) AS x, sum(y0) AS y, tupleElement(st, 2) AS a, tupleElement(st, 3) AS b, sum(uc) AS u, maxIf(st0, is_stored) AS st
     FROM (SELECT toDate(ld) AS d0, toString(lk) AS k, if(is_live, ${U64("lc")}, 0) AS c0, if(is_live, ${U64("lx")}, 0) AS x0,
             if(is_live, ${U64("ly")}, 0) AS y0, is_stored, st0, uc
           FROM (SELECT ${live.columns}, (${live.where}) AS is_live, ${stored} AS is_stored, stored AS st0,
                   ${usage ? `if(${usage}, ${U64("clicks")}, 0)` : U64("0")} AS uc
                 FROM ${ch.table(live.table)}
                 WHERE (${live.where}) OR (account_id = {account:UUID} AND ${stored})${usage ? ` OR (account_id = {account:UUID} AND ${usage})` : ""}))
     GROUP BY d0, k`,
  ];
  const open = range.start <= today && range.end >= today;
  if (open)
    parts.push(
      `SELECT toUInt8(2), '', toString(${s.rawKey}) AS rk, ${U64("uniqExact(visitor_hash)")}, ${U64("0")}, ${U64("0")},
         ${U64(`countIf(timestamp < toDateTime({today:Date}, 'UTC') + ${CARRY_SECONDS})`)}, ${U64("0")}, ${U64("0")}, ${U64("0")}, ${U64("0")},
         ${NO_STORED}
       FROM ${ch.table("clicks")} WHERE ${rawScope(sel)} AND toDate(timestamp) = {today:Date} GROUP BY rk`,
    );
  parts.push(...extras.map((e) => e.sql));
  const rows = await ch.query<Record<string, string | number>>(parts.join("\nUNION ALL\n"), {
    ...Object.assign({}, ...extras.map((e) => e.params)),
    ...live.params,
    ...rawParams(sel, open ? [today] : []),
    stored_bot: STORED_BOT + sel.bot,
    usage_from: sel.usage?.from ?? today,
    report: sel.report,
    start: range.start,
    end: range.end,
    today,
  });
  const out: CellRead = { byKey: new Map(), byDay: new Map(), stale: [], today: new Map(), todayEarlyClicks: 0, extras: [] };
  const cells: { d: string; k: string; lc: number; x: number; y: number; sc: number; sp: number; sv: number; so: number }[] = [];
  const usageDaily = new Map<string, number>();
  for (const r of rows) {
    const side = num(r.side);
    if (side === 0) {
      const d = String(r.dd);
      if (num(r.u) > 0) usageDaily.set(d, (usageDaily.get(d) ?? 0) + num(r.u));
      if (num(r.lc) > 0 || num(r.y) > 0)
        cells.push({
          d,
          k: String(r.kk),
          lc: num(r.lc),
          x: num(r.x),
          y: num(r.y),
          sc: num(r.a),
          sp: num(r.b),
          sv: num(r.sv),
          so: num(r.so),
        });
    } else if (side === 2) {
      out.today.set(String(r.kk), num(r.lc));
      out.todayEarlyClicks += num(r.x);
    } else out.extras.push({ side, d: String(r.dd), k: String(r.kk), a: num(r.lc), b: num(r.sv) });
  }
  for (const [d, n] of usageDaily) out.extras.push({ side: USAGE_SIDE, d, k: "", a: n, b: 0 });
  // A closed (day, cell)'s stored visitors hold while its stored clicks are the live ones (clicks are only
  // ever added), its overlap while the day before's are too.
  const liveClicks = new Map(cells.map((c) => [`${c.d}|${c.k}`, c.lc]));
  const add = (m: Map<string, CellSums>, id: string, c: (typeof cells)[number], v: number, o: number) => {
    const s = m.get(id) ?? { clicks: 0, x: 0, y: 0, visitors: 0, overlap: 0 };
    s.clicks += c.lc;
    s.x = Math.max(s.x, c.x);
    s.y += c.y;
    s.visitors += v;
    s.overlap += o;
    m.set(id, s);
  };
  for (const c of cells) {
    const nOk = c.d < today && c.lc === c.sc;
    const oOk = nOk && c.sp === (liveClicks.get(`${addDay(c.d, -1)}|${c.k}`) ?? 0);
    const later = c.d > range.start;
    add(out.byKey, c.k, c, nOk ? c.sv : 0, oOk && later ? c.so : 0);
    add(out.byDay, c.d, c, nOk ? c.sv : 0, oOk && later ? c.so : 0);
    if (c.d < today && !oOk && (later || !nOk)) out.stale.push({ day: c.d, key: c.k, n: !nOk, o: !oOk && later });
  }
  return out;
}

// ---- the job ----

/** Account-days of a report whose stored numbers are missing or no longer match the aggregate's clicks. */
export async function findStaleDays(
  ch: Clickhouse,
  report: VisitorReport,
  from: string,
  before: string,
  only?: Map<string, string[]>,
): Promise<Map<string, string[]>> {
  const s = SOURCES[report];
  // Only these accounts' days (and the day before each, for the overlap): the days that received clicks.
  const pairs = only ? [...only].flatMap(([a, days]) => days.flatMap((d) => [`${a}|${d}`, `${a}|${prevDayOf(d)}`])) : [];
  const inPairs = (day: string) => (only ? `AND concat(toString(account_id), '|', toString(${day})) IN {pairs:Array(String)}` : "");
  const params = { from, before, pairs, stored_bot: STORED_BOT };
  const [live, stored] = await Promise.all([
    ch.query(
      `SELECT toString(account_id) AS a, toString(${s.day}) AS d, sum(clicks) AS c FROM ${ch.table(s.table)}
       WHERE is_bot < {stored_bot:UInt8} AND ${s.day} >= {from:Date} - 1 AND ${s.day} < {before:Date} ${inPairs(s.day)} GROUP BY a, d`,
      params,
    ),
    // Per cell the latest stored numbers (merged or not), summed per account and day.
    ch.query(
      `SELECT toString(account_id) AS a, toString(sd) AS d, sum(tupleElement(st, 2)) AS c, sum(tupleElement(st, 3)) AS p
       FROM (SELECT account_id, ${s.day} AS sd, ${s.key} AS k, max(stored) AS st FROM ${ch.table(s.table)}
             WHERE is_bot = {stored_bot:UInt8} + 2 AND domain = '*' AND ${s.day} >= {from:Date} AND ${s.day} < {before:Date} ${inPairs(s.day)}
             GROUP BY account_id, sd, k)
       GROUP BY a, d`,
      params,
    ),
  ]);
  const liveClicks = new Map(live.map((r) => [`${r.a}|${r.d}`, num(r.c)]));
  const storedRows = new Map(stored.map((r) => [`${r.a}|${r.d}`, { c: num(r.c), p: num(r.p) }]));
  const prevDay = prevDayOf;
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
    if (only && !only.get(a)?.includes(d)) continue;
    if (!st ? c + p > 0 : st.c !== c || st.p !== p) mark(a, d);
  }
  return new Map([...stale].map(([a, ds]) => [a, [...ds].sort()]));
}

/**
 * Computes and stores the numbers of these days of one account (from the aggregate's visitor sets, as
 * migration 0231 did) as stored rows of the aggregate (migration 0270). The versions they replace stay
 * until the table merges them; readers take the latest (`max` of the stored tuples).
 */
export async function storeVisitorDays(ch: Clickhouse, report: VisitorReport, accountId: string, days: string[]): Promise<void> {
  const s = SOURCES[report];
  const prev = days.map(prevDayOf);
  const params = { account: accountId, days, read: [...new Set([...days, ...prev])], at: Date.now(), stored_bot: STORED_BOT };
  await ch.command(
    `INSERT INTO ${ch.table(s.table)} (account_id, ${s.columns}, domain, is_bot, stored)
     SELECT account_id, ${s.values}, dm, b + {stored_bot:UInt8},
       (fromUnixTimestamp64Milli({at:Int64}, 'UTC'), sumIf(clicks, role = 0), sumIf(clicks, role = 1),
        uniqExactMergeIf(visitor_set, role = 0) AS v, v + uniqExactMergeIf(visitor_set, role = 1) - uniqExactMerge(visitor_set))
     FROM (SELECT account_id, ${s.day} + role AS d, ${s.key} AS k, b, dm, clicks, visitor_set, role FROM ${ch.table(s.table)}
       ARRAY JOIN [0, 1] AS role ARRAY JOIN [is_bot, 2] AS b ARRAY JOIN [toString(domain), '*'] AS dm
       WHERE account_id = {account:UUID} AND is_bot < {stored_bot:UInt8} AND ${s.day} IN {read:Array(Date)})
     WHERE d IN {days:Array(Date)}
     GROUP BY account_id, d, b, dm, k`,
    params,
  );
}

const prevDayOf = (d: string) => new Date(Date.parse(d) - 86_400_000).toISOString().slice(0, 10);
const addDay = (d: string, n: number) => new Date(Date.parse(d) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * The accounts' days that received clicks in the last `seconds` (by ClickHouse's clock, migration 0240),
 * and the days of `closing` (days that have ended since the job's last round) that have clicks.
 */
export async function findTouchedDays(ch: Clickhouse, seconds: number, closing: string[]): Promise<Map<string, string[]>> {
  const rows = await ch.query<{ a: string; d: string }>(
    `SELECT DISTINCT toString(account_id) AS a, toString(day) AS d FROM ${ch.table("click_days_touched")}
     WHERE touched_at >= toStartOfMinute(now() - {seconds:UInt32})
     UNION DISTINCT
     SELECT DISTINCT toString(account_id), toString(day) FROM ${ch.table("clicks_daily")}
     WHERE day IN {closing:Array(Date)} AND is_bot < {stored_bot:UInt8}`,
    { seconds: Math.ceil(seconds), closing, stored_bot: STORED_BOT },
  );
  const days = new Map<string, string[]>();
  for (const r of rows) days.set(r.a, [...(days.get(r.a) ?? []), r.d]);
  return days;
}
