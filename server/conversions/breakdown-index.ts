// The device and country breakdowns' closed part, kept in memory (closed-index.ts): per label, every
// visitor's last event and last conversion before the index's hour (`until`), over the scope's events of
// the last 92 days. A breakdown from hour h then counts, per label, the visitors whose last event there
// is at or after h — the indexed ones, and those of the events from `until` on (the open part: the
// current hour, events dated ahead) not already counted — and the converters likewise: what the exact
// query (uniqExactMerge of the hourly sets, migration 0223) gives, in one statement that also reads the
// bundle mark and the rollup's conversions and revenue.
//
// The index answers only while the scope's bundle mark (closed-index-query.ts) is the one read before it
// was loaded: every event before `until` stored since (a late event, a batch across the hour's start)
// adds a bundle row that began before `until`, and an erasure removes some, so either moves the mark and
// the breakdown answers from the exact query until the job loads the index again. Visitors are keyed by
// cityHash64(visitor_id), as every exact visitor count is.
import type { Clickhouse } from "../storage/clickhouse/client";
import { type IndexedDimension, type LabelHours, loadLabelHours, loadLabelRows, readOpenLabels } from "./breakdown-index-query";
import { type IndexScope, readBundleMark } from "./closed-index-query";
import { type IndexDemand, indexFor, keepIndex, peekIndex, type StoredIndex } from "./closed-index";
import { findKey } from "../reports/sorted-keys";

export type { IndexedDimension };

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Visitors are indexed from this far back: no report period is longer than 90 days. */
const INDEX_DAYS = 92;

interface Keyed {
  hi: Uint32Array;
  lo: Uint32Array;
  last: Float64Array;
  converted: Float64Array;
}
interface BreakdownIndex extends StoredIndex {
  untilMs: number;
  sinceMs: number;
  mark: string;
  labels: Map<string, Keyed>;
  /** Per label, the rollup's hours with conversions before `until`. */
  hours: LabelHours[];
  /** Per period start: per label, the indexed [visitors, converters, conversions, revenue cents] from it on. */
  totals: Map<number, Map<string, Totals>>;
}
type Totals = [number, number, number, number];

const demandOf = (s: IndexScope, d: IndexedDimension): IndexDemand => ({ kind: "breakdown", scope: s, dimension: d });

/**
 * The job's work: brings the index of (s, d) to the open hour, unless the one kept is current. An index
 * of an earlier hour whose mark still holds at its own hour (nothing before that hour changed) takes in
 * the events of the hours closed since (merged: a visitor's times are maxima); otherwise, and once a day
 * (to drop the visitors past 92 days), it is loaded whole.
 */
export async function refreshBreakdownIndex(ch: Clickhouse, s: IndexScope, d: IndexedDimension, nowMs: number, queries = ch) {
  const old = peekIndex<BreakdownIndex>(ch, demandOf(s, d));
  const untilMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const mark = await readBundleMark(queries, s, untilMs);
  if (old && old.untilMs === untilMs && old.mark === mark) return false;
  const sinceMs = Math.floor(nowMs / DAY_MS) * DAY_MS - INDEX_DAYS * DAY_MS;
  const extend =
    old && old.untilMs < untilMs && old.sinceMs >= sinceMs - DAY_MS && (await readBundleMark(queries, s, old.untilMs)) === old.mark;
  const from = extend ? old.untilMs : sinceMs;
  const perLabel = await loadLabelRows(queries, s, d, from, untilMs);
  const newHours = await loadLabelHours(queries, s, d, from, untilMs);
  const labels = new Map<string, Keyed>(extend ? old.labels : []);
  for (const r of perLabel) {
    const more = sorted({
      hi: Uint32Array.from(r.hi),
      lo: Uint32Array.from(r.lo),
      last: Float64Array.from(r.last),
      converted: Float64Array.from(r.converted),
    });
    const had = labels.get(r.label);
    labels.set(r.label, had ? mergeKeyed(had, more) : more);
  }
  const hours = extend ? mergeHours(old.hours, newHours) : newHours;
  let rows = 0;
  for (const k of labels.values()) rows += k.hi.length;
  const idx: BreakdownIndex = { rows, untilMs, sinceMs: extend ? old.sinceMs : sinceMs, mark, labels, hours, totals: new Map() };
  keepIndex(ch, demandOf(s, d), idx, nowMs);
  return true;
}

/** Two key-sorted row sets as one; a key in both takes the later times. */
export function mergeKeyed(a: Keyed, b: Keyed): Keyed {
  const n = a.hi.length + b.hi.length;
  const out: Keyed = { hi: new Uint32Array(n), lo: new Uint32Array(n), last: new Float64Array(n), converted: new Float64Array(n) };
  let i = 0;
  let j = 0;
  let k = 0;
  const take = (from: Keyed, at: number) => {
    out.hi[k] = from.hi[at];
    out.lo[k] = from.lo[at];
    out.last[k] = from.last[at];
    out.converted[k] = from.converted[at];
    k++;
  };
  while (i < a.hi.length || j < b.hi.length) {
    if (j >= b.hi.length || (i < a.hi.length && before(a, i, b, j))) take(a, i++);
    else if (i >= a.hi.length || before(b, j, a, i)) take(b, j++);
    else {
      take(a, i++);
      out.last[k - 1] = Math.max(out.last[k - 1], b.last[j]);
      out.converted[k - 1] = Math.max(out.converted[k - 1], b.converted[j]);
      j++;
    }
  }
  return { hi: out.hi.subarray(0, k), lo: out.lo.subarray(0, k), last: out.last.subarray(0, k), converted: out.converted.subarray(0, k) };
}

/** The rollup's hours of two loads of disjoint ranges, per label. */
function mergeHours(a: LabelHours[], b: LabelHours[]): LabelHours[] {
  const out = new Map(a.map((r) => [r.label, { ...r }]));
  for (const r of b) {
    const had = out.get(r.label);
    if (!had) out.set(r.label, r);
    else
      out.set(r.label, {
        label: r.label,
        hours: [...had.hours, ...r.hours],
        conversions: [...had.conversions, ...r.conversions],
        cents: [...had.cents, ...r.cents],
      });
  }
  return [...out.values()];
}

/** The rows in key order (they usually come sorted; this checks it, and sorts if not). */
function sorted(k: Keyed): Keyed {
  let inOrder = true;
  for (let j = 1; j < k.hi.length && inOrder; j++) inOrder = before(k, j - 1, k, j);
  if (inOrder) return k;
  const order = [...k.hi.keys()].sort((a, b) => (before(k, a, k, b) ? -1 : before(k, b, k, a) ? 1 : 0));
  const pick = <A extends Uint32Array | Float64Array>(src: A, out: A) => {
    order.forEach((from, j) => {
      out[j] = src[from];
    });
    return out;
  };
  const n = order.length;
  return {
    hi: pick(k.hi, new Uint32Array(n)),
    lo: pick(k.lo, new Uint32Array(n)),
    last: pick(k.last, new Float64Array(n)),
    converted: pick(k.converted, new Float64Array(n)),
  };
}
const before = (a: Keyed, i: number, b: Keyed, j: number) => a.hi[i] < b.hi[j] || (a.hi[i] === b.hi[j] && a.lo[i] < b.lo[j]);

function closedTotals(idx: BreakdownIndex, h: number): Map<string, Totals> {
  const cached = idx.totals.get(h);
  if (cached) return cached;
  const out = new Map<string, Totals>();
  const of = (label: string) => {
    let t = out.get(label);
    if (!t) out.set(label, (t = [0, 0, 0, 0]));
    return t;
  };
  for (const [label, k] of idx.labels) {
    const t = of(label);
    for (let i = 0; i < k.last.length; i++) {
      if (k.last[i] >= h) t[0]++;
      if (k.converted[i] >= h) t[1]++;
    }
  }
  for (const r of idx.hours) {
    const t = of(r.label);
    r.hours.forEach((hour, i) => {
      if (hour < h) return;
      t[2] += r.conversions[i];
      t[3] += r.cents[i];
    });
  }
  // Period starts move by an hour: a few are kept.
  if (idx.totals.size >= 8) idx.totals.delete(idx.totals.keys().next().value as number);
  idx.totals.set(h, out);
  return out;
}

export interface LabelFigures {
  label: string;
  conversions: number;
  revenueCents: number;
  converters: number;
  visitors: number;
}

/**
 * The breakdown of (s, d) from hour h to now and beyond, exact, from the index and one statement; null
 * when the index is missing, does not reach back to h, or its mark moved: the caller answers from the
 * exact query (the demand is noted for the job). Never writes.
 */
export async function indexedBreakdown(
  ch: Clickhouse,
  s: IndexScope,
  d: IndexedDimension,
  h: number,
  nowMs = Date.now(),
): Promise<LabelFigures[] | null> {
  const idx = indexFor<BreakdownIndex>(ch, demandOf(s, d), nowMs);
  if (!idx || h % HOUR_MS !== 0 || h < idx.sinceMs || h > idx.untilMs) return null;
  // The sums are over the rows of the rollup from h, as the exact query reads them.
  const read = await readOpenLabels(ch, s, d, idx.untilMs);
  if (read.mark !== idx.mark) return null;
  const counts = new Map([...closedTotals(idx, h)].map(([label, t]) => [label, [...t] as Totals]));
  const { open } = read;
  for (let i = 0; i < open.label.length; i++) {
    const label = open.label[i];
    const k = idx.labels.get(label);
    const at = k ? findKey(k, open.hi[i], open.lo[i]) : -1;
    let t = counts.get(label);
    if (!t) counts.set(label, (t = [0, 0, 0, 0]));
    // Open events are all at or after `until` ≥ h: they count unless the index counted the visitor already.
    if (!k || at < 0 || k.last[at] < h) t[0]++;
    if (open.converted[i] > 0 && (!k || at < 0 || k.converted[at] < h)) t[1]++;
    t[2] += open.n[i];
    t[3] += open.cents[i];
  }
  // As the exact query: the labels with conversions in the period.
  return [...counts]
    .filter(([, t]) => t[2] > 0)
    .map(([label, [visitors, converters, conversions, revenueCents]]) => ({ label, conversions, revenueCents, converters, visitors }));
}
