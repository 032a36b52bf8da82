// The retention report's closed part, kept in memory: for a link, every visitor's first visit and the
// weeks they had a bundle in (64 weeks back from the index hour's week, each set week with its first
// bundle's start), over the bundles that ended before the index's hour E, and the same grouped by
// (first week, weeks) — a few thousand groups, from which a window's cohorts add up without a pass over
// the visitors. The journey job loads it for the links whose retention was asked lately, from the
// per-visitor state it has just stored (retention-state-query.ts); a report then reads, in one query,
// the count of the bundles that ended before E and the bundles that ended since (the current hour,
// events dated ahead, late batches), and combines them exactly as the stored state does: a visitor of
// the bundles since has their grouped contribution taken out and their combined one (the earlier first
// visit, the union of the weeks) put in. A compared window ends inside its last week L: week L counts
// only for the visitors whose first bundle in it started before the window's end, and a first visit in
// L only before it; that week's visitors are kept ordered by that start (once asked), and the change the
// cut makes is kept per window shape and moved with the window's end, visitor by visitor.
//
// The index is used only while the range's mark holds: the count of the bundles that ended before E (a
// late event adds a bundle) hashed with the bundles' mutation mark (an erasure moves it when it is added
// and when it finishes, even one that removes as many bundles as late events add); a report checks it
// in the statement it sends anyway. The job checks the mark and the sums of the bundles' visitor hashes
// and end times each round: it loads the index again when they moved, and has the stored state computed
// again when only the sums did (rows gone without a mutation, a TTL drop, and as many late bundles).
// Kept per ClickHouse client, in memory, within MAX_INDEXED_VISITORS (~40 bytes a visitor); a link with
// more is not loaded again for a day (its visitors are counted before any is read). Another instance
// keeps its own.
import type { Clickhouse } from "../storage/clickhouse/client";
import { DAY_MS, HOUR_MS } from "../reports/period";
import { noteRetention } from "./report-demand";
import {
  anchorOf,
  type CohortRow,
  loadRetentionIndexRows,
  type RetentionIndexRows,
  readRetentionOpen,
  reportedPart,
  retentionFingerprint,
} from "./retention-state-query";
import { findKey } from "../reports/sorted-keys";
import { perClient } from "../reports/per-client";

const WEEK_MS = 7 * DAY_MS;
const STORED_WEEKS = 64;
/** The index is read for this long after its hour (the open part grows meanwhile). */
const INDEX_FOR_MS = 2 * HOUR_MS;
/** Visitors held in all indexes of a client (~40 bytes each: ~160 MB at most). */
export const MAX_INDEXED_VISITORS = 4_000_000;

interface RetentionIndex {
  endMs: number;
  anchorMs: number;
  fingerprint: string;
  /** Visitor key halves, sorted. */
  hi: Uint32Array;
  lo: Uint32Array;
  first: Float64Array;
  /** The 64 weeks' bits from the anchor (bit i: week i), halves. */
  wh: Uint32Array;
  wl: Uint32Array;
  /** Visitor i's set weeks' first starts (ms into the week, ascending weeks) are wf[wfAt[i]…wfAt[i + 1]). */
  wfAt: Uint32Array;
  wf: Uint32Array;
  /** Groups: first week from the anchor (-1: before it), weeks' halves, visitors. */
  groups: { fw: Int16Array; wh: Uint32Array; wl: Uint32Array; n: Uint32Array };
  /** Per week asked by a compared window: its visitors in order, and the cuts asked. */
  byWeek: Map<number, WeekOrder>;
}

interface Cohorts {
  n: Float64Array;
  ret: Float64Array;
  /** Cohort c's visitors with week i: [c * weeks + i]. */
  byWeek: Float64Array;
}
interface WeekOrder {
  /** Visitor indices by their first bundle's start in the week (ms into it, `off`), ascending. */
  order: Uint32Array;
  off: Uint32Array;
  cuts: Map<string, { lim: number; acc: Cohorts }>;
}

/** A link found too large is not loaded again for this long (each try reads its fingerprint's sums). */
const TOO_LARGE_RETRY_MS = 86_400_000;

const storeOf = perClient(() => new Map<string, RetentionIndex>());
/** Per client: the links found too large, until when they are skipped. */
const skippedOf = perClient(() => new Map<string, number>());
const keyOf = (l: { accountId: string; linkId: string }) => `${l.accountId}/${l.linkId}`;

const popcount = (x: number) => {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};
/** The low 32 bits of (hi:lo) >> s, s in [0, 64). */
const shr = (hi: number, lo: number, s: number) => (s === 0 ? lo : s < 32 ? ((lo >>> s) | (hi << (32 - s))) >>> 0 : hi >>> (s - 32));
const bitOf = (hi: number, lo: number, j: number) => (j < 32 ? (lo >>> j) & 1 : (hi >>> (j - 32)) & 1);
/** Set bits below j. */
const below = (hi: number, lo: number, j: number) =>
  j < 32 ? popcount(lo & ((2 ** j - 1) >>> 0)) : popcount(lo) + popcount(hi & ((2 ** (j - 32) - 1) >>> 0));

function build(endMs: number, anchorMs: number, rows: RetentionIndexRows): RetentionIndex {
  const n = rows.h.length;
  const wfAt = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) wfAt[i + 1] = wfAt[i] + rows.wf[i].length;
  const wf = new Uint32Array(wfAt[n]);
  for (let i = 0; i < n; i++) wf.set(rows.wf[i], wfAt[i]);
  const first = Float64Array.from(rows.first, Number);
  const groups = new Map<string, { fw: number; wh: number; wl: number; n: number }>();
  for (let i = 0; i < n; i++) {
    const fw = first[i] >= anchorMs ? Math.floor((first[i] - anchorMs) / WEEK_MS) : -1;
    // A visitor first seen before the anchor is in no window the index answers: only kept for the lookup.
    if (fw < 0) continue;
    const key = `${fw}:${rows.wh[i]}:${rows.wl[i]}`;
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { fw, wh: rows.wh[i], wl: rows.wl[i], n: 1 });
  }
  const list = [...groups.values()];
  return {
    endMs,
    anchorMs,
    fingerprint: rows.fingerprint,
    hi: Uint32Array.from(rows.h),
    lo: Uint32Array.from(rows.l),
    first,
    wh: Uint32Array.from(rows.wh),
    wl: Uint32Array.from(rows.wl),
    wfAt,
    wf,
    groups: {
      fw: Int16Array.from(list, (g) => g.fw),
      wh: Uint32Array.from(list, (g) => g.wh),
      wl: Uint32Array.from(list, (g) => g.wl),
      n: Uint32Array.from(list, (g) => g.n),
    },
    byWeek: new Map(),
  };
}

const sizeOf = (idx: RetentionIndex) => idx.hi.length;

/**
 * Loads the link's index for the bundles that ended before the current hour from the state the job has
 * just stored (storeRetentionRange), unless it is loaded for that hour and its fingerprint holds; drops it
 * when that state is not current. Memory only. Returns "restore" when the held index's mark holds but
 * the sums moved (the stored state is stale in a way its mark does not show: the job stores it again
 * with `force` and calls this again).
 */
export async function refreshRetentionIndex(
  ch: Clickhouse,
  l: { accountId: string; linkId: string },
  nowMs = Date.now(),
  queries: Clickhouse = ch,
  maxVisitors = MAX_INDEXED_VISITORS,
): Promise<"restore" | undefined> {
  const store = storeOf(ch);
  const skipped = skippedOf(ch);
  const key = keyOf(l);
  if ((skipped.get(key) ?? 0) > nowMs) return;
  skipped.delete(key);
  const endMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const held = store.get(key);
  if (held && held.endMs === endMs) {
    const fingerprint = await retentionFingerprint(queries, l, endMs);
    if (fingerprint === held.fingerprint) return;
    if (reportedPart(fingerprint) === reportedPart(held.fingerprint)) {
      store.delete(key);
      return "restore";
    }
  }
  const rows = await loadRetentionIndexRows(queries, l, endMs, maxVisitors);
  store.delete(key);
  if (rows === "too large") {
    skipped.set(key, nowMs + TOO_LARGE_RETRY_MS);
    return;
  }
  if (!rows) return;
  const idx = build(endMs, anchorOf(endMs), rows);
  store.set(key, idx);
  // The least recently loaded go first.
  let total = 0;
  for (const i of store.values()) total += sizeOf(i);
  for (const [k, i] of store) {
    if (total <= MAX_INDEXED_VISITORS || k === key) break;
    store.delete(k);
    total -= sizeOf(i);
  }
}

/** Drops the indexes of the links not in `keep` (retention not asked lately). */
export function dropRetentionIndexes(ch: Clickhouse, keep: { accountId: string; linkId: string }[]) {
  const wanted = new Set(keep.map(keyOf));
  const store = storeOf(ch);
  for (const k of [...store.keys()]) if (!wanted.has(k)) store.delete(k);
}

/** What one report call reads beside the index (shared by its windows). */
export type RetentionOpen = Awaited<ReturnType<typeof readRetentionOpen>>;

/**
 * One call's reader: the cohorts of a window from the index and the bundles since, or null when the link
 * has no usable index (the caller then answers from the stored state or the bundles). The read beside
 * the index is done once for all the call's windows.
 */
export type RetentionIndexReader = (w: { fromMs: number; toMs: number }, weeks: number) => Promise<CohortRow[] | null>;

export function retentionIndexReader(ch: Clickhouse, l: { accountId: string; linkId: string }, nowMs = Date.now()): RetentionIndexReader {
  const idx = storeOf(ch).get(keyOf(l));
  let open: Promise<RetentionOpen> | null = null;
  return async (w, weeks) => {
    noteRetention(ch, l, nowMs);
    if (!idx || idx.endMs < nowMs - INDEX_FOR_MS) return null;
    const shift = (w.fromMs - idx.anchorMs) / WEEK_MS;
    if (!Number.isInteger(shift) || shift < 0 || shift >= STORED_WEEKS) return null;
    open ??= readRetentionOpen(ch, l, idx.endMs);
    const read = await open;
    if (read.mark !== reportedPart(idx.fingerprint)) return null;
    return cohorts(idx, read.open, w, weeks, shift);
  };
}

function cohorts(
  idx: RetentionIndex,
  open: [number, number, number, number][],
  w: { fromMs: number; toMs: number },
  weeks: number,
  shift: number,
): CohortRow[] {
  // A window that ends before the index's hour (a comparison's) ends inside its week L (see the header).
  const cut = w.toMs < idx.endMs;
  const last = cut ? Math.floor((w.toMs - w.fromMs) / WEEK_MS) : weeks;
  const limited = cut && last < weeks && shift + last < STORED_WEEKS;
  const lim = limited ? w.toMs - (w.fromMs + last * WEEK_MS) : 0;
  const mask = ((2 ** weeks - 1) & (cut && last < 31 ? 2 ** (last + 1) - 1 : -1)) >>> 0;
  const lastBit = limited ? 2 ** last : 0;
  const acc: Cohorts = { n: new Float64Array(weeks), ret: new Float64Array(weeks), byWeek: new Float64Array(weeks * weeks) };
  const { n, ret, byWeek } = acc;
  const add = (c: number, m: number, k: number) => addTo(acc, weeks, c, m, k);
  /** A stored visitor's first visit and window bits, the cut applied; null when their first visit is not before the window's end. */
  const storedOf = (i: number) => {
    const first = idx.first[i];
    if (first >= w.toMs) return null;
    let m = shr(idx.wh[i], idx.wl[i], shift) & mask;
    if (limited && bitOf(idx.wh[i], idx.wl[i], shift + last)) {
      const j = shift + last;
      if (idx.wf[idx.wfAt[i] + below(idx.wh[i], idx.wl[i], j)] >= lim) m = (m & ~lastBit) >>> 0;
    }
    return { first, m };
  };
  const cohortOf = (first: number) => (first >= w.fromMs ? Math.floor((first - w.fromMs) / WEEK_MS) : -1);

  // The closed part by groups: every group's visitors as if none were cut.
  const g = idx.groups;
  for (let p = 0; p < g.n.length; p++) {
    const c = g.fw[p] - shift;
    if (c < 0 || c >= weeks || (cut && c > last)) continue;
    add(c, shr(g.wh[p], g.wl[p], shift) & mask, g.n[p]);
  }
  // The cut: the visitors with week L's bit whose first bundle in it started at or after the window's end.
  if (limited) {
    const cutAcc = cutOf(idx, shift, weeks, last, mask, lim);
    for (let x = 0; x < n.length; x++) {
      n[x] += cutAcc.n[x];
      ret[x] += cutAcc.ret[x];
    }
    for (let x = 0; x < byWeek.length; x++) byWeek[x] += cutAcc.byWeek[x];
  }
  // The visitors of the bundles since: their stored contribution out, the combined one in.
  const since = new Map<string, { hi: number; lo: number; starts: number[] }>();
  for (const [h, l, started, ended] of open) {
    if (started >= w.toMs || ended >= w.toMs + DAY_MS) continue;
    const k = `${h}:${l}`;
    const v = since.get(k) ?? { hi: h, lo: l, starts: [] };
    since.set(k, v);
    v.starts.push(started);
  }
  for (const v of since.values()) {
    const i = findKey(idx, v.hi, v.lo);
    const stored = i >= 0 ? storedOf(i) : null;
    let first = stored?.first ?? Number.POSITIVE_INFINITY;
    let m = stored?.m ?? 0;
    if (stored) {
      const c = cohortOf(stored.first);
      if (c >= 0 && c < weeks) add(c, stored.m, -1);
    }
    for (const s of v.starts) {
      first = Math.min(first, s);
      if (s >= w.fromMs) {
        const wk = Math.min(63, Math.floor((s - w.fromMs) / WEEK_MS));
        if (wk < 31) m = (m | ((2 ** wk) & mask)) >>> 0;
      }
    }
    const c = cohortOf(first);
    if (c >= 0 && c < weeks) add(c, m, 1);
  }
  const rows: CohortRow[] = [];
  for (let c = 0; c < weeks; c++) {
    if (n[c] === 0) continue;
    rows.push({ c, n: String(n[c]), ret: String(ret[c]), by_week: Array.from(byWeek.subarray(c * weeks, (c + 1) * weeks), String) });
  }
  return rows;
}

/** Adds (sign 1) or takes out (-1) `k` visitors of cohort c with window bits m. */
function addTo(acc: Cohorts, weeks: number, c: number, m: number, k: number) {
  acc.n[c] += k;
  if (m >>> (c + 1) !== 0) acc.ret[c] += k;
  for (let i = 0; i < weeks; i++) if ((m >>> i) & 1) acc.byWeek[c * weeks + i] += k;
}

/** The first index of the sorted `a` whose value is ≥ x. */
function lowerBound(a: Uint32Array, x: number) {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Week j's visitors first seen from the anchor on, ordered by their first bundle's start in it (built once per index and week). */
function weekOrder(idx: RetentionIndex, j: number): WeekOrder {
  let o = idx.byWeek.get(j);
  if (!o) {
    const list: number[] = [];
    for (let i = 0; i < idx.hi.length; i++) if (bitOf(idx.wh[i], idx.wl[i], j) && idx.first[i] >= idx.anchorMs) list.push(i);
    const offOf = (i: number) => idx.wf[idx.wfAt[i] + below(idx.wh[i], idx.wl[i], j)];
    const order = Uint32Array.from(list.sort((a, b) => offOf(a) - offOf(b)));
    o = { order, off: Uint32Array.from(order, offOf), cuts: new Map() };
    idx.byWeek.set(j, o);
  }
  return o;
}

/**
 * The change a cut makes to the cohorts of a window (shift, weeks, its last week L = shift + last): for
 * each visitor with week L's bit whose first bundle in it started `lim` or more into it, their bits
 * without week L instead of with it, or (a first visit there) no visitor. Kept per window shape with its
 * `lim`; a later call (lim moves on with the clock) only takes in or out the visitors between the two.
 */
function cutOf(idx: RetentionIndex, shift: number, weeks: number, last: number, mask: number, lim: number): Cohorts {
  const o = weekOrder(idx, shift + last);
  const key = `${shift}:${weeks}:${last}`;
  let cut = o.cuts.get(key);
  if (!cut) {
    cut = { lim: 2 ** 32, acc: { n: new Float64Array(weeks), ret: new Float64Array(weeks), byWeek: new Float64Array(weeks * weeks) } };
    o.cuts.set(key, cut);
  }
  const lastBit = 2 ** last;
  const apply = (fromPos: number, toPos: number, sign: number) => {
    for (let p = fromPos; p < toPos; p++) {
      const i = o.order[p];
      const c = Math.floor((idx.first[i] - idx.anchorMs) / WEEK_MS) - shift;
      if (c < 0 || c > last || c >= weeks) continue;
      const full = shr(idx.wh[i], idx.wl[i], shift) & mask;
      addTo(cut.acc, weeks, c, full, -sign);
      // A first visit in week L after the window's end is no visitor of it at all.
      if (c < last) addTo(cut.acc, weeks, c, (full & ~lastBit) >>> 0, sign);
    }
  };
  const now = lowerBound(o.off, lim);
  const before = lowerBound(o.off, cut.lim);
  if (now < before) apply(now, before, 1);
  else if (now > before) apply(before, now, -1);
  cut.lim = lim;
  return cut.acc;
}
