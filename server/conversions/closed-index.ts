// Where the conversion reports' in-memory indexes live (breakdown-index.ts, time-to-convert-index.ts):
// per ClickHouse client (the runtime's reports client), within MAX_INDEXED_ROWS over all of them (the
// least recently used go first), with what the reports asked lately so that the journey job (its round,
// server/journey/report-cache-job.ts) loads them. A report never loads an index: it answers from the exact
// queries when its index is missing or stale, and notes what it wanted. Another instance keeps its own.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { IndexScope } from "./closed-index-query";

/** Rows held in all indexes of a client (~24 bytes each: ~100 MB at most). */
export const MAX_INDEXED_ROWS = 4_000_000;
/** An index not asked for this long is dropped (its memory goes) and no longer loaded. */
export const INDEX_TTL_MS = 86_400_000;
/** Indexes of one account the job keeps up to date (the most recently asked). */
export const MAX_DEMANDS_PER_ACCOUNT = 50;
/** A scope whose index did not fit is not loaded again for this long (each load reads its history). */
const TOO_LARGE_RETRY_MS = 86_400_000;

export interface StoredIndex {
  rows: number;
}
/** What a report asked for: its kind and scope, and a dimension for a breakdown. */
export interface IndexDemand {
  kind: "breakdown" | "time-to-convert";
  scope: IndexScope;
  dimension?: string;
}
export const indexKey = (d: IndexDemand) => `${d.kind}/${d.scope.accountId}/${d.scope.linkId ?? "*"}/${d.dimension ?? ""}`;

interface ClientState {
  indexes: Map<string, StoredIndex>;
  asked: Map<string, { demand: IndexDemand; lastAskedMs: number }>;
  tooLarge: Map<string, number>;
}
const states = new WeakMap<Clickhouse, ClientState>();
function stateOf(ch: Clickhouse): ClientState {
  let s = states.get(ch);
  if (!s) {
    s = { indexes: new Map(), asked: new Map(), tooLarge: new Map() };
    states.set(ch, s);
  }
  return s;
}

/** The index kept for `d` (marked as the most recently used), noting the demand. */
export function indexFor<T extends StoredIndex>(ch: Clickhouse, d: IndexDemand, nowMs = Date.now()): T | undefined {
  const state = stateOf(ch);
  const key = indexKey(d);
  state.asked.delete(key);
  state.asked.set(key, { demand: d, lastAskedMs: nowMs });
  if (state.asked.size > 10_000) state.asked.delete(state.asked.keys().next().value as string);
  const idx = state.indexes.get(key);
  if (idx) {
    state.indexes.delete(key);
    state.indexes.set(key, idx);
  }
  return idx as T | undefined;
}

/**
 * Whether loading `d` would evict another index: it is not held and the held ones fill MAX_INDEXED_ROWS.
 * The job then leaves it (its report answers from the exact queries), rather than evicting one that the
 * next round would load again.
 */
export function wouldEvict(ch: Clickhouse, d: IndexDemand): boolean {
  const state = stateOf(ch);
  if (state.indexes.has(indexKey(d))) return false;
  let rows = 0;
  for (const x of state.indexes.values()) rows += x.rows;
  return rows >= MAX_INDEXED_ROWS;
}

/** The index kept for `d`, without noting anything (the job's view). */
export const peekIndex = <T extends StoredIndex>(ch: Clickhouse, d: IndexDemand) => stateOf(ch).indexes.get(indexKey(d)) as T | undefined;

/** Keeps `idx` for `d`, within MAX_INDEXED_ROWS (one too large is not kept, and not loaded again for a day). */
export function keepIndex(ch: Clickhouse, d: IndexDemand, idx: StoredIndex, nowMs = Date.now()) {
  const state = stateOf(ch);
  const key = indexKey(d);
  state.indexes.delete(key);
  if (idx.rows > MAX_INDEXED_ROWS) {
    state.tooLarge.set(key, nowMs + TOO_LARGE_RETRY_MS);
    return;
  }
  state.indexes.set(key, idx);
  let rows = 0;
  for (const x of state.indexes.values()) rows += x.rows;
  for (const [k, x] of state.indexes) {
    if (rows <= MAX_INDEXED_ROWS) break;
    state.indexes.delete(k);
    rows -= x.rows;
  }
}

/**
 * What the job loads: the demands of the last INDEX_TTL_MS (the others' indexes are dropped), not found too
 * large lately, the most recently asked first, at most MAX_DEMANDS_PER_ACCOUNT of an account (one caller
 * asking for many links cannot fill the round).
 */
export function askedIndexes(ch: Clickhouse, nowMs = Date.now()): IndexDemand[] {
  const state = stateOf(ch);
  for (const [key, a] of state.asked) if (a.lastAskedMs < nowMs - INDEX_TTL_MS) state.asked.delete(key);
  for (const key of [...state.indexes.keys()]) if (!state.asked.has(key)) state.indexes.delete(key);
  const perAccount = new Map<string, number>();
  const out: IndexDemand[] = [];
  for (const [key, a] of [...state.asked.entries()].reverse()) {
    if ((state.tooLarge.get(key) ?? 0) > nowMs) continue;
    const n = perAccount.get(a.demand.scope.accountId) ?? 0;
    if (n >= MAX_DEMANDS_PER_ACCOUNT) continue;
    perAccount.set(a.demand.scope.accountId, n + 1);
    out.push(a.demand);
  }
  return out;
}
