// The in-memory indexes of closed periods keep their 64-bit keys (visitor and session hashes) as two
// sorted arrays of 32-bit halves: a binary search over them.

/** The position of (hi, lo) in keys sorted by (hi, lo), or -1. */
export function findKey(keys: { hi: ArrayLike<number>; lo: ArrayLike<number> }, hi: number, lo: number): number {
  let a = 0;
  let b = keys.hi.length - 1;
  while (a <= b) {
    const m = (a + b) >>> 1;
    const h = keys.hi[m];
    const l = keys.lo[m];
    if (h === hi && l === lo) return m;
    if (h < hi || (h === hi && l < lo)) a = m + 1;
    else b = m - 1;
  }
  return -1;
}
