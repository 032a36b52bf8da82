// The funnel report over journey_bundles (migration 0204): the visitors reaching each step with the
// numbers ClickHouse windowFunnel(window, 'strict_order') gives over the events of the period that
// match some step, without its per-visitor event lists (~2x faster on 10M events).
//
// windowFunnel sorts a visitor's entries (time, step) — one per step an event matches — and, from
// the first entry of step 1 on, raises the level by one at an entry of the next step and stops at an
// entry of a step beyond it; entries of reached steps change nothing. So, with T0 the time of the
// first step-1 entry and p_k the first entry at or after T0 of a step ≥ k (by time, then step), the
// level is 1 + the number of leading k = 1, 2, … where p_k is an entry of step k: each p_k is the
// entry that either raises the level to k + 1 or stops it. Every event of a visitor counts, so p_k
// is a minimum over the visitor's entries of steps ≥ 2 (grouped as arrays: few per visitor) and T0 a
// minimum over their bundles. The window (the period's length) only matters when a later-step entry
// comes more than a window after T0, possible in the period's first hour and with events dated up to
// a day ahead; those few visitors go through windowFunnel itself.
import type { Clickhouse } from "../storage/clickhouse/client";

export interface FunnelRange { accountId: string; linkId: string; fromMs: number }

/** The order of the `types` codes in migration 0204 (1-based). */
const BUNDLE_EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"];
/** An entry: ms after the period start in the high bits, the steps it matches in the low 20. */
const STEP_BITS = 20;
const TIME_PART = "0xFFFFFFFFFFF00000";
const NONE = "toUInt64(-1)";
const FALLBACK_LEVEL = 255;

const LINK = "account_id = {account:UUID} AND link_id = {link:UUID} AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";

function stepParams(steps: string[]) {
  const params: Record<string, unknown> = {};
  const conditions = steps.map((step, i) => {
    params[`s${i}`] = step;
    const type = BUNDLE_EVENT_TYPES.indexOf(step) + 1;
    if (type > 0) params[`type${i}`] = type;
    return `(nm = h${i} OR u = h${i}${type > 0 ? ` OR ty = {type${i}:UInt8}` : ""})`;
  });
  const hashes = steps.map((_, i) => `cityHash64({s${i}:String}) AS h${i}`).join(", ");
  return { params, conditions, hashes };
}

const bits = (from: number, to: number) => (2 ** to - 2 ** from).toString(); // bits from..to-1

/** Levels of the visitors the window cannot affect; FALLBACK_LEVEL rows carry the others' hashes. */
function levelsSql(ch: Clickhouse, n: number, conditions: string[], hashes: string) {
  const mask = conditions.map((c, i) => `${c} * ${2 ** i}`).join(" + ");
  const later = bits(1, n);
  const firstEntry = (k: number) => {
    const ge = bits(k, STEP_BITS);
    const lowest = `bitAnd(bitAnd(x, ${ge}), bitNot(bitAnd(x, ${ge})) + 1)`;
    return `arrayMin(arrayMap(x -> if(x >= T0 AND bitAnd(x, ${ge}) != 0, bitOr(bitAnd(x, ${TIME_PART}), ${lowest}), ${NONE}), R))`;
  };
  const stops = Array.from({ length: n - 1 }, (_, i) => `bitAnd(${firstEntry(i + 1)}, ${bits(0, STEP_BITS)}) != ${2 ** (i + 1)}, ${i + 1}`);
  const level = stops.length ? `multiIf(${stops.join(", ")}, ${n})` : "1";
  return `
    WITH ${hashes}
    SELECT if(bound, ${FALLBACK_LEVEL}, level) AS level, count() AS n, arrayMap(x -> toString(x), groupArrayIf(v, bound)) AS fallback
    FROM (
      SELECT v, ${level} AS level,
        arrayExists(x -> bitShiftRight(x, ${STEP_BITS}) > bitShiftRight(T0, ${STEP_BITS}) + {window:UInt64}, R) AS bound
      FROM (
        SELECT vh AS v, min(t0) AS T0, groupArrayArray(r) AS R
        FROM (
          SELECT vh, toUnixTimestamp64Milli(started) - {from:Int64} AS base,
            arrayMap((o, ty, nm, u) -> if(base + o >= 0, bitOr(bitShiftLeft(toUInt64(base + o), ${STEP_BITS}), ${mask}), 0),
              times, types, names, urls) AS e,
            arrayMin(arrayMap(x -> if(bitAnd(x, 1) != 0, bitAnd(x, ${TIME_PART}), ${NONE}), e)) AS t0,
            arrayFilter(x -> bitAnd(x, ${later}) != 0, e) AS r
          FROM ${ch.table("journey_bundles")} WHERE ${LINK})
        GROUP BY vh HAVING T0 != ${NONE}))
    GROUP BY level`;
}

/** windowFunnel itself over the events of the given visitors (their hashes as decimal strings). */
function windowFunnelSql(ch: Clickhouse, conditions: string[], hashes: string) {
  return `
    WITH ${hashes}
    SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(t, ${conditions.join(", ")}) AS level
      FROM (
        SELECT vh, toUInt64(toUnixTimestamp64Milli(started) + o) AS t, ty, nm, u
        FROM ${ch.table("journey_bundles")} ARRAY JOIN times AS o, types AS ty, names AS nm, urls AS u
        WHERE ${LINK} AND vh IN (SELECT arrayJoin(arrayMap(x -> toUInt64(x), {fallback:Array(String)}))))
      WHERE t >= {from:Int64} AND (${conditions.join(" OR ")})
      GROUP BY vh)
    GROUP BY level`;
}

/** Visitors per funnel level (index = level, 1..steps.length). */
export async function countFunnelLevels(ch: Clickhouse, r: FunnelRange, steps: string[], windowMs: number): Promise<number[]> {
  const { params, conditions, hashes } = stepParams(steps);
  const p = { ...params, account: r.accountId, link: r.linkId, from: r.fromMs, window: windowMs };
  const byLevel = new Array<number>(steps.length + 1).fill(0);
  const rows = await ch.query<{ level: number; n: string; fallback: string[] }>(levelsSql(ch, steps.length, conditions, hashes), p);
  for (const row of rows) {
    if (Number(row.level) !== FALLBACK_LEVEL) { byLevel[Number(row.level)] += Number(row.n); continue; }
    const exact = await ch.query<{ level: number; n: string }>(windowFunnelSql(ch, conditions, hashes), { ...p, fallback: row.fallback });
    for (const x of exact) byLevel[Number(x.level)] += Number(x.n);
  }
  return byLevel;
}
