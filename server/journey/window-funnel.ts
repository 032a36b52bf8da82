// windowFunnel(window, 'strict_order') of ClickHouse over one visitor's entries, in this process: for the
// few visitors of the current hour whose level the window may cut or whose entries interleave with their
// stored ones (funnel-cache-query.ts), from their entries kept in memory and the current hour's. Entries
// are taken in (time, step) order, one per step an entry matches; a step-1 entry (re)starts the chain's
// first time; an entry of step k + 1 raises level k to k + 1 when it comes within the window of the
// first time of the chain that reached level k; an entry of a step beyond the next reached one, once a
// step 1 was seen, ends the search (strict_order). The level is the highest one reached.

/** An entry: its time (ms) and the steps it matches (bit i: step i + 1). */
export interface StepEntry {
  ms: number;
  mask: number;
}

export function windowFunnelLevel(entries: readonly StepEntry[], n: number, windowMs: number): number {
  const steps: number[][] = [];
  for (const e of entries) for (let i = 0; i < n; i++) if (e.mask & (2 ** i)) steps.push([e.ms, i]);
  steps.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  // first[i]: the first time of the chain that reached level i + 1, undefined before.
  const first: (number | undefined)[] = new Array(n).fill(undefined);
  let started = false;
  const reached = () => {
    const i = first.indexOf(undefined);
    return i === -1 ? n : i;
  };
  for (const [ms, i] of steps) {
    if (i === 0) {
      first[0] = ms;
      started = true;
      continue;
    }
    const before = first[i - 1];
    if (before === undefined) {
      if (started) return reached();
      continue;
    }
    if (ms <= before + windowMs) {
      first[i] = before;
      if (i + 1 === n) return n;
    }
  }
  return reached();
}
