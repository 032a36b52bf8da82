// The summary's ten most frequent page URLs and event names from two parts' counts (the closed hours',
// kept, and the open part's, read per call), in the order the exact query gives: count descending, then
// the value's bytes ascending (ClickHouse compares strings bytewise).

/** Each value's count, per kind. */
export interface ValueCounts {
  page: Map<string, number>;
  event: Map<string, number>;
}
export interface TopValue {
  value: string;
  count: number;
}

export const TOP_VALUES = 10;

const byCountThenBytes = (a: TopValue, b: TopValue) =>
  b.count - a.count || Buffer.compare(Buffer.from(a.value, "utf8"), Buffer.from(b.value, "utf8"));

/** The closed part's values sorted once: most calls add a small open part to the same closed one. */
const sortedOf = new WeakMap<Map<string, number>, TopValue[]>();
function sorted(counts: Map<string, number>): TopValue[] {
  let s = sortedOf.get(counts);
  if (!s) {
    s = [...counts].map(([value, count]) => ({ value, count })).sort(byCountThenBytes);
    sortedOf.set(counts, s);
  }
  return s;
}

/**
 * The first ten of closed + open. A value the open part does not touch keeps its closed order, so the
 * candidates are the first ten untouched closed values and every touched one.
 */
export function topOfSum(closed: Map<string, number>, open: Map<string, number>, limit = TOP_VALUES): TopValue[] {
  const candidates: TopValue[] = [];
  for (const x of sorted(closed)) {
    if (candidates.length >= limit) break;
    if (!open.has(x.value)) candidates.push(x);
  }
  for (const [value, n] of open) candidates.push({ value, count: (closed.get(value) ?? 0) + n });
  return candidates.sort(byCountThenBytes).slice(0, limit);
}
