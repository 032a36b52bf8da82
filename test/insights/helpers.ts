// Shared by the insight tests: a seeded random source and the merge switches of every MergeTree table.
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import type { TestApp } from "../helpers/app";

/** mulberry32: the same numbers for the same seed. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function mergeTreeTables(t: TestApp) {
  const ch = t.runtime.deps.ch;
  const rows = await ch.query<{ name: ClickhouseTable }>(
    "SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'",
    { db: ch.database },
  );
  return rows.map((r) => ch.table(r.name));
}

/** Keeps every insert in its own part, as ClickHouse may leave them. */
export async function stopMerges(t: TestApp) {
  for (const table of await mergeTreeTables(t)) await t.runtime.deps.ch.command(`SYSTEM STOP MERGES ${table}`);
}

/** Merges every table fully (OPTIMIZE … FINAL). */
export async function forceMerges(t: TestApp) {
  for (const table of await mergeTreeTables(t)) {
    await t.runtime.deps.ch.command(`SYSTEM START MERGES ${table}`);
    await t.runtime.deps.ch.command(`OPTIMIZE TABLE ${table} FINAL`);
  }
}

/** A journey event as the paths tests send it and model it. */
export interface PathEvent {
  visitor_id: string;
  session_id?: string;
  event_type: string;
  event_name?: string;
  page_url: string;
  at: number;
}

const STEP_TYPES = new Set(["page_view", "custom", "conversion"]);
const matchesTarget = (e: PathEvent, target: string) =>
  e.event_type === target || e.event_name === target || (e.event_type === "page_view" && e.page_url === target);

/**
 * Each visitor's path as docs/insights.md defines it, from the events sent: the session holding their
 * first target event of [fromMs, toMs), its step events after (forward) or before (backward) the target,
 * consecutive repeats of a node (`nodeOf`) collapsed, at most `steps` nodes.
 */
export function visitorPaths(
  events: readonly PathEvent[],
  a: { fromMs: number; toMs: number; target: string; direction: "forward" | "backward"; steps: number },
  nodeOf: (e: PathEvent) => string,
): PathEvent[][] {
  const sessions = new Map<string, PathEvent[]>();
  for (const e of events) {
    if (e.at >= a.toMs) continue;
    const k = `${e.visitor_id}|${e.session_id ?? ""}`;
    sessions.set(k, [...(sessions.get(k) ?? []), e]);
  }
  const best = new Map<string, { T: number; seq: PathEvent[]; i: number }>();
  for (const evs of sessions.values()) {
    evs.sort((x, y) => x.at - y.at);
    const i = evs.findIndex((e) => e.at >= a.fromMs && matchesTarget(e, a.target));
    if (i < 0) continue;
    const v = evs[i].visitor_id;
    if (!best.has(v) || best.get(v)!.T > evs[i].at) best.set(v, { T: evs[i].at, seq: evs, i });
  }
  return [...best.values()].map(({ seq, i }) => {
    const rest =
      a.direction === "forward"
        ? seq.slice(i + 1).filter((e) => STEP_TYPES.has(e.event_type))
        : seq
            .slice(0, i)
            .filter((e) => STEP_TYPES.has(e.event_type) && e.at >= a.fromMs)
            .reverse();
    const all = [seq[i], ...rest];
    return all.filter((e, j) => j === 0 || nodeOf(e) !== nodeOf(all[j - 1])).slice(0, a.steps);
  });
}
