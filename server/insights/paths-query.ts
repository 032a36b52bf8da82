// The paths report over journey_event_bundles (migration 0207): each event as (time, type, label), a
// page view's label the hash of its URL, another event's the hash of its event_name.
//
// A session is what the product calls one: the events of one session_id (the tracker starts a new one
// after 30 minutes without an event); a visitor's events without a session_id form one session. Per
// visitor, the session with the first event of the period that matches the target (as a funnel step
// matches: its event_name, its event_type or a page view's URL) gives the path: from that event, the
// following (forward) or earlier (backward, within the period) page views, custom events and
// conversions, consecutive repeats collapsed to their first (forward) or last (backward) event, up to
// `steps`. So every visitor who did the target in the period has exactly one path, and step 1 counts
// the visitors the funnel's first step counts for the same name.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Window } from "../reports/compare";

/** The order of the `types` codes in migration 0207 (1-based), as server/journey/funnel-query.ts keeps it. */
export const BUNDLE_EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"] as const;
/** Events that make a step of a path after the target: page views, custom events, conversions. */
const STEP_TYPES = "(1, 4, 5)";
const NONE = "9223372036854775807";

export interface PathsArgs {
  accountId: string;
  linkId: string;
  window: Window;
  target: string;
  direction: "forward" | "backward";
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

function pathsSql(ch: Clickhouse, direction: PathsArgs["direction"]) {
  const bundles = ch.table("journey_event_bundles");
  const scope = `account_id = {account:UUID} AND link_id = {link:UUID}
      AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND started < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`;
  const hit = "(lb = h OR ty = {tt:UInt8})";
  const inWindow = (x: string) => `${x} >= {from:Int64} AND ${x} < {to:Int64}`;
  // The target event: the first at T matching it, or (a page view's name matched) the page view at T.
  const i0 = `if(arrayFirstIndex(e -> e.1 = T AND (e.3 = h OR e.2 = {tt:UInt8}), ev) AS i1 > 0, i1, arrayFirstIndex(e -> e.1 = T AND e.2 = 1, ev))`;
  const after =
    direction === "forward"
      ? `arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 < {to:Int64}, arraySlice(ev, i0 + 1))`
      : `arrayReverse(arrayFilter(e -> e.2 IN ${STEP_TYPES} AND e.1 >= {from:Int64}, arraySlice(ev, 1, i0 - 1)))`;
  const at = `${ms} + o`;
  /** The time of the first event of a bundle meeting `cond`, NONE without one. */
  const first = (cond: string, lambda: string, columns: string) =>
    `arrayMin(arrayConcat([${NONE}], arrayMap(${lambda} -> if(${cond}, ${at}, ${NONE}), ${columns})))`;
  // Each visitor's session with their first target event of the window (ties: the lower session hash).
  const chosen = `
                SELECT vh, argMin(sid, (tm, sid)) AS sid FROM (
                  SELECT vh, sid, least(${first(`${hit} AND ${inWindow(at)}`, "(o, ty, lb)", "times, types, labels")},
                    ${first(`nm = h AND ${inWindow(at)}`, "(o, nm)", "named_views, view_names")}) AS tm
                  FROM ${bundles} WHERE ${scope} AND tm != ${NONE})
                GROUP BY vh`;
  return `
    WITH cityHash64({target:String}) AS h
    SELECT k, ty, toString(lb) AS lb, nty, toString(nlb) AS nlb, count() AS n, quantileExactIf(0.5)(dt, nty != 0) AS med
    FROM (
      SELECT k, p[k].2 AS ty, p[k].3 AS lb,
        if(k < length(p), p[k + 1].2, 0) AS nty, if(k < length(p), p[k + 1].3, 0) AS nlb,
        if(k < length(p), abs(p[k + 1].1 - p[k].1), 0) AS dt
      FROM (
        SELECT arraySlice(arrayFilter((e, i) -> i = 1 OR e.2 != seq[i - 1].2 OR e.3 != seq[i - 1].3, seq, arrayEnumerate(seq)), 1, {steps:UInt8}) AS p
        FROM (
          SELECT ev, ${i0} AS i0, arrayConcat([ev[i0]], ${after}) AS seq
          FROM (
            SELECT ev, least(
              arrayMin(arrayMap(e -> if(${inWindow("e.1")} AND (e.3 = h OR e.2 = {tt:UInt8}), e.1, ${NONE}), ev)),
              arrayMin(arrayMap(x -> if(${inWindow("x")}, x, ${NONE}), arrayPushBack(nv, ${NONE})))) AS T
            FROM (
              -- The chosen sessions' steps and target events, in time order (gathered as plain arrays:
              -- arrays of tuples cost ~40% more to aggregate).
              SELECT arraySort(arrayFilter(e -> e.2 IN ${STEP_TYPES} OR e.3 = h OR e.2 = {tt:UInt8},
                  arrayMap((a, b, c) -> (a, b, c), t, y, l))) AS ev, nv
              FROM (
                SELECT vh, sid, groupArrayArray(arrayMap(o -> ${at}, times)) AS t, groupArrayArray(types) AS y, groupArrayArray(labels) AS l,
                  groupArrayArray(arrayMap(o -> ${at}, arrayFilter((o, nm) -> nm = h, named_views, view_names))) AS nv
                FROM ${bundles}
                WHERE ${scope} AND (vh, sid) IN (${chosen})
                GROUP BY vh, sid)))))
      ARRAY JOIN arrayEnumerate(p) AS k)
    GROUP BY k, ty, lb, nty, nlb`;
}

export async function queryPaths(ch: Clickhouse, a: PathsArgs): Promise<PathRow[]> {
  const rows = await ch.query<Record<string, string | number>>(pathsSql(ch, a.direction), {
    account: a.accountId,
    link: a.linkId,
    from: a.window.fromMs,
    to: a.window.toMs,
    target: a.target,
    tt: BUNDLE_EVENT_TYPES.indexOf(a.target as (typeof BUNDLE_EVENT_TYPES)[number]) + 1,
    steps: a.steps,
  });
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

/**
 * The page URLs and event names behind label hashes, from the top values' rollups of the window's days
 * (migrations 0200, 0206), which hold every page URL and event name the link had.
 */
export async function queryLabels(ch: Clickhouse, accountId: string, linkId: string, w: Window, hashes: string[]) {
  if (hashes.length === 0) return new Map<string, string>();
  const rows = await ch.query<{ kind: string; h: string; label: string }>(
    `
    SELECT kind, toString(cityHash64(value)) AS h, any(value) AS label FROM ${ch.table("journey_tops_daily")}
    WHERE account_id = {account:UUID} AND link_id = {link:UUID}
      AND day >= toDate(fromUnixTimestamp64Milli({from:Int64}, 'UTC')) AND day <= toDate(fromUnixTimestamp64Milli({to:Int64}, 'UTC'))
      AND toString(cityHash64(value)) IN {hashes:Array(String)}
    GROUP BY kind, h`,
    { account: accountId, link: linkId, from: w.fromMs, to: w.toMs, hashes },
  );
  return new Map(rows.map((r) => [`${r.kind}:${r.h}`, r.label]));
}
