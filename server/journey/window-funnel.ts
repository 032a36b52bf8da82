// windowFunnel(window, 'strict_order') of ClickHouse over one visitor's entries, in this process: for the
// few visitors of the current hour whose level the window may cut or whose entries interleave with their
// stored ones (funnel-cache-query.ts), from their entries kept in memory and the current hour's. Entries
// are taken in (time, step) order, one per step an entry matches; a step-1 entry (re)starts the chain's
// first time; an entry of step k + 1 raises level k to k + 1 when it comes within the window of the
// first time of the chain that reached level k; an entry of a step beyond the next reached one, once a
// step 1 was seen, ends the search (strict_order). The level is the highest one reached. A run over
// entries that all come before another's can be kept and continued with those (FunnelRun).

/** An entry: its time (ms) and the steps it matches (bit i: step i + 1). */
export interface StepEntry {
  ms: number;
  mask: number;
}

/** Where a run over some entries stands. */
export interface FunnelRun {
  /** first[i]: the first time of the chain that reached level i + 1, undefined before. */
  first: (number | undefined)[];
  started: boolean;
  /** The level once the search ended (a step out of order, or the last step reached). */
  ended?: number;
}

export const startRun = (n: number): FunnelRun => ({ first: new Array(n).fill(undefined), started: false });
export const copyRun = (run: FunnelRun): FunnelRun => ({ ...run, first: [...run.first] });

const reached = (run: FunnelRun) => {
  const i = run.first.indexOf(undefined);
  return i === -1 ? run.first.length : i;
};

export const levelOf = (run: FunnelRun) => run.ended ?? reached(run);

/** Continues `run` with `entries`, all at or after the entries it has seen. */
export function advance(run: FunnelRun, entries: readonly StepEntry[], windowMs: number): FunnelRun {
  const n = run.first.length;
  const steps: number[][] = [];
  for (const e of entries) for (let i = 0; i < n; i++) if (e.mask & (2 ** i)) steps.push([e.ms, i]);
  steps.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const { first } = run;
  for (const [ms, i] of steps) {
    if (run.ended !== undefined) break;
    if (i === 0) {
      first[0] = ms;
      run.started = true;
      continue;
    }
    const before = first[i - 1];
    if (before === undefined) {
      if (run.started) run.ended = reached(run);
      continue;
    }
    if (ms <= before + windowMs) {
      first[i] = before;
      if (i + 1 === n) run.ended = n;
    }
  }
  return run;
}

export const windowFunnelLevel = (entries: readonly StepEntry[], n: number, windowMs: number) =>
  levelOf(advance(startRun(n), entries, windowMs));
