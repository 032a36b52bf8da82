// The funnel report over journey_event_bundles (migration 0207): the visitors reaching each step with the
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
// minimum over their bundles. The window (the period's length) can only lower a level when one of
// the p_k that raised it came more than a window after T0 (a first step in the period's first hour,
// or events dated up to a day ahead); those few visitors go through windowFunnel itself.
import type { Clickhouse } from "../storage/clickhouse/client";
import { countFunnelLevelsStored, FALLBACK_LEVEL } from "./funnel-cache-query";
import { bundlesInRange, type LinkRange } from "./link-range";
import { noteFunnel } from "./report-demand";

/** The order of the `types` codes in migration 0207 (1-based). */
const BUNDLE_EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"];
/** An entry: ms after the period start in the high bits, the steps it matches in the low 20. */
const STEP_BITS = 20;
const TIME_PART = "0xFFFFFFFFFFF00000";
const NONE = "toUInt64(-1)";

function stepParams(steps: string[]) {
  const params: Record<string, unknown> = {};
  const labels = steps.map((step, i) => {
    params[`s${i}`] = step;
    const type = BUNDLE_EVENT_TYPES.indexOf(step) + 1;
    if (type > 0) params[`type${i}`] = type;
    return `(lb = h${i}${type > 0 ? ` OR ty = {type${i}:UInt8}` : ""})`;
  });
  // A page view's event_name, kept apart from its page_url label.
  const names = steps.map((_, i) => `(nm = h${i})`);
  const hashes = steps.map((_, i) => `cityHash64({s${i}:String}) AS h${i}`).join(", ");
  return { params, labels, names, hashes };
}

const bits = (from: number, to: number) => (2 ** to - 2 ** from).toString(); // bits from..to-1

/**
 * Levels of every visitor of the period (0: no step-1 event) that the window cannot affect;
 * FALLBACK_LEVEL rows carry the others' hashes. `names` null: the period has no named page views.
 */
function levelsSql(ch: Clickhouse, r: LinkRange, n: number, labels: string[], names: string[] | null, hashes: string) {
  // With an end, entries at or after it (ms after the start) are no entries.
  const inSpan = (time: string) => (r.toMs === undefined ? "" : ` AND base + ${time} < {span:Int64}`);
  const mask = (conditions: string[]) => conditions.map((c, i) => `${c} * ${2 ** i}`).join(" + ");
  const entry = (time: string, steps: string) =>
    `if(base + ${time} >= 0${inSpan(time)}, bitOr(bitShiftLeft(toUInt64(base + ${time}), ${STEP_BITS}), ${steps}), 0)`;
  const views = `arrayMap((o, ty, lb) -> ${entry("o", mask(labels))}, times, types, labels)`;
  const named = (conditions: string[]) => `arrayMap((o, nm) -> ${entry("o", mask(conditions))}, named_views, view_names)`;
  const ks = Array.from({ length: n - 1 }, (_, i) => i + 1);
  // p_k: (time, lowest step ≥ k) of the first entry at or after T0 of a step ≥ k, NONE without one.
  const firsts = ks.map((k) => {
    const ge = bits(k, STEP_BITS);
    const lowest = `bitAnd(bitAnd(x, ${ge}), bitNot(bitAnd(x, ${ge})) + 1)`;
    return `arrayMin(arrayMap(x -> if(x >= T0 AND bitAnd(x, ${ge}) != 0, bitOr(bitAnd(x, ${TIME_PART}), ${lowest}), ${NONE}), R)) AS p${k}`;
  });
  // Level 0: no step-1 entry (T0 NONE); a level above k implies one, so no bound either.
  const level = `multiIf(T0 = ${NONE}, 0, ${ks.map((k) => `bitAnd(p${k}, ${bits(0, STEP_BITS)}) != ${2 ** k}, ${k}, `).join("")}${n})`;
  // The window can only change a level if an entry that raised it came more than a window after T0.
  const late = (k: number) => `(level > ${k} AND bitShiftRight(p${k}, ${STEP_BITS}) > bitShiftRight(T0, ${STEP_BITS}) + {window:UInt64})`;
  const bound = ks.length ? ks.map(late).join(" OR ") : "0";
  return `
    WITH ${hashes}
    SELECT if(bound, ${FALLBACK_LEVEL}, level) AS level, count() AS n, arrayMap(x -> toString(x), groupArrayIf(v, bound)) AS fallback
    FROM (
      SELECT v, ${level} AS level, ${bound} AS bound
      FROM (
        SELECT v, T0${firsts.map((f) => `, ${f}`).join("")}
        FROM (
          SELECT vh AS v, min(t0) AS T0, groupArrayArray(r) AS R
          FROM (
            SELECT vh, toUnixTimestamp64Milli(started) - {from:Int64} AS base,
              ${names ? `arrayConcat(${views}, ${named(names)})` : views} AS e,
              arrayMin(arrayMap(x -> if(bitAnd(x, 1) != 0, bitAnd(x, ${TIME_PART}), ${NONE}), e)) AS t0,
              arrayFilter(x -> bitAnd(x, ${bits(1, n)}) != 0, e) AS r
            FROM ${ch.table("journey_event_bundles")} WHERE ${bundlesInRange(r)})
          GROUP BY vh)))
    GROUP BY level`;
}

/** windowFunnel itself over the events of the given visitors (their hashes as decimal strings). */
function windowFunnelSql(ch: Clickhouse, r: LinkRange, labels: string[], names: string[] | null, hashes: string) {
  // A page view with an event_name is two rows at the same time: windowFunnel takes the union of
  // the steps they match, as for one row matching them all.
  const row = (conditions: string[]) => `(toUInt64(toUnixTimestamp64Milli(started) + o), ${conditions.join(", ")})`;
  const rows = `arrayMap((o, ty, lb) -> ${row(labels)}, times, types, labels)`;
  const cs = labels.map((_, i) => `c${i}`);
  // The visitors' bundles read once (PREWHERE: only the others' hashes are read), their events as rows.
  return `
    WITH ${hashes}
    SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(t, ${cs.join(", ")}) AS level
      FROM (
        SELECT vh, x.1 AS t, ${cs.map((c, i) => `x.${i + 2} AS ${c}`).join(", ")}
        FROM (
          SELECT vh, ${names ? `arrayConcat(${rows}, arrayMap((o, nm) -> ${row(names)}, named_views, view_names))` : rows} AS xs
          FROM ${ch.table("journey_event_bundles")}
          PREWHERE vh IN (SELECT arrayJoin(arrayMap(x -> toUInt64(x), {fallback:Array(String)}))) WHERE ${bundlesInRange(r)})
        ARRAY JOIN xs AS x)
      WHERE t >= {from:Int64}${r.toMs === undefined ? "" : " AND t < {to:Int64}"} AND (${cs.join(" OR ")})
      GROUP BY vh)
    GROUP BY level`;
}

/** Whether the link had a page view with an event_name in the period (migration 0209). */
async function hasNamedViews(ch: Clickhouse, r: LinkRange) {
  const rows = await ch.query(
    `SELECT 1 FROM ${ch.table("journey_named_view_days")}
    WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND day >= toDate(fromUnixTimestamp64Milli({from:Int64}, 'UTC')) LIMIT 1`,
    { account: r.accountId, link: r.linkId, from: r.fromMs },
  );
  return rows.length > 0;
}

/**
 * Visitors of the period per funnel level: index 0 counts those with no step-1 event, so the sum is
 * every visitor with an event in the period. From the closed days' stored states when the journey job
 * keeps them for this funnel (funnel-cache-query.ts, the same numbers); otherwise from the bundles, and
 * the funnel is noted for the job. The window is the period's length.
 */
export async function countFunnelLevels(
  ch: Clickhouse,
  r: LinkRange,
  steps: string[],
  windowMs: number,
  nowMs = Date.now(),
): Promise<number[]> {
  // A compared past window (with an end) is read exactly: the stored states count periods up to now.
  if (r.toMs !== undefined) return countFunnelLevelsFromBundles(ch, r, steps, windowMs);
  const stored = await countFunnelLevelsStored(ch, r, steps, windowMs, nowMs);
  if (stored) {
    if (stored.fallback.length === 0) return stored.byLevel;
    // The visitors the window may cut, through windowFunnel itself (named views included: it only costs).
    const { params, labels, names, hashes } = stepParams(steps);
    const exact = await ch.query<{ level: number; n: string }>(windowFunnelSql(ch, r, labels, names, hashes), {
      ...params,
      account: r.accountId,
      link: r.linkId,
      from: r.fromMs,
      window: windowMs,
      fallback: stored.fallback,
    });
    for (const x of exact) stored.byLevel[Number(x.level)] += Number(x.n);
    return stored.byLevel;
  }
  noteFunnel(ch, { accountId: r.accountId, linkId: r.linkId, steps, periodMs: windowMs }, nowMs);
  return countFunnelLevelsFromBundles(ch, r, steps, windowMs);
}

/** The same from every bundle of the period. */
export async function countFunnelLevelsFromBundles(ch: Clickhouse, r: LinkRange, steps: string[], windowMs: number): Promise<number[]> {
  const { params, labels, names: allNames, hashes } = stepParams(steps);
  const names = (await hasNamedViews(ch, r)) ? allNames : null;
  const to = r.toMs ?? 0;
  const p = { ...params, account: r.accountId, link: r.linkId, from: r.fromMs, to, span: to - r.fromMs, window: windowMs };
  const byLevel = new Array<number>(steps.length + 1).fill(0);
  const rows = await ch.query<{ level: number; n: string; fallback: string[] }>(levelsSql(ch, r, steps.length, labels, names, hashes), p);
  for (const row of rows) {
    if (Number(row.level) !== FALLBACK_LEVEL) {
      byLevel[Number(row.level)] += Number(row.n);
      continue;
    }
    const exact = await ch.query<{ level: number; n: string }>(windowFunnelSql(ch, r, labels, names, hashes), {
      ...p,
      fallback: row.fallback,
    });
    for (const x of exact) byLevel[Number(x.level)] += Number(x.n);
  }
  return byLevel;
}
