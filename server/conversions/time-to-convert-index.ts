// The time-to-convert report's closed part, kept in memory (closed-index.ts): every (link, visitor) of
// the scope whose first conversion on the link is before the index's hour (`until`), with its time to
// convert (from the visitor's click, or without one from their first event on the link). A report from
// hour h counts the indexed ones first converted at or after h, and those first converted from `until` on
// (read on each call, with their spans, by the query the exact report runs); a click from `until` on of an
// indexed visitor measured from their first event makes their span 0 (the click is after the conversion),
// as the exact query gives. Buckets, average and median (ClickHouse's quantileExactInclusive) are those
// of the exact report.
//
// The index answers only while the mark read before it was loaded holds: the bundles (a late event, a
// batch across the hour's start), the clicks before `until` (a late click), and the mutations of the
// tables read (an erasure).
import type { Clickhouse } from "../storage/clickhouse/client";
import type { IndexScope } from "./closed-index-query";
import { type IndexDemand, indexFor, keepIndex, peekIndex, type StoredIndex } from "./closed-index";
import { loadConvertedPairs, loadFirstTouches, readClicksOf, readOpenPairs, readTimeToConvertMark } from "./time-to-convert-index-query";

const HOUR_MS = 3_600_000;
/** The buckets' upper bounds, seconds (model.ts TIME_TO_CONVERT_BUCKETS). */
const BOUNDS = [3600, 86_400, 604_800];
const bucketOf = (s: number) => (s < BOUNDS[0] ? 0 : s < BOUNDS[1] ? 1 : s < BOUNDS[2] ? 2 : 3);
const spanOf = (converted: number, touched: number) => Math.max(0, converted - touched) / 1000;

interface ClosedSpans {
  /** The spans (seconds) of the pairs first converted at or after h, ascending. */
  sorted: Float64Array;
  counts: number[];
  sum: number;
}
/** 64-bit keys as sorted hash halves, with a value each. */
interface Keys {
  hi: Uint32Array;
  lo: Uint32Array;
  at: Float64Array;
}
interface TimeToConvertIndex extends StoredIndex {
  untilMs: number;
  mark: string;
  /** The pairs first converted before `until`, by key (value: their position below). */
  pairs: Keys;
  /** The pairs first seen, not converted, before `until`: their first event (ms). */
  touches: Keys;
  converted: Float64Array;
  spans: Float64Array;
  /** The pairs measured from their first event, by their click key (sorted): where a later click would count. */
  unclicked: Keys;
  memo: Map<number, ClosedSpans>;
}

const demandOf = (s: IndexScope): IndexDemand => ({ kind: "time-to-convert", scope: s });

/** The job's work: loads the index of `s` at the open hour, unless the one kept is current. */
export async function refreshTimeToConvertIndex(ch: Clickhouse, s: IndexScope, nowMs: number, queries = ch) {
  const old = peekIndex<TimeToConvertIndex>(ch, demandOf(s));
  const untilMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const mark = await readTimeToConvertMark(queries, s, untilMs);
  if (old && old.untilMs === untilMs && old.mark === mark) return false;
  const p = await loadConvertedPairs(queries, s, untilMs);
  const t = await loadFirstTouches(queries, s, untilMs);
  const n = p.converted.length;
  const converted = Float64Array.from(p.converted);
  const spans = new Float64Array(n);
  for (let i = 0; i < n; i++) spans[i] = spanOf(p.converted[i], p.touched[i]);
  const unclicked = keysOf(
    p.hi,
    p.lo,
    [...p.converted.keys()],
    [...p.clicked.keys()].filter((i) => !p.clicked[i]),
  );
  const pairs = keysOf(p.pkHi, p.pkLo, [...p.converted.keys()]);
  const touches = keysOf(t.hi, t.lo, t.at);
  const idx = { rows: 2 * n + t.at.length, untilMs, mark, pairs, touches, converted, spans, unclicked, memo: new Map() };
  keepIndex(ch, demandOf(s), idx as TimeToConvertIndex, nowMs);
  return true;
}

/** Keys sorted (of the rows `pick`, all by default), each with its value. */
function keysOf(hi: number[], lo: number[], at: number[], pick?: number[]): Keys {
  const order = pick ?? [...hi.keys()];
  order.sort((a, b) => hi[a] - hi[b] || lo[a] - lo[b]);
  return {
    hi: Uint32Array.from(order, (i) => hi[i]),
    lo: Uint32Array.from(order, (i) => lo[i]),
    at: Float64Array.from(order, (i) => at[i]),
  };
}

/** The values of the keys equal to (hi, lo). */
function valuesOf(k: Keys, hi: number, lo: number): number[] {
  let a = 0;
  let b = k.hi.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (k.hi[m] < hi || (k.hi[m] === hi && k.lo[m] < lo)) a = m + 1;
    else b = m;
  }
  const out: number[] = [];
  for (let j = a; j < k.hi.length && k.hi[j] === hi && k.lo[j] === lo; j++) out.push(k.at[j]);
  return out;
}

function closedSpans(idx: TimeToConvertIndex, h: number): ClosedSpans {
  const cached = idx.memo.get(h);
  if (cached) return cached;
  const picked: number[] = [];
  for (let i = 0; i < idx.converted.length; i++) if (idx.converted[i] >= h) picked.push(idx.spans[i]);
  const sorted = Float64Array.from(picked).sort();
  const counts = [0, 0, 0, 0];
  let sum = 0;
  for (const s of sorted) {
    counts[bucketOf(s)]++;
    sum += s;
  }
  const out = { sorted, counts, sum };
  if (idx.memo.size >= 8) idx.memo.delete(idx.memo.keys().next().value as number);
  idx.memo.set(h, out);
  return out;
}

/** The k-th (0-based) value of `sorted` without the values of `removed` (sorted, each taken once) and with those of `added` (sorted). */
export function kthOf(sorted: ArrayLike<number>, removed: number[], added: number[], k: number): number {
  let i = 0;
  let r = 0;
  let a = 0;
  for (let n = 0; ; ) {
    while (r < removed.length && i < sorted.length && sorted[i] === removed[r]) {
      i++;
      r++;
    }
    const fromSorted = i < sorted.length && (a >= added.length || sorted[i] <= added[a]);
    const v = fromSorted ? sorted[i++] : added[a++];
    if (n++ === k) return v;
  }
}

export interface TimeToConvertFigures {
  counts: number[];
  averageSeconds: number;
  medianSeconds: number;
}

/**
 * The report of `s` from hour h to now and beyond, exact, from the index and one statement; null when
 * the index is missing, starts after h or its mark moved: the caller runs the exact query (the demand is
 * noted for the job). Never writes.
 */
export async function indexedTimeToConvert(
  ch: Clickhouse,
  s: IndexScope,
  h: number,
  nowMs = Date.now(),
): Promise<TimeToConvertFigures | null> {
  const idx = indexFor<TimeToConvertIndex>(ch, demandOf(s), nowMs);
  if (!idx || h > idx.untilMs) return null;
  const read = await readOpenPairs(ch, s, idx.untilMs);
  if (read.mark !== idx.mark) return null;
  const closed = closedSpans(idx, h);
  const counts = [...closed.counts];
  let sum = closed.sum;
  const removed: number[] = [];
  const added: number[] = [];
  const add = (v: number) => {
    added.push(v);
    counts[bucketOf(v)]++;
    sum += v;
  };
  // An indexed pair measured from its first event, with a click from `until` on: measured from the click.
  const { clicks } = read;
  const moved = new Map<number, number>();
  for (let c = 0; c < clicks.hi.length; c++) {
    for (const i of valuesOf(idx.unclicked, clicks.hi[c], clicks.lo[c])) moved.set(i, Math.min(moved.get(i) ?? Infinity, clicks.at[c]));
  }
  for (const [i, clickedAt] of moved) {
    if (idx.converted[i] < h) continue;
    removed.push(idx.spans[i]);
    counts[bucketOf(idx.spans[i])]--;
    sum -= idx.spans[i];
    add(spanOf(idx.converted[i], clickedAt));
  }
  // The pairs with a conversion from `until` on and none before it: measured from their click, else
  // from their first event (indexed, or in the bundles from `until` on).
  const { open, touches } = read;
  const opened = new Map<string, number>();
  for (let i = 0; i < touches.hi.length; i++) opened.set(`${touches.hi[i]}:${touches.lo[i]}`, touches.at[i]);
  const clicked = new Map<string, number>();
  const clickedAt = (c: { hi: number[]; lo: number[]; at: number[] }) => {
    for (let j = 0; j < c.hi.length; j++) {
      const key = `${c.hi[j]}:${c.lo[j]}`;
      clicked.set(key, Math.min(clicked.get(key) ?? Infinity, c.at[j]));
    }
  };
  clickedAt(clicks);
  // The clicks of any time of the pairs first converted from `until` on whose visitor id is a click id
  // (a second round trip, only for them: none when the site's visitor ids are not click ids).
  const ids = [...new Set(open.clickIds.filter((id, i) => id && !valuesOf(idx.pairs, open.hi[i], open.lo[i]).length))];
  if (ids.length) clickedAt(await readClicksOf(ch, s, ids));
  for (let i = 0; i < open.hi.length; i++) {
    if (valuesOf(idx.pairs, open.hi[i], open.lo[i]).length) continue;
    let touched = clicked.get(`${open.clickHi[i]}:${open.clickLo[i]}`);
    if (touched === undefined) {
      const from = [...valuesOf(idx.touches, open.hi[i], open.lo[i]), opened.get(`${open.hi[i]}:${open.lo[i]}`) ?? Infinity];
      touched = Math.min(...from);
      // A conversion without its events (they cannot be missing: the exact query answers instead).
      if (touched === Infinity) return null;
    }
    if (open.converted[i] >= h) add(spanOf(open.converted[i], touched));
  }
  const n = closed.sorted.length - removed.length + added.length;
  if (n === 0) return { counts, averageSeconds: 0, medianSeconds: 0 };
  removed.sort((a, b) => a - b);
  added.sort((a, b) => a - b);
  // quantileExactInclusive(0.5): between the values at floor and ceil of (n - 1) / 2.
  const pos = (n - 1) * 0.5;
  const lo = kthOf(closed.sorted, removed, added, Math.floor(pos));
  const hi = pos === Math.floor(pos) ? lo : kthOf(closed.sorted, removed, added, Math.floor(pos) + 1);
  return { counts, averageSeconds: sum / n, medianSeconds: lo + (pos - Math.floor(pos)) * (hi - lo) };
}
