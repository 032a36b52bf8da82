// The paths report's per-visitor rows (server/insights/paths-query.ts defines the report), from the bundles
// or from the journey job's stored paths of closed hours (migration 0280) plus the bundles that ended since.
// A visitor's path is a function of their own events of the window alone: the session with their first
// target event, its events. For a window [from, to) and E, the start of the hour holding the window's end
// (or now, for a window reaching ahead), the job stores each visitor's path over the events before E (of
// every bundle that starts before E, one across E included). A call reads the bundles that ended at or
// after E: a visitor without one has exactly their stored path; so has one whose events since cannot
// change it (visitorsToRecompute); the others get theirs from the bundles. The stored range is used only
// when the bundles that start before E still count as many as it was computed from (bundle rows are only
// ever added: a late event, or a batch across E that arrives after the job's round, adds one, and the
// range is not read until the job computes it again, within the minute). Written by the journey job
// (report-cache-job.ts), once an hour per paths report asked lately, never by a report.
import type { Clickhouse } from "../storage/clickhouse/client";
import { HOUR_MS } from "../reports/period";
import { notePaths, type PathsDemand } from "./report-demand";

/** The order of the `types` codes in migration 0207 (1-based), as server/journey/funnel-query.ts keeps it. */
export const BUNDLE_EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"] as const;
/** Events that make a step of a path after the target: page views, custom events, conversions. */
const STEP_TYPES = "(1, 4, 5)";
const NONE = "9223372036854775807";
const DAY_MS = 24 * HOUR_MS;

export type PathDirection = "forward" | "backward";

export interface PathsArgs {
  accountId: string;
  linkId: string;
  window: { fromMs: number; toMs: number };
  target: string;
  direction: PathDirection;
  steps: number;
}

/** One (step, node, next node) of the visitors' paths: next type 0 for those who left after the step. */
export interface PathRow {
  k: number;
  ty: number;
  lb: string;
  nty: number;
  nlb: string;
  n: number;
  medianMs: number;
}

const ms = "toInt64(toUnixTimestamp64Milli(started))";
const LINK = "account_id = {account:UUID} AND link_id = {link:UUID}";
const at = (p: string) => `fromUnixTimestamp64Milli({${p}:Int64}, 'UTC')`;

/**
 * Per visitor of the bundles `extra` (and `prewhere`) narrow, a row per step of their path: (vh, sid, k, ty, lb, nty, nlb, dt),
 * sid the chosen session's.
 * Needs `h` (the target's hash) in a WITH of the statement.
 */
function visitorStepsSql(ch: Clickhouse, direction: PathDirection, extra: string, prewhere = "") {
  // A few visitors' bundles: their hashes first (PREWHERE), the arrays of those rows only.
  const bundles = ch.table("journey_event_bundles") + (prewhere ? ` PREWHERE ${prewhere}` : "");
  const scope = `${LINK} AND ended >= ${at("from")} AND started < ${at("to")}${extra}`;
  const hit = "(lb = h OR ty = {tt:UInt8})";
  const inWindow = (x: string) => `${x} >= {from:Int64} AND ${x} < {to:Int64}`;
  // The target event: the first at T matching it, or (a page view's name matched) the page view at T.
  const i0 = `if(arrayFirstIndex(e -> e.1 = T AND (e.3 = h OR e.2 = {tt:UInt8}), ev) AS i1 > 0, i1, arrayFirstIndex(e -> e.1 = T AND e.2 = 1, ev))`;
  const after =
    direction === "forward"
      ? `arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 < {to:Int64}, arraySlice(ev, i0 + 1))`
      : `arrayReverse(arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 >= {from:Int64}, arraySlice(ev, 1, i0 - 1)))`;
  const time = `${ms} + o`;
  /** The time of the first event of a bundle meeting `cond`, NONE without one. */
  const first = (cond: string, lambda: string, columns: string) =>
    `arrayMin(arrayConcat([${NONE}], arrayMap(${lambda} -> if(${cond}, ${time}, ${NONE}), ${columns})))`;
  // Each visitor's session with their first target event of the window (ties: the lower session hash).
  const chosen = `
                SELECT vh, argMin(sid, (tm, sid)) AS sid FROM (
                  SELECT vh, sid, least(${first(`${hit} AND ${inWindow(time)}`, "(o, ty, lb)", "times, types, labels")},
                    ${first(`nm = h AND ${inWindow(time)}`, "(o, nm)", "named_views, view_names")}) AS tm
                  FROM ${bundles} WHERE ${scope} AND tm != ${NONE})
                GROUP BY vh`;
  return `
      SELECT vh, sid, k, p[k].2 AS ty, p[k].3 AS lb,
        if(k < length(p), p[k + 1].2, 0) AS nty, if(k < length(p), p[k + 1].3, 0) AS nlb,
        if(k < length(p), abs(p[k + 1].1 - p[k].1), 0) AS dt
      FROM (
        SELECT vh, sid, arraySlice(arrayFilter((e, i) -> i = 1 OR e.2 != seq[i - 1].2 OR e.3 != seq[i - 1].3, seq, arrayEnumerate(seq)), 1, {steps:UInt8}) AS p
        FROM (
          SELECT vh, sid, ev, ${i0} AS i0, arrayConcat([ev[i0]], ${after}) AS seq
          FROM (
            SELECT vh, sid, ev, least(
              arrayMin(arrayMap(e -> if(${inWindow("e.1")} AND (e.3 = h OR e.2 = {tt:UInt8}), e.1, ${NONE}), ev)),
              arrayMin(arrayMap(x -> if(${inWindow("x")}, x, ${NONE}), arrayPushBack(nv, ${NONE})))) AS T
            FROM (
              -- The chosen sessions' steps and target events, in time order (gathered as plain arrays:
              -- arrays of tuples cost ~40% more to aggregate).
              SELECT vh, sid, arraySort(arrayFilter(e -> e.2 IN ${STEP_TYPES} OR e.3 = h OR e.2 = {tt:UInt8},
                  arrayMap((a, b, c) -> (a, b, c), t, y, l))) AS ev, nv
              FROM (
                SELECT vh, sid, groupArrayArray(arrayMap(o -> ${time}, times)) AS t, groupArrayArray(types) AS y, groupArrayArray(labels) AS l,
                  groupArrayArray(arrayMap(o -> ${time}, arrayFilter((o, nm) -> nm = h, named_views, view_names))) AS nv
                FROM ${bundles}
                WHERE ${scope} AND (vh, sid) IN (${chosen})
                GROUP BY vh, sid)))))
      ARRAY JOIN arrayEnumerate(p) AS k`;
}

/** The report's rows from per-visitor step rows (`FROM` what `source` gives). */
const grouped = (source: string) => `
    WITH cityHash64({target:String}) AS h
    SELECT k, ty, toString(lb) AS lb, nty, toString(nlb) AS nlb, count() AS n, quantileExactIf(0.5)(dt, nty != 0) AS med
    FROM (${source})
    GROUP BY k, ty, lb, nty, nlb`;

const pathsKey = (a: Pick<PathsArgs, "direction" | "steps" | "target">) => `${a.direction}:${a.steps}:${a.target}`;
const targetType = (target: string) => BUNDLE_EVENT_TYPES.indexOf(target as (typeof BUNDLE_EVENT_TYPES)[number]) + 1;

function baseParams(a: PathsArgs) {
  return {
    account: a.accountId,
    link: a.linkId,
    from: a.window.fromMs,
    to: a.window.toMs,
    target: a.target,
    tt: targetType(a.target),
    steps: a.steps,
  };
}

function toRows(rows: Record<string, string | number>[]): PathRow[] {
  return rows.map((r) => ({
    k: Number(r.k),
    ty: Number(r.ty),
    lb: String(r.lb),
    nty: Number(r.nty),
    nlb: String(r.nlb),
    n: Number(r.n),
    medianMs: Number(r.med) || 0,
  }));
}

/** The report's rows from the window's bundles alone. */
export async function queryPathsRaw(ch: Clickhouse, a: PathsArgs): Promise<PathRow[]> {
  return toRows(await ch.query<Record<string, string | number>>(grouped(visitorStepsSql(ch, a.direction, "")), baseParams(a)));
}

/** The stored range of a window: its start and the start of the hour holding its end (or now). */
export function pathRangeOf(w: { fromMs: number; toMs: number }, nowMs: number) {
  return { firstMs: w.fromMs, endMs: Math.floor(Math.min(w.toMs, nowMs) / HOUR_MS) * HOUR_MS };
}

const KEY = `${LINK} AND paths = {paths:String} AND range_start = toDateTime(${at("first")}) AND range_end = toDateTime(${at("end")})`;
/** The bundles of the stored range: those with an event before its end (their events before it are stored). */
const IN_RANGE = `${LINK} AND ended >= ${at("first")} AND started < ${at("end")}`;

/** The range's latest row (its bundle count and computed_at, ms) and the bundles it now counts. */
async function storedRange(ch: Clickhouse, params: Record<string, unknown>) {
  const [row] = await ch.query<{ rows: string; bundles: string; computed: string; current: string }>(
    `
    WITH (SELECT (count(), argMax(bundles, computed_at), toUnixTimestamp64Milli(max(computed_at))) FROM ${ch.table("journey_path_ranges")} WHERE ${KEY}) AS r
    SELECT r.1 AS rows, r.2 AS bundles, r.3 AS computed,
      (SELECT count() FROM ${ch.table("journey_event_bundles")} WHERE ${IN_RANGE}) AS current`,
    params,
  );
  return row && Number(row.rows) > 0 && Number(row.bundles) === Number(row.current) ? Number(row.computed) : null;
}

/** The bundles that ended at or after the range's end (a bundle holds under a day of one session's events). */
const SINCE = `${LINK} AND ended >= ${at("end")} AND ended < ${at("rawTo")} AND started < ${at("to")}`;

/** Per visitor of the bundles since the range's end: their sessions, whether one holds a target event. */
type Since = [vh: string, sids: string[], hit: number | boolean];

/**
 * The visitors of the bundles since the range's end whose stored path may not be theirs, in two sets:
 * `all`, to recompute from all their bundles of the window: forward, a stored path shorter than `steps`
 * whose session goes on since; backward, no stored path but a target event since (the events before it
 * may be stored hours'). `since`, forward, no stored path but a target event since: their target and
 * every event after it are in the bundles since. The others keep their stored path: it was computed from
 * every event before the range's end (a bundle across it included), and every event since is later than
 * the stored target, so neither the chosen session nor the events before the target change, and a full
 * forward path ends before them.
 */
function visitorsToRecompute(a: PathsArgs, since: Since[], stored: [vh: string, sid: string, steps: number][]) {
  const paths = new Map(stored.map(([vh, sid, steps]) => [vh, { sid, steps: Number(steps) }]));
  const all: string[] = [];
  const fromSince: string[] = [];
  for (const [vh, sids, hit] of since) {
    const path = paths.get(vh);
    if (path) {
      if (a.direction === "forward" && path.steps < a.steps && sids.includes(path.sid)) all.push(vh);
    } else if (Number(hit)) (a.direction === "forward" ? fromSince : all).push(vh);
  }
  return { all, fromSince };
}

/**
 * The report's rows from the stored range and the bundles that ended since, or null when the range is not
 * stored or its bundles changed since (the caller reads the bundles). Every call notes the report for the job.
 */
export async function queryPathsStored(ch: Clickhouse, a: PathsArgs, nowMs = Date.now()): Promise<PathRow[] | null> {
  const { firstMs, endMs } = pathRangeOf(a.window, nowMs);
  if (firstMs >= endMs) return null;
  const nowHour = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  notePaths(
    ch,
    {
      accountId: a.accountId,
      linkId: a.linkId,
      target: a.target,
      direction: a.direction,
      steps: a.steps,
      lengthMs: endMs - firstMs,
      offsetMs: nowHour - endMs,
    },
    nowMs,
  );
  const params = { ...baseParams(a), paths: pathsKey(a), first: firstMs, end: endMs, rawTo: a.window.toMs + DAY_MS };
  const bundles = ch.table("journey_event_bundles");
  // One query: the stored range row, the bundles it now counts, the bundles since and their visitors' stored paths.
  const [row] = await ch.query<{
    rows: string;
    bundles: string;
    computed: string;
    current: string;
    since: Since[];
    stored: [string, string, number][];
  }>(
    `
    WITH cityHash64({target:String}) AS h,
      (SELECT (count(), argMax(bundles, computed_at), max(computed_at)) FROM ${ch.table("journey_path_ranges")} WHERE ${KEY}) AS r
    SELECT r.1 AS rows, r.2 AS bundles, toUnixTimestamp64Milli(r.3) AS computed,
      (SELECT count() FROM ${bundles} WHERE ${IN_RANGE}) AS current,
      (SELECT groupArray((toString(vh), sids, hit)) FROM (
        SELECT vh, arrayMap(x -> toString(x), groupUniqArray(sid)) AS sids,
          max(arrayExists((ty, lb) -> lb = h OR ty = {tt:UInt8}, types, labels) OR has(view_names, h)) AS hit
        FROM ${bundles} WHERE ${SINCE} GROUP BY vh)) AS since,
      (SELECT groupArray((toString(vh), toString(sid), k)) FROM (
        SELECT vh, any(sid) AS sid, max(k) AS k FROM ${ch.table("journey_path_states")}
        WHERE ${KEY} AND computed_at = r.3 AND vh IN (SELECT vh FROM ${bundles} WHERE ${SINCE})
        GROUP BY vh)) AS stored`,
    params,
  );
  if (!row || Number(row.rows) === 0 || Number(row.bundles) !== Number(row.current)) return null;
  const { all, fromSince } = visitorsToRecompute(a, row.since, row.stored);
  const raw = (set: string) => `SELECT toUInt64(arrayJoin({${set}:Array(String)}))`;
  const steps = (extra: string, prewhere?: string) =>
    `
      UNION ALL
      SELECT k, ty, lb, nty, nlb, dt FROM (${visitorStepsSql(ch, a.direction, extra, prewhere)})`;
  // `fromSince` visitors have no stored path: nothing of theirs to leave out.
  const source = `
      SELECT k, ty, lb, nty, nlb, dt FROM ${ch.table("journey_path_states")}
      WHERE ${KEY} AND computed_at = ${at("computed")} AND vh NOT IN (${raw("all")})${
        all.length ? steps("", `vh IN (${raw("all")})`) : ""
      }${fromSince.length ? steps(` AND ended >= ${at("end")} AND vh IN (${raw("fromSince")})`) : ""}`;
  return toRows(
    await ch.query<Record<string, string | number>>(grouped(source), { ...params, computed: Number(row.computed), all, fromSince }),
  );
}

/**
 * Computes and stores the range of a paths report asked lately, for the window it has at `nowMs`, unless
 * it is stored and current. Returns whether it wrote.
 */
export async function storePathRange(ch: Clickhouse, d: PathsDemand, nowMs = Date.now()): Promise<boolean> {
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS - d.offsetMs;
  const firstMs = endMs - d.lengthMs;
  const computedAt = Date.now();
  const params = {
    ...baseParams({ ...d, window: { fromMs: firstMs, toMs: endMs } }),
    paths: pathsKey(d),
    first: firstMs,
    end: endMs,
    computed: computedAt,
  };
  if ((await storedRange(ch, params)) !== null) return false;
  // Counted before the paths are read: a bundle added meanwhile makes the range stale, never wrong.
  const [{ bundles }] = await ch.query<{ bundles: string }>(
    `SELECT count() AS bundles FROM ${ch.table("journey_event_bundles")} WHERE ${IN_RANGE}`,
    params,
  );
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_path_states")} (account_id, link_id, paths, range_start, range_end, computed_at, vh, sid, k, ty, lb, nty, nlb, dt)
    WITH cityHash64({target:String}) AS h
    SELECT {account:UUID}, {link:UUID}, {paths:String}, toDateTime(${at("first")}), toDateTime(${at("end")}), ${at("computed")}, vh, sid, k, ty, lb, nty, nlb, dt
    FROM (${visitorStepsSql(ch, d.direction, "")})`,
    params,
  );
  await ch.command(
    `INSERT INTO ${ch.table("journey_path_ranges")} (account_id, link_id, paths, range_start, range_end, bundles, computed_at)
    SELECT {account:UUID}, {link:UUID}, {paths:String}, toDateTime(${at("first")}), toDateTime(${at("end")}), {bundles:UInt64}, ${at("computed")}`,
    { ...params, bundles },
  );
  return true;
}
