// Paths computed here rather than in SQL, for the few visitors of the current hour whose stored path
// (path-state-query.ts) they change or who have none: as the paths SQL builds them, forward from the
// events of the bundles since the stored range's end and, for a stored path that goes on, its stored
// steps; backward from all the visitor's bundles of the window.
// Labels are 64-bit hashes, kept as bigint.

/** An event: its time (ms), type code (migration 0207) and label hash. */
export interface PathEvent {
  ms: number;
  ty: number;
  lb: bigint;
}
/** One row of a visitor's path, as journey_path_states holds it. */
export interface VisitorStep {
  k: number;
  ty: number;
  lb: bigint;
  nty: number;
  nlb: bigint;
  dt: number;
}
/** A bundle since the range's end, as the stored query returns it (64-bit values as text). */
export type SinceBundle = [
  vh: string,
  sid: string,
  started: number | string,
  times: (number | string)[],
  types: number[],
  labels: string[],
  namedViews: (number | string)[],
  viewNames: string[],
];

/** Page views, custom events and conversions make the steps after the target. */
const STEP = new Set([1, 4, 5]);
const byTime = (x: PathEvent, y: PathEvent) => x.ms - y.ms || x.ty - y.ty || (x.lb < y.lb ? -1 : x.lb > y.lb ? 1 : 0);

/**
 * The rows of a path that starts with `kept` and goes on with `later` (in the path's order: time order
 * forward, reversed backward), repeats collapsed, up to `steps`.
 */
export function forwardSteps(kept: PathEvent[], later: PathEvent[], steps: number): VisitorStep[] {
  const p = [...kept];
  for (const e of later) {
    if (p.length >= steps) break;
    const last = p[p.length - 1];
    if (e.ty !== last.ty || e.lb !== last.lb) p.push(e);
  }
  return p.map((e, i) => {
    const next = p[i + 1];
    return next
      ? { k: i + 1, ty: e.ty, lb: e.lb, nty: next.ty, nlb: next.lb, dt: Math.abs(next.ms - e.ms) }
      : { k: i + 1, ty: e.ty, lb: e.lb, nty: 0, nlb: 0n, dt: 0 };
  });
}

/** The events of a bundle, and its page views' names as (time, name hash). */
export function eventsOf(b: SinceBundle) {
  const base = Number(b[2]);
  const events: PathEvent[] = b[3].map((o, i) => ({ ms: base + Number(o), ty: Number(b[4][i]), lb: BigInt(b[5][i]) }));
  const named = b[6].map((o, i) => ({ ms: base + Number(o), nm: BigInt(b[7][i]) }));
  return { events, named };
}

/** The session with the first target event of the window among `bundles` (ties: the lower session hash), its events. */
export function chosenSession(bundles: SinceBundle[], t: { h: bigint; tt: number; fromMs: number; toMs: number }) {
  const sessions = new Map<string, { events: PathEvent[]; named: { ms: number; nm: bigint }[] }>();
  for (const b of bundles) {
    const s = sessions.get(b[1]) ?? { events: [], named: [] };
    sessions.set(b[1], s);
    const { events, named } = eventsOf(b);
    s.events.push(...events);
    s.named.push(...named);
  }
  const inWindow = (ms: number) => ms >= t.fromMs && ms < t.toMs;
  const hit = (e: PathEvent) => e.lb === t.h || e.ty === t.tt;
  let chosen: { sid: bigint; tm: number; events: PathEvent[] } | null = null;
  for (const [sid, s] of sessions) {
    let tm = Number.POSITIVE_INFINITY;
    for (const e of s.events) if (hit(e) && inWindow(e.ms)) tm = Math.min(tm, e.ms);
    for (const n of s.named) if (n.nm === t.h && inWindow(n.ms)) tm = Math.min(tm, n.ms);
    if (tm === Number.POSITIVE_INFINITY) continue;
    const id = BigInt(sid);
    if (!chosen || tm < chosen.tm || (tm === chosen.tm && id < chosen.sid)) chosen = { sid: id, tm, events: s.events };
  }
  return chosen;
}

/**
 * A visitor's path from their bundles (forward: those since the range's end, as they have no target event
 * before it; backward: all their bundles of the window): the session with the first target event of the
 * window (ties: the lower session hash), from that event on (forward) or back (backward, events of the
 * window only). Null without a target event in the window.
 */
export function pathFromBundles(
  bundles: SinceBundle[],
  t: { h: bigint; tt: number; fromMs: number; toMs: number; steps: number; direction?: "forward" | "backward" },
): VisitorStep[] | null {
  const chosen = chosenSession(bundles, t);
  if (!chosen) return null;
  const hit = (e: PathEvent) => e.lb === t.h || e.ty === t.tt;
  const T = chosen.tm;
  const ev = chosen.events.filter((e) => STEP.has(e.ty) || hit(e)).sort(byTime);
  // The target event: the first at T matching it, or (a page view's name matched) the page view at T.
  let i0 = ev.findIndex((e) => e.ms === T && hit(e));
  if (i0 < 0) i0 = ev.findIndex((e) => e.ms === T && e.ty === 1);
  if (i0 < 0) return null;
  const next =
    t.direction === "backward"
      ? ev
          .slice(0, i0)
          .filter((e) => STEP.has(e.ty) && e.ms >= t.fromMs)
          .reverse()
      : ev.slice(i0 + 1).filter((e) => STEP.has(e.ty) && e.ms < t.toMs);
  return forwardSteps([ev[i0]], next, t.steps);
}

/** A visitor's forward path from their bundles since the range's end alone (pathFromBundles). */
export const forwardFromBundles = (bundles: SinceBundle[], t: { h: bigint; tt: number; fromMs: number; toMs: number; steps: number }) =>
  pathFromBundles(bundles, { ...t, direction: "forward" });

/**
 * A stored forward path shorter than `steps` (its rows, the target's time `t0`) that goes on with the
 * events since of its session (all later than its own).
 */
export function forwardGoingOn(stored: VisitorStep[], t0: number, later: PathEvent[], steps: number, toMs: number) {
  const rows = [...stored].sort((x, y) => x.k - y.k);
  const kept: PathEvent[] = [];
  let ms = t0;
  for (const r of rows) {
    kept.push({ ms, ty: r.ty, lb: r.lb });
    ms += r.dt;
  }
  const next = later.filter((e) => STEP.has(e.ty) && e.ms < toMs).sort(byTime);
  return forwardSteps(kept, next, steps);
}
