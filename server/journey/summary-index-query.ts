// The SQL of the summaries' in-memory index (summary-index.ts): what the journey job loads of a scope's
// closed bundles (those that ended before the index's hour), and what a summary reads of the rest on
// each call, with the mark that validates the index (bundle counts and the mutations' mark). 64-bit
// hashes travel as two UInt32 halves and times as Float64 milliseconds, so that the rows parse as plain
// JSON numbers.
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkParams, mutationMarkSql } from "../storage/clickhouse/mutations";
import type { ClickhouseTable } from "../storage/clickhouse/tables";
import { WHOLE_ACCOUNT } from "./closed-days-query";

export interface IndexScope {
  accountId: string;
  /** A link id, or WHOLE_ACCOUNT. */
  scope: string;
}

const bundlesOf = (ch: Clickhouse, s: IndexScope) =>
  `${ch.table("journey_event_bundles")} WHERE account_id = {account:UUID}${s.scope === WHOLE_ACCOUNT ? "" : " AND link_id = {scope:UUID}"}`;
const at = (param: string) => `fromUnixTimestamp64Milli({${param}:Int64}, 'UTC')`;
const hi = (col: string) => `toUInt32(bitShiftRight(${col}, 32))`;
const lo = (col: string) => `toUInt32(bitAnd(${col}, 4294967295))`;
const ms = (col: string) => `toFloat64(toUnixTimestamp64Milli(${col}))`;
/** The time of a bundle's last conversion (type 5 in migration 0207's codes), ms; 0 without one. */
const LAST_CONVERSION = `toFloat64(if(has(types, 5), toUnixTimestamp64Milli(started) + arrayMax(arrayFilter((o, ty) -> ty = 5, times, types)), 0))`;
/** The loads are cut in this many slices by the hash's top bits (one JSON row of arrays each). */
const SLICES = 8;

/**
 * The tables an index is built from: the bundles, and the rollups whose closed hours are kept beside it
 * (queries.ts closedRollups). Their mutations (an erasure) are part of the index's mark.
 */
const MARK_TABLES: ClickhouseTable[] = [
  "journey_event_bundles",
  "journey_visitors_hourly",
  "journey_visitors_daily",
  "journey_tops_hourly",
  "journey_tops_daily",
];
const MUTATIONS = `${mutationMarkSql(MARK_TABLES)} AS mutations`;

/**
 * What validates an index: the bundles that ended before `until`, those after it that began before it,
 * and the mark of the mutations of the tables it is built from (storage/clickhouse/mutations.ts).
 */
export interface BundleCounts {
  closed: number;
  spanning: number;
  mutations: number;
}

/** Whether two marks are the same (the index they validate still holds). */
export const sameMark = (a: BundleCounts, b: BundleCounts) =>
  a.closed === b.closed && a.spanning === b.spanning && a.mutations === b.mutations;

/** The same with the closed bundles per UTC day of their end (ms → count). */
export interface DayCounts extends BundleCounts {
  days: Map<number, number>;
}

export async function countBundlesByDay(ch: Clickhouse, s: IndexScope, untilMs: number): Promise<DayCounts> {
  const b = bundlesOf(ch, s);
  const [row] = await ch.query<{ days: [number, string][]; spanning: string; mutations: string }>(
    `SELECT (SELECT groupArray((d, n)) FROM (SELECT toUnixTimestamp(toStartOfDay(ended)) * 1000 AS d, count() AS n FROM ${b} AND ended < ${at("until")} GROUP BY d)) AS days,
      (SELECT count() FROM ${b} AND ended >= ${at("until")} AND started < ${at("until")}) AS spanning, ${MUTATIONS}`,
    { ...mutationMarkParams(ch), account: s.accountId, scope: s.scope, until: untilMs },
  );
  const days = new Map<number, number>((row?.days ?? []).map(([d, n]) => [Number(d), Number(n)]));
  let closed = 0;
  for (const n of days.values()) closed += n;
  return { closed, spanning: Number(row?.spanning ?? 0), mutations: Number(row?.mutations ?? 0), days };
}

/** Rows sorted by their 64-bit key (two UInt32 halves) with number columns, loaded slice by slice. */
export interface KeyedRows {
  hi: Uint32Array;
  lo: Uint32Array;
  values: Float64Array[];
}

/** Which bundles a load reads: those that ended in [since, until), and with `days` only those days' (UTC, ms). */
export interface LoadRange {
  sinceMs: number;
  untilMs: number;
  days?: number[];
}

async function loadKeyed(
  ch: Clickhouse,
  s: IndexScope,
  key: string,
  aggregates: string[],
  range: LoadRange,
  where = "",
): Promise<KeyedRows> {
  const parts: { h: number[]; l: number[]; v: number[][] }[] = [];
  // A few days (a merge) are read at once, from the first of them (the key's range).
  const slices = range.days ? 1 : SLICES;
  const since = range.days ? Math.max(range.sinceMs, Math.min(...range.days)) : range.sinceMs;
  if (range.days?.length === 0)
    return { hi: new Uint32Array(0), lo: new Uint32Array(0), values: aggregates.map(() => new Float64Array(0)) };
  for (let slice = 0; slice < slices; slice++) {
    const [row] = await ch.query<{ h: number[]; l: number[]; v: number[][] }>(
      `SELECT groupArray(${hi("k")}) AS h, groupArray(${lo("k")}) AS l, (${aggregates.map((_, i) => `groupArray(a${i})`).join(", ")}) AS v FROM (
        SELECT ${key} AS k, ${aggregates.map((a, i) => `${a} AS a${i}`).join(", ")} FROM ${bundlesOf(ch, s)}
          AND ended >= ${at("since")} AND ended < ${at("until")}${where}${slices > 1 ? ` AND bitShiftRight(${key}, 61) = {slice:UInt8}` : ""}${
            range.days ? " AND toUnixTimestamp(toStartOfDay(ended)) * 1000 IN {days:Array(Int64)}" : ""
          }
        GROUP BY k ORDER BY k)`,
      { account: s.accountId, scope: s.scope, since, until: range.untilMs, days: range.days ?? [], slice },
    );
    if (row) parts.push(row);
  }
  const n = parts.reduce((sum, p) => sum + p.h.length, 0);
  const out: KeyedRows = { hi: new Uint32Array(n), lo: new Uint32Array(n), values: aggregates.map(() => new Float64Array(n)) };
  let at0 = 0;
  for (const p of parts) {
    out.hi.set(p.h, at0);
    out.lo.set(p.l, at0);
    out.values.forEach((col, i) => col.set(p.v[i], at0));
    at0 += p.h.length;
  }
  return out;
}

/** Visitors: [last bundle end, last conversion (0: none)], ms. */
export const loadVisitorRows = (ch: Clickhouse, s: IndexScope, range: LoadRange) =>
  loadKeyed(ch, s, "vh", [`max(${ms("ended")})`, `max(${LAST_CONVERSION})`], range);

/** Sessions (a link's; the empty session id is not one): [first event, last bundle end], ms. */
export const loadSessionRows = (ch: Clickhouse, s: IndexScope, range: LoadRange) =>
  loadKeyed(ch, s, "sid", [`min(${ms("started")})`, `max(${ms("ended")})`], range, " AND sid != 0");

/** The bundles that ended at or after `until` (the open part), column by column, and the counts beside them. */
export interface OpenBundles extends BundleCounts {
  vhHi: number[];
  vhLo: number[];
  sidHi: number[];
  sidLo: number[];
  started: number[];
  ended: number[];
  /** Each bundle's last conversion, ms (0: none); empty unless asked. */
  converted: number[];
  /**
   * The events dated from `until` on (the rollups' open hours): every such event is in a bundle that
   * ended at or after `until`, so they are counted from these bundles' event times.
   */
  events: number;
  /** The values of the caller's `beside` columns. */
  beside: Record<string, unknown>;
}

/** More scalar columns read in the same statement (one round trip): SQL text and its parameters. */
export interface Beside {
  columns: string[];
  params: Record<string, unknown>;
}

/**
 * For statements of a few small reads (a key range of a few thousand rows each, or a count the key
 * answers): one thread each, as a thread pool's start costs more than such a read (in chDB, about
 * 2 ms of 4 per read on the journey bench).
 */
export const SMALL_READS = "SETTINGS max_threads = 1";

/** The open bundles' events dated from `until` on. */
const OPEN_EVENTS = `sum(arrayCount(o -> toUnixTimestamp64Milli(started) + o >= {until:Int64}, times))`;

export async function readOpenBundles(
  ch: Clickhouse,
  s: IndexScope,
  untilMs: number,
  converters: boolean,
  beside: Beside = { columns: [], params: {} },
  /** What else to read: the visitors (else their keys read as 0) and the open events (else 0). */
  read: { visitors: boolean; events: boolean } = { visitors: true, events: false },
): Promise<OpenBundles> {
  const sessionsOnly = !read.visitors;
  const b = bundlesOf(ch, s);
  const cols = [
    sessionsOnly ? "0" : hi("vh"),
    sessionsOnly ? "0" : lo("vh"),
    hi("sid"),
    lo("sid"),
    ms("started"),
    ms("ended"),
    converters ? LAST_CONVERSION : "0",
  ];
  const [row] = await ch.query<Record<string, unknown>>(
    `SELECT (SELECT count() FROM ${b} AND ended < ${at("until")}) AS closed,
      (SELECT (${cols.map((c) => `groupArray(${c})`).join(", ")}, ${read.events ? OPEN_EVENTS : "0"}) FROM ${b} AND ended >= ${at("until")}) AS open,
      ${MUTATIONS}${beside.columns.map((c) => `, ${c}`).join("")}
    ${SMALL_READS}`,
    { ...beside.params, ...mutationMarkParams(ch), account: s.accountId, scope: s.scope, until: untilMs },
  );
  const open = (row?.open ?? [[], [], [], [], [], [], [], 0]) as [...number[][], number | string];
  const [vhHi, vhLo, sidHi, sidLo, started, ended, converted] = open as number[][];
  return {
    closed: Number(row?.closed ?? 0),
    spanning: started.filter((t) => t < untilMs).length,
    mutations: Number(row?.mutations ?? 0),
    vhHi,
    vhLo,
    sidHi,
    sidLo,
    started,
    ended,
    converted: converters ? converted : [],
    events: Number(open[7] ?? 0),
    beside: row ?? {},
  };
}
