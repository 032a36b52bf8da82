// The funnel from stored per-visitor states of the period's closed hours (migration 0250) plus the bundles
// of the current hour (and events dated ahead). A visitor's funnel level (funnel-query.ts) is a function
// of their state over the period: t0, the first step-1 entry, and per k ≥ 1 (0-based steps) b_k, the first
// entry at or after t0 matching a step ≥ k (its time and lowest such step); a_k is the same without "at or
// after t0". States of consecutive time ranges combine exactly: t0 is the earliest t0, and b_k the minimum
// of the b_k of the range holding t0 and the a_k of the ranges after it. So a call reads the stored level
// counts of the closed hours' visitors, and corrects them for the visitors with an event in the current
// hour only (their stored state is looked up and combined with the current hour's). The lookup is in this
// process's memory (RangeVisitors, below): a stored range never changes, so its visitors' levels are read
// once and kept, and only the visitors whose level the current hour can still change are corrected. Two
// kinds need more, kept beside: visitors whose t0 is in the range's first hour (the window can cut their
// chain at this hour's entries: windowFunnel's run over their kept entries, window-funnel.ts), and
// visitors with a batch across the hour's start whose stored entries may interleave with its own (their
// whole state is read by key, acrossLevel). What neither decides goes through windowFunnel. The stored range is
// used only when its bundle rows still count as many as it was computed from (bundle rows are only ever
// added); otherwise the caller computes from the bundles. Written by the journey job (report-cache-job.ts),
// once an hour per funnel asked lately, never by a report. The code combines three parts (before, in and
// after the stored range) so that a range starting later than the period (not used today) would work too.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { LinkRange } from "./link-range";
import { DAY_MS, HOUR_MS } from "../reports/period";
import { advance, copyRun, levelOf, startRun, windowFunnelLevel, type FunnelRun, type StepEntry } from "./window-funnel";

const STEP_BITS = 20;
const TIME_PART = "0xFFFFFFFFFFF00000";
const NONE = "toUInt64(-1)";
/** The level of the visitors the window may cut, sent through windowFunnel itself (funnel-query.ts). */
export const FALLBACK_LEVEL = 255;
const BUNDLE_EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"];

const bits = (from: number, to: number) => (2 ** to - 2 ** from).toString(); // bits from..to-1

/** The stored range of a period starting at `fromMs` (a whole hour): its closed hours. */
export function closedRangeOf(fromMs: number, nowMs: number) {
  return { firstMs: fromMs, endMs: Math.floor(nowMs / HOUR_MS) * HOUR_MS };
}
/** A period's start, as the reports compute it (journey/read.ts periodStartMs). */
export const periodFromMs = (periodMs: number, nowMs: number) => Math.floor((nowMs - periodMs) / HOUR_MS) * HOUR_MS;

/** The steps an event matches, as a mask: of an event (`ty`, `lb`), and of a page view's name (`nm`). */
function masksSql(steps: string[], params: Record<string, unknown>) {
  const mask = (conditions: string[]) => conditions.map((c, i) => `${c} * ${2 ** i}`).join(" + ");
  const labels = steps.map((step, i) => {
    params[`s${i}`] = step;
    const type = BUNDLE_EVENT_TYPES.indexOf(step) + 1;
    return `(lb = cityHash64({s${i}:String})${type > 0 ? ` OR ty = ${type}` : ""})`;
  });
  const names = steps.map((_, i) => `(nm = cityHash64({s${i}:String}))`);
  return { events: mask(labels), names: mask(names) };
}

/** The steps' masks of a bundle's entries, absolute ms << 20 | the steps the event matches. */
function entriesSql(steps: string[], params: Record<string, unknown>) {
  const masks = masksSql(steps, params);
  const entry = (steps: string) => `bitOr(bitShiftLeft(toUInt64(toUnixTimestamp64Milli(started) + o), ${STEP_BITS}), ${steps})`;
  // A page view's event_name is a second entry at the same time (windowFunnel takes the union of the two).
  return `arrayConcat(arrayMap((o, ty, lb) -> ${entry(masks.events)}, times, types, labels),
    arrayMap((o, nm) -> ${entry(masks.names)}, named_views, view_names))`;
}

/** Per (vh, part): t0 and the arrays a and b, from the bundles `where` selects (entries from `{fromE}` on). */
function statesSql(ch: Clickhouse, n: number, entries: string, where: string, part: string) {
  const ks = Array.from({ length: n - 1 }, (_, i) => i + 1);
  const first = (k: number, after: boolean) => {
    const ge = bits(k, STEP_BITS);
    const lowest = `bitAnd(bitAnd(x, ${ge}), bitNot(bitAnd(x, ${ge})) + 1)`;
    // arrayMin of an empty array is 0: NONE pushed so that a visitor without such an entry has NONE.
    return `arrayMin(arrayPushBack(arrayMap(x -> if(${after ? "x >= T0 AND " : ""}bitAnd(x, ${ge}) != 0, bitOr(bitAnd(x, ${TIME_PART}), ${lowest}), ${NONE}), R), ${NONE}))`;
  };
  const arr = (after: boolean) => (ks.length ? `[${ks.map((k) => first(k, after)).join(", ")}]` : "CAST([], 'Array(UInt64)')");
  return `
    SELECT vh, part, T0 AS t0, ${arr(false)} AS a, ${arr(true)} AS b
    FROM (
      SELECT vh, part, min(bt0) AS T0, groupArrayArray(r) AS R
      FROM (
        SELECT vh, ${part} AS part, arrayFilter(x -> x >= {fromE:UInt64}, ${entries}) AS e,
          arrayMin(arrayPushBack(arrayMap(x -> if(bitAnd(x, 1) != 0, bitAnd(x, ${TIME_PART}), ${NONE}), e), ${NONE})) AS bt0,
          arrayFilter(x -> bitAnd(x, ${bits(1, n)}) != 0, e) AS r
        FROM ${ch.table("journey_event_bundles")} WHERE ${where})
      GROUP BY vh, part)`;
}

/** A visitor's level from their combined t0 and b (p_k), as funnel-query.ts defines it. */
function levelSql(n: number, t0: string, p: string) {
  const ks = Array.from({ length: n - 1 }, (_, i) => i + 1);
  return `multiIf(${t0} = ${NONE}, 0, ${ks.map((k) => `bitAnd(${p}[${k}], ${bits(0, STEP_BITS)}) != ${2 ** k}, ${k}, `).join("")}${n})`;
}

const LINK = "account_id = {account:UUID} AND link_id = {link:UUID}";
const KEY = `${LINK} AND funnel = {funnel:String} AND range_start = toDateTime(fromUnixTimestamp64Milli({first:Int64}, 'UTC')) AND range_end = toDateTime(fromUnixTimestamp64Milli({end:Int64}, 'UTC'))`;
const at = (p: string) => `fromUnixTimestamp64Milli({${p}:Int64}, 'UTC')`;
const IN_RANGE = `${LINK} AND ended >= ${at("first")} AND ended < ${at("end")}`;
/** The latest row of the range: (bundles, levels, computed_at). */
const STORED = (ch: Clickhouse) =>
  `(SELECT (argMax(bundles, computed_at), argMax(levels, computed_at), max(computed_at)) FROM ${ch.table("journey_funnel_ranges")} WHERE ${KEY})`;

/** A stored range's row (journey_funnel_ranges): its bundle rows, visitors per level, computed_at (ms). */
interface RangeRow {
  bundles: string;
  levels: string[];
  computed: string | number;
}
/** The rows of the ranges found current lately, by range (a row with as many bundles is the same state). */
const rangeRows = new Map<string, RangeRow>();
async function readRangeRow(ch: Clickhouse, params: Record<string, unknown>): Promise<RangeRow | undefined> {
  const [row] = await ch.query<RangeRow>(
    `WITH ${STORED(ch)} AS stored SELECT stored.1 AS bundles, stored.2 AS levels, toUnixTimestamp64Milli(stored.3) AS computed`,
    params,
  );
  return row;
}

/** An entry of the current hour's, or a stored first entry: its time and the bit of its (lowest) step. */
interface Entry {
  ms: number;
  bit: number;
}
const NO_ENTRY: Entry = { ms: Number.POSITIVE_INFINITY, bit: 0 };
const earlier = (x: Entry, y: Entry) => (x.ms < y.ms || (x.ms === y.ms && x.bit < y.bit) ? x : y);
/** A stored visitor as a report needs it: their level, whether this hour can raise it, and their t0. */
interface StoredVisitor {
  level: number;
  /** Below the last step, with no entry of a later step after t0 (b_level is none): later entries can raise it. */
  open: boolean;
  t0Ms: number;
  /** For a visitor whose t0 is in the range's first hour (RangeVisitors.firstHour). */
  firstHour?: FirstHourVisitor;
  /** No stored bundle of theirs ended after this (RangeVisitors.lastEnded); undefined: unknown. */
  lastEndedMs?: number;
}

/** Per visitor of a stored range: (t0 ms << 8) | (level << 1) | open; the rows of `where` with their t0, b and level. */
function packedSql(ch: Clickhouse, n: number, where: string) {
  const open = n > 1 ? `level > 0 AND level < ${n} AND b[level] = ${NONE}` : "0";
  return `SELECT vh, bitOr(bitShiftLeft(if(t0 = ${NONE}, 0, bitShiftRight(t0, ${STEP_BITS})), 8), toUInt64(level * 2 + (${open}))) AS p
    FROM (SELECT vh, t0, b, ${levelSql(n, "t0", "b")} AS level FROM ${ch.table("journey_funnel_states")} WHERE ${where})`;
}
const unpack = (p: bigint): StoredVisitor => ({ level: Number((p >> 1n) & 127n), open: (p & 1n) === 1n, t0Ms: Number(p >> 8n) });

/** A stored range's visitors, sorted by hash, and each one's packed state (packedSql). */
interface RangeVisitors {
  vh: BigUint64Array;
  packed: BigUint64Array;
  /**
   * The entries (RISKY_ENTRIES) of the visitors whose t0 lies in the range's first hour, by hash: the only
   * ones whose level an entry of the current hour can reach more than a window after t0 (the range is one
   * period long); null when there are too many to keep.
   */
  firstHour: Map<bigint, FirstHourVisitor> | null;
  /**
   * The end of the last stored bundle of each visitor with one ending in the range's last day (~1/30 of
   * them for 30 days); the others' all ended a day before the range's end, before any entry of a bundle
   * ending after it (a bundle holds one UTC day).
   */
  lastEnded: Map<bigint, number>;
}
/** A first-hour visitor's stored entries (time and mask side by side, 16 bytes an entry), and windowFunnel's run over them. */
interface FirstHourVisitor {
  flat: Float64Array;
  run: FunnelRun;
  /** The run's window: the range's length (a period's). */
  windowMs: number;
}
/** At most this many entries of a range's first-hour visitors are kept (16 bytes each). */
export const RISKY_ENTRIES = { limit: 500_000 };
/**
 * The stored ranges' visitors kept in this process, by range and computed_at (a stored range's rows never
 * change: a range computed again has a later computed_at). 16 bytes a visitor (~7 MB for the bench's
 * 30-day funnel of 456,000 visitors), at most KEPT_LIMIT (32 MB) in all, the least recently used dropped
 * first; a range larger than that is looked up in ClickHouse on each call instead.
 */
const kept = new Map<string, Promise<RangeVisitors | null>>();
/** How many visitors are kept in all (tests lower it to go through the lookup in ClickHouse). */
export const KEPT_LIMIT = { visitors: 2_000_000 };
let keptVisitors = 0;
const sizes = new Map<string, number>();

/** 64-bit numbers as the hex of their little-endian bytes, 16 characters each. */
const hexArray = (arr: string) => `arrayStringConcat(arrayMap(x -> hex(reinterpretAsFixedString(x)), ${arr}))`;
const fromHex = (hex: string) => new BigUint64Array(new Uint8Array(Buffer.from(hex, "hex")).buffer);

async function loadRangeVisitors(ch: Clickhouse, params: Record<string, unknown>, steps: string[]): Promise<RangeVisitors | null> {
  const n = steps.length;
  const [{ count }] = await ch.query<{ count: string }>(
    `SELECT count() AS count FROM ${ch.table("journey_funnel_states")} WHERE ${KEY} AND computed_at = ${at("computed")}`,
    params,
  );
  if (Number(count) > KEPT_LIMIT.visitors) return null;
  const [row] = await ch.query<{ vh: string; packed: string }>(
    `SELECT ${hexArray("arrayMap(x -> x.1, s)")} AS vh, ${hexArray("arrayMap(x -> x.2, s)")} AS packed
    FROM (SELECT arraySort(groupArray((vh, p))) AS s FROM (${packedSql(ch, n, `${KEY} AND computed_at = ${at("computed")}`)}))`,
    params,
  );
  const lastDay = await ch.query<{ hash: string; last: string | number }>(
    `SELECT toString(vh) AS hash, toUnixTimestamp64Milli(max(ended)) AS last FROM ${ch.table("journey_event_bundles")}
    WHERE ${LINK} AND ended >= ${at("lastDay")} AND ended < ${at("end")} GROUP BY vh`,
    { ...params, lastDay: Number(params.end) - DAY_MS },
  );
  return {
    vh: fromHex(row.vh),
    packed: fromHex(row.packed),
    firstHour: await loadFirstHour(ch, params, steps),
    lastEnded: new Map(lastDay.map((x) => [BigInt(x.hash), Number(x.last)])),
  };
}

const entriesOf = (flat: Float64Array): StepEntry[] =>
  Array.from({ length: flat.length / 2 }, (_, i) => ({ ms: flat[2 * i], mask: flat[2 * i + 1] }));

/** RangeVisitors.firstHour: every entry of the range's bundles of the visitors whose t0 is in its first hour. */
async function loadFirstHour(ch: Clickhouse, params: Record<string, unknown>, steps: string[]) {
  const first = Number(params.first);
  const windowMs = Number(params.end) - first;
  const p: Record<string, unknown> = {
    ...params,
    fromE: (BigInt(first) << BigInt(STEP_BITS)).toString(),
    riskE: (BigInt(first + HOUR_MS) << BigInt(STEP_BITS)).toString(),
    limit: RISKY_ENTRIES.limit,
  };
  const entries = entriesSql(steps, p);
  const [row] = await ch.query<{ total: string; visitors: [string, string][] }>(
    `SELECT sum(length(e)) AS total, if(total <= {limit:UInt64}, groupArray((toString(vh), ${hexArray("e")})), []) AS visitors
    FROM (
      SELECT vh, groupArrayArray(arrayFilter(x -> x >= {fromE:UInt64} AND bitAnd(x, ${bits(0, steps.length)}) != 0, ${entries})) AS e
      FROM ${ch.table("journey_event_bundles")}
      WHERE ${IN_RANGE} AND vh IN (
        SELECT vh FROM ${ch.table("journey_funnel_states")} WHERE ${KEY} AND computed_at = ${at("computed")} AND t0 < {riskE:UInt64})
      GROUP BY vh)`,
    p,
  );
  if (!row || Number(row.total) > RISKY_ENTRIES.limit) return null;
  const mask = 2 ** STEP_BITS - 1;
  const out = new Map<bigint, FirstHourVisitor>();
  for (const [vh, hex] of row.visitors) {
    const packed = fromHex(hex);
    const flat = new Float64Array(packed.length * 2);
    packed.forEach((x, i) => {
      flat[2 * i] = Number(x >> BigInt(STEP_BITS));
      flat[2 * i + 1] = Number(x & BigInt(mask));
    });
    out.set(BigInt(vh), { flat, run: advance(startRun(steps.length), entriesOf(flat), windowMs), windowMs });
  }
  return out;
}

function keep(key: string, visitors: RangeVisitors | null) {
  // An empty or too large range counts as one, so that entries stay bounded too; a kept entry as a visitor.
  let size = Math.max(1, visitors?.vh.length ?? 0);
  for (const v of visitors?.firstHour?.values() ?? []) size += v.flat.length / 2;
  size += visitors?.lastEnded.size ?? 0;
  sizes.set(key, size);
  keptVisitors += size;
  for (const [k] of kept) {
    if (keptVisitors <= KEPT_LIMIT.visitors || k === key) break;
    kept.delete(k);
    keptVisitors -= sizes.get(k) ?? 0;
    sizes.delete(k);
  }
}

/**
 * The stored state of a visitor of the range (`params` names it and its computed_at), undefined for one
 * not in it: from the range's visitors kept in memory (loaded on the first call after the job stored it),
 * or, for a range too large to keep, looked up in ClickHouse for `current()`'s visitors.
 */
async function storedVisitors(
  ch: Clickhouse,
  params: Record<string, unknown>,
  steps: string[],
  current: () => bigint[],
): Promise<(vh: bigint) => StoredVisitor | undefined> {
  const n = steps.length;
  const key = [ch.database, params.account, params.link, params.funnel, params.first, params.end, params.computed].join("/");
  let loading = kept.get(key);
  if (loading) {
    kept.delete(key);
    kept.set(key, loading);
  } else {
    loading = loadRangeVisitors(ch, params, steps);
    kept.set(key, loading);
    loading.then((v) => kept.get(key) === loading && keep(key, v)).catch(() => kept.delete(key));
  }
  // A load that failed (a time limit) leaves the lookup below: the report still answers.
  const visitors = await loading.catch(() => null);
  if (visitors) {
    const { vh, packed, firstHour, lastEnded } = visitors;
    // The hashes as 32-bit halves (little-endian: low, high), compared as numbers rather than BigInts.
    const halves = new Uint32Array(vh.buffer, vh.byteOffset, vh.length * 2);
    return (x) => {
      const [xHi, xLo] = [Number(x >> 32n), Number(x & 0xffffffffn)];
      let [lo, hi] = [0, vh.length - 1];
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const [mHi, mLo] = [halves[2 * mid + 1], halves[2 * mid]];
        if (mHi === xHi && mLo === xLo) {
          const found = { ...unpack(packed[mid]), lastEndedMs: lastEnded.get(x) ?? Number(params.end) - DAY_MS - 1 };
          const firstHourOf = firstHour?.get(x);
          return firstHourOf ? { ...found, firstHour: firstHourOf } : found;
        }
        if (mHi < xHi || (mHi === xHi && mLo < xLo)) lo = mid + 1;
        else hi = mid - 1;
      }
      return undefined;
    };
  }
  const rows = await ch.query<{ vh: string; p: string }>(
    `SELECT toString(vh) AS vh, toString(p) AS p
    FROM (${packedSql(ch, n, `${KEY} AND computed_at = ${at("computed")} AND vh IN {current:Array(UInt64)}`)})`,
    { ...params, current: current() },
  );
  const found = new Map(rows.map((r) => [BigInt(r.vh), unpack(BigInt(r.p))]));
  return (x) => found.get(x);
}

/** The lowest set bit of `mask` at or above bit k, 0 without one. */
const lowestFrom = (mask: number, k: number) => {
  const m = mask & ~(2 ** k - 1);
  return m & -m;
};

const NONE_N = 2n ** 64n - 1n;
const SHIFT = BigInt(STEP_BITS);
const minN = (x: bigint, y: bigint) => (x < y ? x : y);

/**
 * The level of a visitor from their whole stored state (t0, a, b as stored: time << 20 | step bit) and
 * their entries of the current hour's bundles, some of which come before the hour (interleaved with the
 * stored ones); null when that cannot decide. With T0 the earlier of the two t0: p_k is the earlier of
 * this hour's first entry at or after T0 of a step ≥ k and the stored one, which is b_k when T0 is the
 * stored t0, and a_k when T0 comes from this hour and a_k is not before it (otherwise a stored entry
 * between the two t0 may be it: unknown). Then as funnel-query.ts: a level raised by an entry more than a
 * window after T0 is null (windowFunnel decides).
 */
function acrossLevel(state: { t0: bigint; a: bigint[]; b: bigint[] }, list: Entry[], n: number, windowMs: number): number | null {
  const at = (e: Entry) => BigInt(e.ms) << SHIFT;
  let t0c = NONE_N;
  for (const e of list) if (e.bit & 1) t0c = minN(t0c, at(e));
  const t0 = minN(state.t0, t0c);
  if (t0 === NONE_N) return 0;
  const p: bigint[] = [];
  for (let k = 1; k < n; k++) {
    let first: bigint;
    if (t0 === state.t0) first = state.b[k - 1];
    else if (state.a[k - 1] === NONE_N || state.a[k - 1] >= t0) first = state.a[k - 1];
    else return null;
    for (const e of list) {
      const bit = lowestFrom(e.bit, k);
      if (bit && at(e) >= t0) first = minN(first, at(e) | BigInt(bit));
    }
    p.push(first);
  }
  let level = 1;
  while (level < n && (p[level - 1] & ((1n << SHIFT) - 1n)) === BigInt(2 ** level)) level++;
  for (let k = 1; k < level; k++) if (Number(p[k - 1] >> SHIFT) > Number(t0 >> SHIFT) + windowMs) return null;
  return level;
}

/**
 * Visitors of the period per level (index 0: no step-1 event) from the stored range and the current hour,
 * but for `fallback`, the visitors the window may cut (their hashes, for windowFunnel); null when the
 * range is not stored or its bundles changed since. One query reads the stored row, the range's bundle
 * count, the current hour's bundles and their visitors' stored states; the few hundred visitors of the
 * current hour are combined here (a query with the same work in SQL cost ~50 ms of planning alone).
 */
export async function countFunnelLevelsStored(
  ch: Clickhouse,
  r: LinkRange,
  steps: string[],
  windowMs: number,
  nowMs = Date.now(),
): Promise<{ byLevel: number[]; fallback: string[] } | null> {
  const n = steps.length;
  const { firstMs, endMs } = closedRangeOf(r.fromMs, nowMs);
  if (firstMs >= endMs) return null;
  const params: Record<string, unknown> = {
    account: r.accountId,
    link: r.linkId,
    funnel: steps.join(","),
    from: r.fromMs,
    first: firstMs,
    end: endMs,
    steps,
  };
  const current = `${LINK} AND ended >= ${at("end")}`;
  const masks = masksSql(steps, params);
  // The range's row as last found current here: a later call reads it again only when the bundle count moved.
  const rangeKey = [ch.database, r.accountId, r.linkId, params.funnel, firstMs, endMs].join("/");
  let range = rangeRows.get(rangeKey);
  const [row] = await ch.query<
    Partial<RangeRow> & { current: string; vhs: string; starts: number[]; counts: number[]; offsets: number[]; masks: number[] }
  >(
    // The current hour's bundles, flat: their visitors (hex, 8 bytes each), starts and numbers of entries
    // that match a step, and those entries' offsets and step masks (a page view's event_name a second
    // entry), as plain JSON numbers.
    `
    ${range ? "" : `WITH ${STORED(ch)} AS stored`}
    SELECT ${range ? "" : "stored.1 AS bundles, stored.2 AS levels, toUnixTimestamp64Milli(stored.3) AS computed,"}
      (SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE ${IN_RANGE}) AS current,
      open.1 AS vhs, open.2 AS starts, open.3 AS counts, open.4 AS offsets, open.5 AS masks
    FROM (
      SELECT (${hexArray("groupArray(vh)")}, groupArray(toFloat64(toUnixTimestamp64Milli(started))), groupArray(toUInt32(length(fos))),
          groupArrayArray(fos), groupArrayArray(fms)) AS open
      FROM (
        SELECT vh, started, arrayFilter((o, m) -> m != 0, os, ms) AS fos, arrayFilter(m -> m != 0, ms) AS fms
        FROM (
          SELECT vh, started, arrayConcat(times, named_views) AS os,
            arrayConcat(arrayMap((ty, lb) -> toUInt32(${masks.events}), types, labels), arrayMap(nm -> toUInt32(${masks.names}), view_names)) AS ms
          FROM ${ch.table("journey_event_bundles")} WHERE ${current})))`,
    params,
  );
  if (!row) return null;
  if (!range || Number(range.bundles) !== Number(row.current)) {
    // Not read yet, or the bundles changed since: the latest row, current if it counts as many.
    range = range ? await readRangeRow(ch, params) : (row as RangeRow);
    if (!range || range.levels.length !== n + 1 || Number(range.bundles) !== Number(row.current)) return null;
    rangeRows.delete(rangeKey);
    rangeRows.set(rangeKey, range);
    for (const [k] of rangeRows) if (rangeRows.size > 1000) rangeRows.delete(k);
  }
  const byLevel = range.levels.map(Number);
  const computed = { ...params, computed: Number(range.computed) };
  const vhs = fromHex(row.vhs);
  const stored = await storedVisitors(ch, computed, steps, () => [...new Set(vhs)]);
  // The current hour's entries per visitor that match a step: (time, steps mask), as funnel-query.ts builds them.
  const entries = new Map<bigint, Entry[]>();
  for (let b = 0, at = 0; b < vhs.length; b++) {
    const list = entries.get(vhs[b]) ?? [];
    entries.set(vhs[b], list);
    const base = row.starts[b];
    for (const end = at + row.counts[b]; at < end; at++) {
      if (base + row.offsets[at] >= r.fromMs) list.push({ ms: base + row.offsets[at], bit: row.masks[at] });
    }
  }
  const fallback: string[] = [];
  // Visitors with a batch across the hour's start whose stored entries may come after some of its own.
  const interleaved: [bigint, StoredVisitor, Entry[]][] = [];
  for (const [vh, list] of entries) {
    const known = stored(vh);
    // A visitor whose t0 is in the stored range's first hour, with all their stored entries kept: the
    // window may cut their chain at this hour's entries, so windowFunnel itself, here, over all of them.
    if (known?.firstHour) {
      byLevel[known.level]--;
      const current = list.map((e) => ({ ms: e.ms, mask: e.bit }));
      // The run over the stored entries continues with this hour's when they all come after them.
      const { lastEndedMs } = known;
      const after = known.firstHour.windowMs === windowMs && lastEndedMs !== undefined && current.every((e) => e.ms > lastEndedMs);
      const level = after
        ? levelOf(advance(copyRun(known.firstHour.run), current, windowMs))
        : windowFunnelLevel([...entriesOf(known.firstHour.flat), ...current], n, windowMs);
      byLevel[level]++;
      continue;
    }
    // A bundle ending in this hour can hold entries of the stored hours (a batch across the hour's start):
    // when their stored bundles all ended before its first entry, they combine as below; otherwise they
    // may interleave with the stored ones (acrossLevel).
    if (known && list.some((e) => e.ms < endMs)) {
      const first = list.reduce((m, e) => Math.min(m, e.ms), Number.POSITIVE_INFINITY);
      if (known.lastEndedMs === undefined || known.lastEndedMs >= first) {
        byLevel[known.level]--;
        interleaved.push([vh, known, list]);
        continue;
      }
    }
    // Its stored entries all come before this hour's: at the last step, or stopped by an entry of a later
    // step than its next, no entry of this hour changes its level.
    if (known && known.level > 0 && !known.open) continue;
    if (known) byLevel[known.level]--;
    // With a stored t0, p_k of k < its level are stored entries of step k (within the window: the stored
    // range is one period long), and p_k of k ≥ its level none: this hour's first entries of a step ≥ k
    // decide; without, t0 and p_k come from this hour's entries alone.
    let t0 = known && known.level > 0 ? { ms: known.t0Ms, bit: 0 } : NO_ENTRY;
    if (t0 === NO_ENTRY) for (const e of list) if (e.bit & 1) t0 = earlier(t0, { ms: e.ms, bit: 0 });
    if (t0 === NO_ENTRY) {
      byLevel[0]++;
      continue;
    }
    const from = known && known.level > 0 ? known.level : 1;
    const p = Array.from({ length: n - 1 }, () => NO_ENTRY);
    for (const e of list) {
      if (e.ms < t0.ms) continue;
      for (let k = from; k < n; k++) {
        const bit = lowestFrom(e.bit, k);
        if (bit) p[k - 1] = earlier(p[k - 1], { ms: e.ms, bit });
      }
    }
    let level = from;
    while (level < n && p[level - 1].bit === 2 ** level) level++;
    // The window can only change a level if an entry that raised it came more than a window after t0.
    let late = false;
    for (let k = from; k < level; k++) if (p[k - 1].ms > t0.ms + windowMs) late = true;
    if (late) fallback.push(vh.toString());
    else byLevel[level]++;
  }
  if (interleaved.length) {
    // Their whole stored states (t0, a, b), by key (few visitors: a few granules).
    const rows = await ch.query<{ vh: string; t0: string; a: string[]; b: string[] }>(
      `SELECT toString(vh) AS vh, toString(t0) AS t0, arrayMap(x -> toString(x), a) AS a, arrayMap(x -> toString(x), b) AS b
      FROM ${ch.table("journey_funnel_states")} WHERE ${KEY} AND computed_at = ${at("computed")} AND vh IN {vhs:Array(UInt64)}`,
      { ...computed, vhs: interleaved.map(([vh]) => vh) },
    );
    const states = new Map(rows.map((x) => [BigInt(x.vh), { t0: BigInt(x.t0), a: x.a.map(BigInt), b: x.b.map(BigInt) }]));
    for (const [vh, , list] of interleaved) {
      const state = states.get(vh);
      const level = state ? acrossLevel(state, list, n, windowMs) : null;
      if (level === null) fallback.push(vh.toString());
      else byLevel[level]++;
    }
  }
  return { byLevel, fallback };
}

/** Whether the funnel's stored range for a period starting at `fromMs` is current. */
async function isStoredCurrent(ch: Clickhouse, params: Record<string, unknown>, n: number) {
  const [row] = await ch.query<{ bundles: string; levels: string[]; current: string }>(
    `WITH ${STORED(ch)} AS stored
    SELECT stored.1 AS bundles, stored.2 AS levels, (SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE ${IN_RANGE}) AS current`,
    params,
  );
  return !!row && row.levels.length === n + 1 && Number(row.bundles) === Number(row.current);
}

/**
 * Computes and stores the funnel's range for a period of `periodMs` asked at `nowMs`, unless it is
 * stored and current. Returns whether it wrote.
 */
export async function storeFunnelRange(
  ch: Clickhouse,
  f: { accountId: string; linkId: string; steps: string[]; periodMs: number },
  nowMs = Date.now(),
): Promise<boolean> {
  const n = f.steps.length;
  const fromMs = periodFromMs(f.periodMs, nowMs);
  const { firstMs, endMs } = closedRangeOf(fromMs, nowMs);
  if (firstMs >= endMs) return false;
  const computedAt = Date.now();
  const params: Record<string, unknown> = {
    account: f.accountId,
    link: f.linkId,
    funnel: f.steps.join(","),
    first: firstMs,
    end: endMs,
    fromE: (BigInt(firstMs) << BigInt(STEP_BITS)).toString(),
    computed: computedAt,
  };
  if (await isStoredCurrent(ch, params, n)) return false;
  // Counted before the states are read: a bundle added meanwhile makes the range stale, never wrong.
  const [{ bundles }] = await ch.query<{ bundles: string }>(
    `SELECT count() AS bundles FROM ${ch.table("journey_event_bundles")} WHERE ${IN_RANGE}`,
    params,
  );
  const entries = entriesSql(f.steps, params);
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_funnel_states")} (account_id, link_id, funnel, range_start, range_end, computed_at, vh, t0, a, b)
    SELECT {account:UUID}, {link:UUID}, {funnel:String}, toDateTime(${at("first")}), toDateTime(${at("end")}), ${at("computed")}, vh, t0, a, b
    FROM (${statesSql(ch, n, entries, IN_RANGE, "toUInt8(1)")})`,
    params,
  );
  const levels = await ch.query<{ level: number; n: string }>(
    `SELECT ${levelSql(n, "t0", "b")} AS level, count() AS n FROM ${ch.table("journey_funnel_states")}
    WHERE ${KEY} AND computed_at = ${at("computed")} GROUP BY level`,
    params,
  );
  const byLevel = new Array<number>(n + 1).fill(0);
  for (const l of levels) byLevel[Number(l.level)] = Number(l.n);
  await ch.command(
    `INSERT INTO ${ch.table("journey_funnel_ranges")} (account_id, link_id, funnel, range_start, range_end, bundles, levels, computed_at)
    SELECT {account:UUID}, {link:UUID}, {funnel:String}, toDateTime(${at("first")}), toDateTime(${at("end")}), {bundles:UInt64}, {levels:Array(UInt64)}, ${at("computed")}`,
    { ...params, bundles, levels: byLevel },
  );
  // Read once here, so that the reports of this instance find the range's visitors in memory.
  await storedVisitors(ch, params, f.steps, () => []).catch(() => undefined);
  return true;
}
