// What the journey and conversion reports asked for lately that stored state would make cheap: the
// scopes of the closed-day visitor counts (closed-days-query.ts) and of the summaries' index
// (summary-index.ts), the funnel definitions (funnel-cache-query.ts), the links whose retention was asked
// (retention-state-query.ts) and the paths reports asked (path-state-query.ts). A report
// that finds its stored state missing or stale answers from the raw bundles and notes here what it
// wanted; the journey job (report-cache-job.ts) computes it. Reports never write: a read-only ClickHouse
// user gets exact answers, only slower. Kept per ClickHouse client (the
// runtime's one), in memory: another instance notes what its own callers ask.
import type { Clickhouse } from "../storage/clickhouse/client";

export interface ScopeDemand {
  accountId: string;
  /** A link id, or the whole account's (closed-days-query.ts WHOLE_ACCOUNT). */
  scope: string;
}
export interface FunnelDemand {
  accountId: string;
  linkId: string;
  steps: string[];
  /** The period's length (and the funnel's window), ms. */
  periodMs: number;
}
interface Noted<T> {
  value: T;
  lastAskedMs: number;
}
/** A link whose retention (server/insights) was asked. */
export interface RetentionDemand {
  accountId: string;
  linkId: string;
}
/** A paths report (server/insights) asked: its window is [E - lengthMs, E) with E the current hour's start less offsetMs. */
export interface PathsDemand {
  accountId: string;
  linkId: string;
  target: string;
  direction: "forward" | "backward";
  steps: number;
  lengthMs: number;
  /** 0 for the current window, the comparison's shift for a compared one. */
  offsetMs: number;
}
export interface ReportDemand {
  scopes: Map<string, Noted<ScopeDemand>>;
  /** The scopes of the summaries' in-memory index (summary-index.ts). */
  summaries: Map<string, Noted<ScopeDemand>>;
  funnels: Map<string, Noted<FunnelDemand>>;
  retention: Map<string, Noted<RetentionDemand>>;
  paths: Map<string, Noted<PathsDemand>>;
}

/** A definition not asked for this long is no longer kept up to date. */
export const DEMAND_TTL_MS = 7 * 86_400_000;
/** At most this many of each kind are kept (the least recently asked go first). */
const MAX_NOTED = 10_000;

const demands = new WeakMap<Clickhouse, ReportDemand>();

export function demandOf(ch: Clickhouse): ReportDemand {
  let d = demands.get(ch);
  if (!d) {
    d = { scopes: new Map(), summaries: new Map(), funnels: new Map(), retention: new Map(), paths: new Map() };
    demands.set(ch, d);
  }
  return d;
}

function note<T>(map: Map<string, Noted<T>>, key: string, value: T, nowMs: number) {
  map.delete(key);
  map.set(key, { value, lastAskedMs: nowMs });
  if (map.size > MAX_NOTED) map.delete(map.keys().next().value as string);
}

export const noteScope = (ch: Clickhouse, s: ScopeDemand, nowMs = Date.now()) =>
  note(demandOf(ch).scopes, `${s.accountId}/${s.scope}`, s, nowMs);

export const noteSummary = (ch: Clickhouse, s: ScopeDemand, nowMs = Date.now()) =>
  note(demandOf(ch).summaries, `${s.accountId}/${s.scope}`, s, nowMs);

export const funnelKey = (steps: string[]) => steps.join(",");
export const noteFunnel = (ch: Clickhouse, f: FunnelDemand, nowMs = Date.now()) =>
  note(demandOf(ch).funnels, `${f.accountId}/${f.linkId}/${f.periodMs}/${funnelKey(f.steps)}`, f, nowMs);

export const noteRetention = (ch: Clickhouse, r: RetentionDemand, nowMs = Date.now()) =>
  note(demandOf(ch).retention, `${r.accountId}/${r.linkId}`, r, nowMs);

export const notePaths = (ch: Clickhouse, p: PathsDemand, nowMs = Date.now()) =>
  note(demandOf(ch).paths, `${p.accountId}/${p.linkId}/${p.direction}/${p.steps}/${p.lengthMs}/${p.offsetMs}/${p.target}`, p, nowMs);

/** The definitions asked within `ttlMs` (older ones are forgotten). */
export function recentDemand<T>(map: Map<string, Noted<T>>, nowMs = Date.now(), ttlMs = DEMAND_TTL_MS): T[] {
  for (const [k, v] of map) if (v.lastAskedMs < nowMs - ttlMs) map.delete(k);
  return [...map.values()].map((v) => v.value);
}
