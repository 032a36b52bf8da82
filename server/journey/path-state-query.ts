// The paths report's per-visitor rows (server/insights/paths-query.ts defines the report), from the bundles
// or from the journey job's stored paths of closed hours (migration 0280) plus the bundles that ended since.
// A visitor's path is a function of their own events of the window alone: the session with their first
// target event, its events. For a window [from, to) and E, the start of the hour holding the window's end
// (or now, for a window reaching ahead), the job stores each visitor's path over the events before E (of
// every bundle that starts before E, one across E included). A call reads the bundles that ended at or
// after E: a visitor without one has exactly their stored path; so has one whose events since cannot
// change it (queryPathsStored); the others get theirs from the bundles or path-combine.ts. The stored range is used only
// while its mark holds: the count of the bundles that start before E (a late event, or a batch across E
// that arrives after the job's round, adds one) hashed with the bundles' mutation mark (an erasure moves
// it when it is added and when it finishes, even one that removes as many bundles as late events add);
// otherwise the range is not read until the job computes it again, within the minute. Written by the
// journey job (report-cache-job.ts), once an hour per paths report asked lately, never by a report.
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkParams, mutationMarkSql } from "../storage/clickhouse/mutations";
import { HOUR_MS } from "../reports/period";
import { forwardFromBundles, forwardGoingOn, eventsOf, pathFromBundles, type SinceBundle, type VisitorStep } from "./path-combine";
import { unlessMarkDenied } from "./mark-denied";
import { notePaths, type PathsDemand } from "./report-demand";
import {
  buildPathIndex,
  findVisitor,
  halves,
  indexRows,
  keepPathIndex,
  MAX_INDEXED_STEPS,
  markPathIndexTooLarge,
  type PathIndex,
  pathIndexSkipped,
  type PathIndexRows,
  pathIndexOf,
  sessionFirstEnd,
  stepsOf,
  u64,
} from "./path-index";

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

/** The time of the first event of a bundle meeting `cond`, NONE without one. */
const firstSql = (cond: string, lambda: string, columns: string) =>
  `arrayMin(arrayConcat([${NONE}], arrayMap(${lambda} -> if(${cond}, ${ms} + o, ${NONE}), ${columns})))`;
/** A bundle's first target event of the window (NONE without one); needs `h` in a WITH. */
const targetTimeSql = `least(${firstSql(
  `(lb = h OR ty = {tt:UInt8}) AND ${ms} + o >= {from:Int64} AND ${ms} + o < {to:Int64}`,
  "(o, ty, lb)",
  "times, types, labels",
)},
  ${firstSql(`nm = h AND ${ms} + o >= {from:Int64} AND ${ms} + o < {to:Int64}`, "(o, nm)", "named_views, view_names")})`;

/**
 * Per visitor of the bundles `extra` (and `prewhere`) narrow, a row per step of their path: (vh, sid, k, ty, lb, nty, nlb, dt, t),
 * sid the chosen session's, t the target's time.
 * Needs `h` (the target's hash) in a WITH of the statement.
 */
function visitorStepsSql(ch: Clickhouse, direction: PathDirection, extra: string, prewhere = "") {
  // A few visitors' bundles: their hashes first (PREWHERE), the arrays of those rows only.
  const bundles = ch.table("journey_event_bundles") + (prewhere ? ` PREWHERE ${prewhere}` : "");
  const scope = `${LINK} AND ended >= ${at("from")} AND started < ${at("to")}${extra}`;
  const inWindow = (x: string) => `${x} >= {from:Int64} AND ${x} < {to:Int64}`;
  // The target event: the first at T matching it, or (a page view's name matched) the page view at T.
  const i0 = `if(arrayFirstIndex(e -> e.1 = T AND (e.3 = h OR e.2 = {tt:UInt8}), ev) AS i1 > 0, i1, arrayFirstIndex(e -> e.1 = T AND e.2 = 1, ev))`;
  const after =
    direction === "forward"
      ? `arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 < {to:Int64}, arraySlice(ev, i0 + 1))`
      : `arrayReverse(arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 >= {from:Int64}, arraySlice(ev, 1, i0 - 1)))`;
  const time = `${ms} + o`;
  // Each visitor's session with their first target event of the window (ties: the lower session hash).
  const chosen = `
                SELECT vh, argMin(sid, (tm, sid)) AS sid FROM (
                  SELECT vh, sid, ${targetTimeSql} AS tm
                  FROM ${bundles} WHERE ${scope} AND tm != ${NONE})
                GROUP BY vh`;
  return `
      SELECT vh, sid, k, p[k].2 AS ty, p[k].3 AS lb,
        if(k < length(p), p[k + 1].2, 0) AS nty, if(k < length(p), p[k + 1].3, 0) AS nlb,
        if(k < length(p), abs(p[k + 1].1 - p[k].1), 0) AS dt, p[1].1 AS t
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
/**
 * The count of the stored range's bundles: those with an event before its end (their events before it
 * are stored), i.e. ended from its start on and started before its end: those that ended in the range
 * (the sort key's range alone) and those since that started before its end (a few), so that no whole
 * column of the range is read.
 */
const inRangeCount = (ch: Clickhouse) => {
  const b = ch.table("journey_event_bundles");
  return `((SELECT count() FROM ${b} WHERE ${LINK} AND ended >= ${at("first")} AND ended < ${at("end")})
    + (SELECT count() FROM ${b} WHERE ${LINK} AND ended >= ${at("end")} AND started < ${at("end")}))`;
};
/**
 * The range's mark (what its row's `bundles` holds, as a string): the count above hashed with the
 * bundles' mutation mark (the paths are built from the bundles alone). Binds {mark_db:String}.
 */
const rangeMark = (ch: Clickhouse) => `toString(cityHash64(${inRangeCount(ch)}, ${mutationMarkSql(["journey_event_bundles"])}))`;

/** The computed_at (ms) of the range's latest row when its mark holds, else null. */
async function storedRange(ch: Clickhouse, params: Record<string, unknown>) {
  const [row] = await ch.query<{ rows: string; bundles: string; computed: string; current: string }>(
    `
    WITH (SELECT (count(), argMax(bundles, computed_at), toUnixTimestamp64Milli(max(computed_at))) FROM ${ch.table("journey_path_ranges")} WHERE ${KEY}) AS r
    SELECT r.1 AS rows, toString(r.2) AS bundles, r.3 AS computed,
      ${rangeMark(ch)} AS current`,
    { ...params, ...mutationMarkParams(ch) },
  );
  return row && Number(row.rows) > 0 && row.bundles === row.current ? Number(row.computed) : null;
}

/** The bundles that ended at or after the range's end (a bundle holds under a day of one session's events). */
const SINCE = `${LINK} AND ended >= ${at("end")} AND ended < ${at("rawTo")} AND started < ${at("to")}`;

/**
 * The report's rows from the stored range and the bundles that ended since, or null when the range is not
 * stored or its bundles changed since (the caller reads the bundles). Every call notes the report for the job.
 *
 * A visitor of the bundles since keeps their stored path (computed from every event before the range's
 * end, a bundle across it included) unless the events since may change it: every event since is later
 * than a stored target, so neither the chosen session nor the events before the target change, and a
 * full forward path ends before them. So only these get a new path: forward, a stored path shorter than
 * `steps` whose session goes on since (its stored steps, then the session's events since), and no stored
 * path but a target event since (their target and every event after it are in the bundles since): both
 * computed here (path-combine.ts); backward, no stored path but a target event since: the events before
 * it may be stored hours', so from all their bundles of the window, read by PREWHERE on the visitor.
 */
export async function queryPathsStored(ch: Clickhouse, a: PathsArgs, nowMs = Date.now()): Promise<PathRow[] | null> {
  const { firstMs, endMs } = pathRangeOf(a.window, nowMs);
  if (firstMs >= endMs) return null;
  notePathsWindow(ch, a, nowMs);
  return unlessMarkDenied(() => readStored(ch, a, firstMs, endMs));
}

async function readStored(ch: Clickhouse, a: PathsArgs, firstMs: number, endMs: number): Promise<PathRow[] | null> {
  const params = {
    ...baseParams(a),
    paths: pathsKey(a),
    first: firstMs,
    end: endMs,
    rawTo: a.window.toMs + DAY_MS,
    ...mutationMarkParams(ch),
  };
  // The job's in-memory index of the range when it holds it: no stored row read.
  const idx = pathIndexOf(ch, indexKey(a, firstMs, endMs));
  if (idx) return queryPathsIndexed(ch, idx, a, params);
  const bundles = ch.table("journey_event_bundles");
  const states = ch.table("journey_path_states");
  const forward = a.direction === "forward";
  const hitSql = "(arrayExists((ty, lb) -> lb = h OR ty = {tt:UInt8}, types, labels) OR has(view_names, h))";
  // One query: the stored range row, the bundles it now counts, the visitors since with a target event and
  // no stored path; forward also the bundles since of those and of the stored sessions that go on, and
  // those sessions' stored steps.
  const [row] = await ch.query<{
    rows: string;
    bundles: string;
    computed: string;
    current: string;
    hash: string;
    fresh: string[];
    since: SinceBundle[];
    going: [
      vh: string,
      sid: string,
      k: number,
      ty: number,
      lb: string,
      nty: number,
      nlb: string,
      dt: number | string,
      t: number | string,
    ][];
  }>(
    `
    WITH cityHash64({target:String}) AS h,
      (SELECT (count(), argMax(bundles, computed_at), max(computed_at)) FROM ${ch.table("journey_path_ranges")} WHERE ${KEY}) AS r
    SELECT r.1 AS rows, toString(r.2) AS bundles, toUnixTimestamp64Milli(r.3) AS computed, toString(h) AS hash,
      ${rangeMark(ch)} AS current,
      (SELECT groupArray(toString(vh)) FROM (
        SELECT DISTINCT vh FROM ${bundles} WHERE ${SINCE} AND ${hitSql}
          AND vh NOT IN (SELECT vh FROM ${states} WHERE ${KEY} AND computed_at = r.3 AND vh IN (SELECT vh FROM ${bundles} WHERE ${SINCE})))) AS fresh,
      ${
        forward
          ? `(SELECT groupArray((toString(vh), toString(sid), toUnixTimestamp64Milli(started), times, types, arrayMap(x -> toString(x), labels),
            named_views, arrayMap(x -> toString(x), view_names)))
          FROM ${bundles} WHERE ${SINCE} AND (vh IN (SELECT vh FROM ${bundles} WHERE ${SINCE} AND ${hitSql})
            OR (vh, sid) IN (SELECT vh, sid FROM ${states} WHERE ${KEY} AND computed_at = r.3 AND vh IN (SELECT vh FROM ${bundles} WHERE ${SINCE})))) AS since,
      (SELECT groupArray((toString(vh), toString(sid), k, ty, toString(lb), nty, toString(nlb), dt, t)) FROM ${states}
        WHERE ${KEY} AND computed_at = r.3 AND (vh, sid) IN (SELECT vh, sid FROM ${bundles} WHERE ${SINCE})) AS going`
          : "[] AS since, [] AS going"
      }`,
    params,
  );
  if (!row || Number(row.rows) === 0 || row.bundles !== row.current) return null;
  const raw = (set: string) => `SELECT toUInt64(arrayJoin({${set}:Array(String)}))`;
  const computed = Number(row.computed);
  if (!forward) {
    const all = row.fresh;
    const source = `
      SELECT k, ty, lb, nty, nlb, dt FROM ${states} WHERE ${KEY} AND computed_at = ${at("computed")}${
        all.length
          ? `
      UNION ALL
      SELECT k, ty, lb, nty, nlb, dt FROM (${visitorStepsSql(ch, a.direction, "", `vh IN (${raw("all")})`)})`
          : ""
      }`;
    return toRows(await ch.query<Record<string, string | number>>(grouped(source), { ...params, computed, all }));
  }
  const bySession = new Map<string, SinceBundle[]>();
  const byVisitor = new Map<string, SinceBundle[]>();
  for (const b of row.since) {
    bySession.set(`${b[0]}/${b[1]}`, [...(bySession.get(`${b[0]}/${b[1]}`) ?? []), b]);
    byVisitor.set(b[0], [...(byVisitor.get(b[0]) ?? []), b]);
  }
  const added: VisitorStep[] = [];
  const replaced: string[] = [];
  for (const vh of row.fresh) {
    const path = forwardFromBundles(byVisitor.get(vh) ?? [], {
      h: BigInt(row.hash),
      tt: params.tt,
      fromMs: firstMs,
      toMs: a.window.toMs,
      steps: a.steps,
    });
    if (path) added.push(...path);
  }
  const going = new Map<string, { sid: string; t0: number; rows: VisitorStep[] }>();
  for (const [vh, sid, k, ty, lb, nty, nlb, dt, t] of row.going) {
    const g = going.get(vh) ?? { sid, t0: Number(t), rows: [] };
    going.set(vh, g);
    g.rows.push({ k: Number(k), ty: Number(ty), lb: BigInt(lb), nty: Number(nty), nlb: BigInt(nlb), dt: Number(dt) });
  }
  for (const [vh, g] of going) {
    if (g.rows.length >= a.steps) continue;
    // The stored session's bundles since: their events from the range's end on (those before it are stored).
    const later = (bySession.get(`${vh}/${g.sid}`) ?? []).flatMap((b) => eventsOf(b).events).filter((e) => e.ms >= endMs);
    replaced.push(vh);
    added.push(...forwardGoingOn(g.rows, g.t0, later, a.steps, a.window.toMs));
  }
  const cols = {
    ak: added.map((r) => r.k),
    aty: added.map((r) => r.ty),
    alb: added.map((r) => r.lb.toString()),
    anty: added.map((r) => r.nty),
    anlb: added.map((r) => r.nlb.toString()),
    adt: added.map((r) => r.dt),
  };
  const source = `
      SELECT k, ty, lb, nty, nlb, dt FROM ${states} WHERE ${KEY} AND computed_at = ${at("computed")} AND vh NOT IN (${raw("replaced")})
      UNION ALL
      SELECT {ak:Array(UInt8)}[i] AS k, {aty:Array(UInt8)}[i] AS ty, toUInt64({alb:Array(String)}[i]) AS lb, {anty:Array(UInt8)}[i] AS nty,
        toUInt64({anlb:Array(String)}[i]) AS nlb, {adt:Array(UInt64)}[i] AS dt
      FROM (SELECT arrayJoin(range(1, {n:UInt32} + 1)) AS i)`;
  return toRows(
    await ch.query<Record<string, string | number>>(grouped(source), { ...params, computed, replaced, ...cols, n: added.length }),
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
    ...mutationMarkParams(ch),
  };
  if ((await storedRange(ch, params)) !== null) return false;
  // Marked before the paths are read: a bundle added or a mutation begun or finished meanwhile makes the
  // range stale, never wrong.
  const [{ bundles }] = await ch.query<{ bundles: string }>(`SELECT ${rangeMark(ch)} AS bundles`, params);
  await ch.command(
    `
    INSERT INTO ${ch.table("journey_path_states")} (account_id, link_id, paths, range_start, range_end, computed_at, vh, sid, k, ty, lb, nty, nlb, dt, t)
    WITH cityHash64({target:String}) AS h
    SELECT {account:UUID}, {link:UUID}, {paths:String}, toDateTime(${at("first")}), toDateTime(${at("end")}), ${at("computed")}, vh, sid, k, ty, lb, nty, nlb, dt, t
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

// The in-memory index (path-index.ts): loaded by the job, read by the reports.
const hi = (col: string) => `toUInt32(bitShiftRight(${col}, 32))`;
const lo = (col: string) => `toUInt32(bitAnd(${col}, 4294967295))`;
const indexKey = (
  a: { accountId: string; linkId: string; direction: PathDirection; steps: number; target: string },
  firstMs: number,
  endMs: number,
) => `${a.accountId}/${a.linkId}/${pathsKey(a)}/${firstMs}/${endMs}`;

/** Notes a report's window for the job (its range stored and held in memory): every read of it does. */
export function notePathsWindow(ch: Clickhouse, a: PathsArgs, nowMs = Date.now()) {
  const { firstMs, endMs } = pathRangeOf(a.window, nowMs);
  if (firstMs >= endMs) return;
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
}

/** Whether the job's in-memory index holds the range a report's window reads at `nowMs`. */
export function pathIndexHeld(ch: Clickhouse, a: PathsArgs, nowMs = Date.now()) {
  const { firstMs, endMs } = pathRangeOf(a.window, nowMs);
  return pathIndexOf(ch, indexKey(a, firstMs, endMs)) !== undefined;
}

/**
 * Loads the index of a paths report's range from its stored rows (when the range is stored and current),
 * unless it is loaded with the same rows. Returns the index's key (null: nothing stored to load, or a
 * range of more than MAX_INDEXED_STEPS step rows, counted before any is read: the report is then not
 * loaded again for a day).
 */
export async function refreshPathIndex(
  ch: Clickhouse,
  d: PathsDemand,
  nowMs = Date.now(),
  queries: Clickhouse = ch,
  maxSteps = MAX_INDEXED_STEPS,
) {
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS - d.offsetMs;
  const firstMs = endMs - d.lengthMs;
  const skipKey = `${d.accountId}/${d.linkId}/${pathsKey(d)}/${d.lengthMs}/${d.offsetMs}`;
  if (pathIndexSkipped(ch, skipKey, nowMs)) return null;
  const params = {
    ...baseParams({ ...d, window: { fromMs: firstMs, toMs: endMs } }),
    paths: pathsKey(d),
    first: firstMs,
    end: endMs,
    ...mutationMarkParams(queries),
  };
  const [range] = await queries.query<{ rows: string; bundles: string; computed: string; current: string; steps: string }>(
    `
    WITH (SELECT (count(), argMax(bundles, computed_at), max(computed_at)) FROM ${queries.table("journey_path_ranges")} WHERE ${KEY}) AS r
    SELECT r.1 AS rows, toString(r.2) AS bundles, toUnixTimestamp64Milli(r.3) AS computed,
      ${rangeMark(queries)} AS current,
      (SELECT count() FROM ${queries.table("journey_path_states")} WHERE ${KEY} AND computed_at = r.3) AS steps`,
    params,
  );
  if (!range || Number(range.rows) === 0 || range.bundles !== range.current) return null;
  const key = indexKey(d, firstMs, endMs);
  const held = pathIndexOf(ch, key);
  const computed = Number(range.computed);
  if (held && held.computedMs === computed) return key;
  // Counted in the sort key's range, before any row is read into memory.
  if (Number(range.steps) > maxSteps) {
    markPathIndexTooLarge(ch, skipKey, nowMs);
    return null;
  }
  const [rows] = await queries.query<PathIndexRows>(
    `
    SELECT (groupArray(${hi("vh")}), groupArray(${lo("vh")})) AS vh, (groupArray(${hi("sid")}), groupArray(${lo("sid")})) AS sid,
      groupArray(toFloat64(t)) AS t, groupArray(k) AS k, groupArray(ty) AS ty, (groupArray(${hi("lb")}), groupArray(${lo("lb")})) AS lb,
      groupArray(toFloat64(dt)) AS dt
    FROM (SELECT vh, sid, t, k, ty, lb, dt FROM ${queries.table("journey_path_states")} WHERE ${KEY} AND computed_at = ${at("computed")} ORDER BY vh, k)`,
    { ...params, computed },
  );
  const idx = buildPathIndex(key, computed, String(range.bundles), rows);
  if (d.direction === "backward") {
    // Read after the range's count: a bundle added since makes the range stale (unread), never this wrong.
    const [sessions] = await queries.query<{ h: number[]; l: number[]; e: number[] }>(
      `SELECT groupArray(${hi("sid")}) AS h, groupArray(${lo("sid")}) AS l, groupArray(e) AS e FROM (
        SELECT sid, toFloat64(toUnixTimestamp64Milli(min(ended))) AS e FROM ${queries.table("journey_event_bundles")}
        WHERE ${LINK} AND ended >= ${at("first")} AND ended < ${at("end")} GROUP BY sid ORDER BY sid)`,
      params,
    );
    idx.sessions = {
      hi: Uint32Array.from(sessions?.h ?? []),
      lo: Uint32Array.from(sessions?.l ?? []),
      firstEnd: Float64Array.from(sessions?.e ?? []),
    };
  }
  keepPathIndex(ch, idx);
  return key;
}

/**
 * The queries of the indexed reports asked at once (a report and its comparison: both windows start in
 * the same tick) run as one statement, each part's parameters renamed: one round trip instead of two.
 */
interface BatchPart {
  sql: string;
  params: Record<string, unknown>;
  done: (r: Promise<unknown[]>) => void;
}
const pending = new WeakMap<Clickhouse, BatchPart[]>();

function batchedQuery<T>(ch: Clickhouse, sql: string, params: Record<string, unknown>): Promise<T[]> {
  let parts = pending.get(ch);
  if (!parts) {
    const list: BatchPart[] = [];
    parts = list;
    pending.set(ch, list);
    queueMicrotask(() => {
      pending.delete(ch);
      if (list.length === 1) return list[0].done(ch.query(list[0].sql, list[0].params));
      const all: Record<string, unknown> = {};
      const union = list
        .map((p, i) => {
          for (const [k, v] of Object.entries(p.params)) all[`${k}_${i}`] = v;
          return `SELECT ${i} AS part, * FROM (${p.sql.replace(/\{(\w+):/g, (_: string, name: string) => `{${name}_${i}:`)})`;
        })
        .join("\nUNION ALL\n");
      const rows = ch.query<{ part: number }>(union, all);
      list.forEach((p, i) => {
        p.done(rows.then((rs) => rs.filter((r) => Number(r.part) === i)));
      });
    });
  }
  return new Promise<T[]>((resolve, reject) => {
    parts.push({ sql, params, done: (r) => r.then((rows) => resolve(rows as T[]), reject) });
  });
}

/**
 * Backward from the index: the visitors with a target event since and no stored path get theirs from the
 * session of their first one, its bundles since and, when it has bundles in the stored hours (the index's
 * sessions), those too, read from its first one's end on (a second query, only then).
 */
async function backwardIndexed(
  ch: Clickhouse,
  idx: PathIndex,
  a: PathsArgs,
  params: Record<string, unknown>,
  since: SinceBundle[],
  h: bigint,
): Promise<PathRow[]> {
  const t = { h, tt: Number(params.tt), fromMs: a.window.fromMs, toMs: a.window.toMs, steps: a.steps, direction: "backward" as const };
  const byVisitor = new Map<string, SinceBundle[]>();
  for (const b of since) byVisitor.set(b[0], [...(byVisitor.get(b[0]) ?? []), b]);
  const fresh = [...byVisitor].filter(([vh]) => findVisitor(idx, ...halves(vh)) < 0);
  // The sessions with bundles in the stored hours, and from when.
  const earlier = fresh.flatMap(([vh, list]) => {
    const sid = list[0][1];
    const first = sessionFirstEnd(idx, sid);
    return first === undefined ? [] : [{ vh, sid, first }];
  });
  if (earlier.length > 0) {
    const rows = await ch.query<{ b: SinceBundle }>(
      `SELECT ${SINCE_TUPLE} AS b FROM ${ch.table("journey_event_bundles")}
      PREWHERE (vh, sid) IN (SELECT toUInt64(x.1), toUInt64(x.2) FROM (SELECT arrayJoin(arrayZip({vhs:Array(String)}, {sids:Array(String)})) AS x))
      WHERE ${LINK} AND ended >= ${at("lo")} AND ended >= ${at("from")} AND ended < ${at("end")}`,
      {
        ...params,
        vhs: earlier.map((e) => e.vh),
        sids: earlier.map((e) => e.sid),
        lo: earlier.reduce((m, e) => Math.min(m, e.first), Number.POSITIVE_INFINITY),
      },
    );
    for (const { b } of rows) byVisitor.get(b[0])?.push(b);
  }
  const added: VisitorStep[] = [];
  for (const [vh] of fresh) {
    const path = pathFromBundles(byVisitor.get(vh) ?? [], t);
    if (path) added.push(...path);
  }
  return indexRows(idx, [], added);
}

/** A bundle as path-combine.ts takes it (SinceBundle). */
const SINCE_TUPLE = `(toString(vh), toString(sid), toUnixTimestamp64Milli(started), times, types, arrayMap(x -> toString(x), labels),
  named_views, arrayMap(x -> toString(x), view_names))`;

/** The rows of a report from the in-memory index and one query, or null when the range's bundles changed since it was loaded. */
async function queryPathsIndexed(ch: Clickhouse, idx: PathIndex, a: PathsArgs, params: Record<string, unknown>): Promise<PathRow[] | null> {
  const bundles = ch.table("journey_event_bundles");
  const forward = a.direction === "forward";
  const [row] = await batchedQuery<{
    current: string;
    hash: string;
    since: SinceBundle[];
  }>(
    ch,
    `
    WITH cityHash64({target:String}) AS h
    SELECT toString(h) AS hash, ${rangeMark(ch)} AS current,
      ${
        forward
          ? `(SELECT groupArray(${SINCE_TUPLE}) FROM ${bundles} WHERE ${SINCE}) AS since`
          : // The bundles since of each visitor's session with their first target event since: of a visitor
            // without a stored path (no target event before the range's end), the session of their path.
            `(SELECT groupArray(${SINCE_TUPLE}) FROM ${bundles} WHERE ${SINCE} AND (vh, sid) IN (
              SELECT vh, argMin(sid, (tm, sid)) FROM (SELECT vh, sid, ${targetTimeSql} AS tm FROM ${bundles} WHERE ${SINCE} AND tm != ${NONE})
              GROUP BY vh)) AS since`
      }`,
    params,
  );
  if (!row || String(row.current) !== idx.bundles) return null;
  const h = BigInt(row.hash);
  const tt = Number(params.tt);
  if (!forward) return backwardIndexed(ch, idx, a, params, row.since, h);
  const endMs = Number(params.end);
  const bySession = new Map<string, SinceBundle[]>();
  const byVisitor = new Map<string, SinceBundle[]>();
  for (const b of row.since) {
    bySession.set(`${b[0]}/${b[1]}`, [...(bySession.get(`${b[0]}/${b[1]}`) ?? []), b]);
    byVisitor.set(b[0], [...(byVisitor.get(b[0]) ?? []), b]);
  }
  const added: VisitorStep[] = [];
  const removed: number[] = [];
  for (const [vh, list] of byVisitor) {
    const i = findVisitor(idx, ...halves(vh));
    if (i < 0) {
      // No stored path: a target event since gives one (its target and every event after it are since).
      const hit = list.some((b) => b[4].some((ty, j) => ty === tt || BigInt(b[5][j]) === h) || b[7].some((nm) => BigInt(nm) === h));
      if (!hit) continue;
      const path = forwardFromBundles(list, { h, tt, fromMs: a.window.fromMs, toMs: a.window.toMs, steps: a.steps });
      if (path) added.push(...path);
      continue;
    }
    // A stored path shorter than `steps` whose session goes on since: its steps, then the session's events since.
    const sid = u64(idx.sidHi[i], idx.sidLo[i]);
    const going = bySession.get(`${vh}/${sid}`);
    if (!going || idx.at[i + 1] - idx.at[i] >= a.steps) continue;
    const later = going.flatMap((b) => eventsOf(b).events).filter((e) => e.ms >= endMs);
    removed.push(i);
    added.push(...forwardGoingOn(stepsOf(idx, i), idx.t[i], later, a.steps, a.window.toMs));
  }
  return indexRows(idx, removed, added);
}
