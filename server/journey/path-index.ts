// The paths report's stored range (path-state-query.ts, migration 0280), kept in memory by the journey
// job once it is stored: the report's rows of the range (per step, node and next node: the visitors and
// their sorted step times, so a median follows) and each visitor's stored path (their session and steps),
// so that a report reads no stored row from ClickHouse: one query gives the bundles the range now counts
// and what ended since (forward: the bundles since; backward: the paths of the visitors with a target
// event since), and the rows are the range's with the few changed visitors' paths taken out and put in
// (the same rules as the stored query's, queryPathsStored). Used only while the range's mark (its bundle
// count and the bundles' mutation mark) holds, as the stored rows are: the report's query checks it. Kept
// per ClickHouse client, in memory, within MAX_INDEXED_STEPS (~40 bytes a step row); a report whose range
// has more (counted before any row is read) is not loaded again for a day. Another instance keeps its own
// and reads the stored rows meanwhile.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { PathRow } from "./path-state-query";
import type { VisitorStep } from "./path-combine";
import { findKey } from "../reports/sorted-keys";
import { perClient } from "../reports/per-client";

/** Step rows held in all paths indexes of a client (~40 bytes each with their visitors: ~120 MB at most). */
export const MAX_INDEXED_STEPS = 3_000_000;
/** A report whose range was found too large is not loaded again for this long. */
const TOO_LARGE_RETRY_MS = 86_400_000;
/** Per client: the reports (account/link/paths/length/offset) found too large, until when they are skipped. */
const tooLargeOf = perClient(() => new Map<string, number>());

/** Whether the report `key` was found too large less than a day ago. */
export function pathIndexSkipped(ch: Clickhouse, key: string, nowMs: number) {
  const until = tooLargeOf(ch).get(key) ?? 0;
  if (until > nowMs) return true;
  tooLargeOf(ch).delete(key);
  return false;
}

/** Skips the report `key` for a day (its range holds more than MAX_INDEXED_STEPS step rows). */
export function markPathIndexTooLarge(ch: Clickhouse, key: string, nowMs: number) {
  tooLargeOf(ch).set(key, nowMs + TOO_LARGE_RETRY_MS);
}

/** A range's stored rows as the job loads them (64-bit values as halves), ordered by visitor and step. */
export interface PathIndexRows {
  vh: [hi: number[], lo: number[]];
  sid: [hi: number[], lo: number[]];
  t: number[];
  k: number[];
  ty: number[];
  lb: [hi: number[], lo: number[]];
  dt: number[];
}

interface Group {
  k: number;
  ty: number;
  lb: string;
  nty: number;
  nlb: string;
  n: number;
  /** The step times of the visitors who went on (next type not 0), ascending. */
  dts: Float64Array;
}

export interface PathIndex {
  key: string;
  computedMs: number;
  bundles: string;
  /** Visitors (key halves, sorted), their session's halves, target time and rows rows[at[i]…at[i + 1]). */
  hi: Uint32Array;
  lo: Uint32Array;
  sidHi: Uint32Array;
  sidLo: Uint32Array;
  t: Float64Array;
  at: Uint32Array;
  ty: Uint8Array;
  lbHi: Uint32Array;
  lbLo: Uint32Array;
  dt: Float64Array;
  groups: Map<string, Group>;
  /**
   * Backward: every session (hash halves, sorted) with a bundle that ended in the range, and its first such
   * bundle's end (ms): a visitor's new path comes from one session, whose stored-hours bundles are then
   * read from that end on only (or not at all: a session not here has none).
   */
  sessions?: { hi: Uint32Array; lo: Uint32Array; firstEnd: Float64Array };
}

const storeOf = perClient(() => new Map<string, PathIndex>());

export const u64 = (hi: number, lo: number) => ((BigInt(hi) << 32n) | BigInt(lo)).toString();
export const halves = (x: bigint | string): [number, number] => {
  const v = BigInt(x);
  return [Number(v >> 32n), Number(v & 0xffffffffn)];
};
const groupKey = (k: number, ty: number, lb: string, nty: number, nlb: string) => `${k}|${ty}|${lb}|${nty}|${nlb}`;

/** The index's rows of visitor i: (k, ty, lb, nty, nlb, dt) as the stored rows hold them. */
export function stepsOf(idx: PathIndex, i: number): VisitorStep[] {
  const out: VisitorStep[] = [];
  for (let r = idx.at[i]; r < idx.at[i + 1]; r++) {
    const last = r + 1 === idx.at[i + 1];
    out.push({
      k: r - idx.at[i] + 1,
      ty: idx.ty[r],
      lb: BigInt(u64(idx.lbHi[r], idx.lbLo[r])),
      nty: last ? 0 : idx.ty[r + 1],
      nlb: last ? 0n : BigInt(u64(idx.lbHi[r + 1], idx.lbLo[r + 1])),
      dt: idx.dt[r],
    });
  }
  return out;
}

export function buildPathIndex(key: string, computedMs: number, bundles: string, rows: PathIndexRows): PathIndex {
  const n = rows.k.length;
  const starts: number[] = [];
  for (let r = 0; r < n; r++) if (r === 0 || rows.vh[0][r] !== rows.vh[0][r - 1] || rows.vh[1][r] !== rows.vh[1][r - 1]) starts.push(r);
  const visitors = starts.length;
  const at = new Uint32Array(visitors + 1);
  starts.forEach((s, i) => {
    at[i] = s;
  });
  at[visitors] = n;
  const pick = (col: number[]) => Uint32Array.from(starts, (s) => col[s]);
  const idx: PathIndex = {
    key,
    computedMs,
    bundles,
    hi: pick(rows.vh[0]),
    lo: pick(rows.vh[1]),
    sidHi: pick(rows.sid[0]),
    sidLo: pick(rows.sid[1]),
    t: Float64Array.from(starts, (s) => rows.t[s]),
    at,
    ty: Uint8Array.from(rows.ty),
    lbHi: Uint32Array.from(rows.lb[0]),
    lbLo: Uint32Array.from(rows.lb[1]),
    dt: Float64Array.from(rows.dt),
    groups: new Map(),
  };
  const labels = new Map<string, string>();
  const label = (h: number, l: number) => {
    const k = `${h}:${l}`;
    let s = labels.get(k);
    if (s === undefined) {
      s = u64(h, l);
      labels.set(k, s);
    }
    return s;
  };
  const dts = new Map<string, number[]>();
  for (let i = 0; i < visitors; i++) {
    for (let r = at[i]; r < at[i + 1]; r++) {
      const last = r + 1 === at[i + 1];
      const lb = label(idx.lbHi[r], idx.lbLo[r]);
      const nty = last ? 0 : idx.ty[r + 1];
      const nlb = last ? "0" : label(idx.lbHi[r + 1], idx.lbLo[r + 1]);
      const key = groupKey(r - at[i] + 1, idx.ty[r], lb, nty, nlb);
      let g = idx.groups.get(key);
      if (!g) {
        g = { k: r - at[i] + 1, ty: idx.ty[r], lb, nty, nlb, n: 0, dts: new Float64Array(0) };
        idx.groups.set(key, g);
        dts.set(key, []);
      }
      g.n++;
      if (nty !== 0) dts.get(key)!.push(idx.dt[r]);
    }
  }
  for (const [key, list] of dts) idx.groups.get(key)!.dts = Float64Array.from(list).sort();
  return idx;
}

/** The index of a range when loaded with that computed_at, else undefined. */
export const pathIndexOf = (ch: Clickhouse, key: string) => storeOf(ch).get(key);

export function keepPathIndex(ch: Clickhouse, idx: PathIndex) {
  const store = storeOf(ch);
  store.delete(idx.key);
  if (idx.ty.length > MAX_INDEXED_STEPS) return;
  store.set(idx.key, idx);
  // The least recently loaded go first.
  let total = 0;
  for (const i of store.values()) total += i.ty.length;
  for (const [k, i] of store) {
    if (total <= MAX_INDEXED_STEPS || k === idx.key) break;
    store.delete(k);
    total -= i.ty.length;
  }
}

/** Drops the indexes whose keys are not in `keep` (reports not asked lately, ranges past). */
export function dropPathIndexes(ch: Clickhouse, keep: Set<string>) {
  const store = storeOf(ch);
  for (const k of [...store.keys()]) if (!keep.has(k)) store.delete(k);
}

/** The position of visitor (hi, lo), or -1. */
export const findVisitor = (idx: PathIndex, hi: number, lo: number) => findKey(idx, hi, lo);

/** The end of a session's first bundle in the range (ms), undefined when it has none there. */
export function sessionFirstEnd(idx: PathIndex, sid: string): number | undefined {
  if (!idx.sessions) return undefined;
  const at = findKey(idx.sessions, ...halves(sid));
  return at < 0 ? undefined : idx.sessions.firstEnd[at];
}

/** The median as quantileExact(0.5) gives it: the element at half the count, the upper middle of an even count. */
const median = (xs: ArrayLike<number>) => (xs.length ? xs[Math.floor(xs.length / 2)] : 0);

/** How many of the sorted `a` are ≤ x. */
function upperBound(a: Float64Array, x: number) {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The median (as `median`) of the sorted `base` with the values `out` taken out (one each; all in `base`)
 * and `added` put in, without copying `base`: the smallest value with more than half the count at or
 * below it is found by a binary search over `base` and a look at the few added.
 */
export function medianChanged(base: Float64Array, out: number[], added: number[]): number {
  const n = base.length - out.length + added.length;
  if (n <= 0) return 0;
  const need = Math.floor(n / 2) + 1;
  const atOrBelow = (x: number) => {
    let c = upperBound(base, x);
    for (const o of out) if (o <= x) c--;
    for (const i of added) if (i <= x) c++;
    return c;
  };
  let lo = 0;
  let hi = base.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (atOrBelow(base[mid]) >= need) hi = mid;
    else lo = mid + 1;
  }
  let best = lo < base.length ? base[lo] : Number.POSITIVE_INFINITY;
  for (const i of added) if (i < best && atOrBelow(i) >= need) best = i;
  return best;
}

/** The report's rows: the index's, less the rows of the visitors `removed` (indices), with `added` rows. */
export function indexRows(idx: PathIndex, removed: number[], added: VisitorStep[]): PathRow[] {
  const changes = new Map<string, { g: Omit<Group, "dts">; out: number[]; in: number[]; dn: number }>();
  const change = (k: number, ty: number, lb: string, nty: number, nlb: string) => {
    const key = groupKey(k, ty, lb, nty, nlb);
    let c = changes.get(key);
    if (!c) {
      const g = idx.groups.get(key);
      c = { g: g ?? { k, ty, lb, nty, nlb, n: 0 }, out: [], in: [], dn: 0 };
      changes.set(key, c);
    }
    return c;
  };
  for (const i of removed) {
    for (const s of stepsOf(idx, i)) {
      const c = change(s.k, s.ty, s.lb.toString(), s.nty, s.nlb.toString());
      c.dn--;
      if (s.nty !== 0) c.out.push(s.dt);
    }
  }
  for (const s of added) {
    const c = change(s.k, s.ty, s.lb.toString(), s.nty, s.nlb.toString());
    c.dn++;
    if (s.nty !== 0) c.in.push(s.dt);
  }
  const rows: PathRow[] = [];
  for (const [key, g] of idx.groups) {
    if (changes.has(key)) continue;
    rows.push({ k: g.k, ty: g.ty, lb: g.lb, nty: g.nty, nlb: g.nlb, n: g.n, medianMs: median(g.dts) });
  }
  for (const [key, c] of changes) {
    const n = c.g.n + c.dn;
    if (n <= 0) continue;
    const dts = idx.groups.get(key)?.dts ?? new Float64Array(0);
    rows.push({ k: c.g.k, ty: c.g.ty, lb: c.g.lb, nty: c.g.nty, nlb: c.g.nlb, n, medianMs: medianChanged(dts, c.out, c.in) });
  }
  return rows;
}
